// ELF64 for the host tools: the header fields they need, every section header, the symbol table
// and the functions it names (tools/elf/functions.h), and one edit: an image with one section's contents replaced (or added). Files of either
// byte order (x86_64 and aarch64 are little-endian, s390x big-endian).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sfu::tools {

// e_machine values of the architectures sfunwind serves.
inline constexpr uint16_t kEmS390 = 22, kEmX86_64 = 62, kEmAarch64 = 183;
inline constexpr uint16_t kEtExec = 2;
// Section types, flags and special indexes; symbol types, bindings and visibility (ELF gABI).
inline constexpr uint32_t kShtProgbits = 1, kShtSymtab = 2, kShtStrtab = 3, kShtDynamic = 6, kShtNote = 7,
                          kShtNobits = 8, kShtDynsym = 11;
inline constexpr uint64_t kShfAlloc = 2, kShfExecinstr = 4, kShfCompressed = 0x800;
inline constexpr uint16_t kShnLoReserve = 0xff00, kShnXindex = 0xffff;
inline constexpr uint8_t kSymNotype = 0, kSymObject = 1, kSymFunc = 2, kSymSection = 3, kSymFile = 4,
                         kSymCommon = 5, kSymTls = 6, kSymGnuIfunc = 10;
inline constexpr uint8_t kBindLocal = 0, kBindGlobal = 1, kBindWeak = 2;
inline constexpr uint8_t kVisHidden = 2;

struct ElfSectionHeader {
  std::string name;
  uint32_t index = 0;
  uint32_t type = 0;
  uint64_t flags = 0, addr = 0, offset = 0, size = 0;
  uint32_t link = 0;
};

// One symbol table entry (tools/elf/symbol_table.h reads them).
struct ElfSymbol {
  std::string name;
  uint64_t value = 0, size = 0;
  uint8_t type = 0, bind = 0;  // st_info's STT_* and STB_*
  uint16_t shndx = 0;          // st_shndx: the section it is defined in (0 undefined, >= 0xff00 special)
  uint8_t visibility = 0;      // st_other's STV_*
};

// A function as the host names code (tools/elf/functions.h): [start, start + size).
struct ImageFunction {
  std::string name;
  uint64_t start = 0, size = 0;
};

struct ElfImage {
  std::vector<uint8_t> file;
  uint16_t machine = 0;
  bool big_endian = false;
  std::vector<ElfSectionHeader> sections;
  std::vector<ElfSymbol> symbols;        // .symtab (else .dynsym) in table order, without entry 0
  std::vector<ImageFunction> functions;  // image_functions(): sorted, none overlapping

  const ElfSectionHeader *section(const std::string &name) const;  // nullptr if absent
};

// A program header (ELF64), in the file's byte order.
struct ElfSegment {
  uint32_t type = 0;  // PT_*
  uint64_t offset = 0, vaddr = 0, filesz = 0, memsz = 0;
  uint64_t paddr = 0;  // p_paddr: where the bytes are loaded (objcopy -O binary lays sections out by it)
};
inline constexpr uint32_t kPtLoad = 1, kPtNote = 4;

struct ElfSection {
  uint64_t addr = 0;           // sh_addr: where the section is loaded
  std::vector<uint8_t> bytes;  // its contents
};

// Reads a whole file. On failure returns false and sets `error` ("cannot open: ...").
bool read_file(const std::string &path, std::vector<uint8_t> &out, std::string &error);
bool write_file(const std::string &path, const std::vector<uint8_t> &bytes, std::string &error);

// Parses an ELF64 image. On failure returns false and sets `error` to one short reason: not an
// ELF file, ELF32, truncated, a symbol table outside the file, ...
bool elf_parse(std::vector<uint8_t> file, ElfImage &out, std::string &error);

// The image's program headers, in file order (none for a file without them). A table outside
// the file is an error.
bool read_segments(const ElfImage &image, std::vector<ElfSegment> &out, std::string &error);

// The first PT_LOAD's p_vaddr, or 0 without one: the address Breakpad's symbol files count from,
// and the image's first loaded byte, which ELF@ADDRESS places (tools/elf/load_bias.h).
uint64_t load_address(const std::vector<ElfSegment> &segments);
bool has_load_segment(const std::vector<ElfSegment> &segments);

// Copies the contents of section `name` (not NOBITS) out of `image`.
bool elf_section_bytes(const ElfImage &image, const std::string &name, ElfSection &out, std::string &error);

// Finds section `name` in the ELF64 image `file` (elf_parse + elf_section_bytes).
bool elf_find_section(const std::vector<uint8_t> &file, const std::string &name, ElfSection &out,
                      std::string &error);

// The image with section `name` holding `bytes`. An existing section is rewritten in place, its
// size set to the new size, the rest of its old space zeroed; nothing else moves, so loaded
// addresses stay valid. It must be large enough (else `error` names both sizes). An absent
// section is appended, not loaded (no SHF_ALLOC, address append_addr: the address its contents
// are relative to), after a copy of the section names.
bool elf_with_section(const ElfImage &image, const std::string &name, const std::vector<uint8_t> &bytes,
                      std::vector<uint8_t> &out, std::string &error, uint64_t append_addr = 0);

}  // namespace sfu::tools
