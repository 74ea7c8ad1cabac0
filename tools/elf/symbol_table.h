// Every entry of an ELF64 image's symbol table, in file order, with the fields a symbolizer
// needs to choose among them as GNU binutils does (type, binding, visibility, section). Reads
// .symtab, or .dynsym when .symtab is absent or holds nothing but its null entry.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/elf/elf_file.h"

namespace sfu::tools {

// st_info types and bindings, and st_other visibility (ELF gABI).
inline constexpr uint8_t kSymNotype = 0, kSymObject = 1, kSymFunc = 2, kSymSection = 3, kSymFile = 4,
                         kSymCommon = 5, kSymTls = 6, kSymGnuIfunc = 10;
inline constexpr uint8_t kBindLocal = 0, kBindGlobal = 1, kBindWeak = 2;
inline constexpr uint8_t kVisHidden = 2;

struct SymtabEntry {
  std::string name;
  uint64_t value = 0, size = 0;
  uint8_t type = 0, bind = 0, visibility = 0;
  uint16_t shndx = 0;  // section index; 0 undefined, >= 0xff00 special (absolute, common, ...)
};

// Reads the symbol table into `out` (cleared first; the null entry 0 left out). An image
// without either table gives an empty list. A table or name outside the file is an error.
bool read_symbol_table(const ElfImage &image, std::vector<SymtabEntry> &out, std::string &error);

}  // namespace sfu::tools
