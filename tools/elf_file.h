// Minimal ELF64 reader for the host tools: finds one section by name, in files of either byte
// order (x86_64 and aarch64 are little-endian, s390x big-endian). Nothing else of ELF is needed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sfu::tools {

// e_machine values of the architectures sfunwind serves.
inline constexpr uint16_t kEmS390 = 22, kEmX86_64 = 62, kEmAarch64 = 183;

struct ElfSection {
  uint64_t addr = 0;           // sh_addr: where the section is loaded
  std::vector<uint8_t> bytes;  // its contents
  uint16_t machine = 0;        // e_machine of the file
  bool big_endian = false;
};

// Reads a whole file. On failure returns false and sets `error` ("cannot open: ...").
bool read_file(const std::string &path, std::vector<uint8_t> &out, std::string &error);

// Finds section `name` in the ELF64 image `file`. On failure returns false and sets `error` to
// one short reason: not an ELF file, ELF32, truncated, no such section, ...
bool elf_find_section(const std::vector<uint8_t> &file, const std::string &name, ElfSection &out,
                      std::string &error);

}  // namespace sfu::tools
