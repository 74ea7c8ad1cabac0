// The one reader of an ELF64 image's symbol table: every entry, in file order, with the fields a
// symbolizer needs to choose among them as GNU binutils does (type, binding, visibility,
// section). Reads .symtab, or .dynsym when .symtab is absent or holds nothing but its null entry
// (as addr2line falls back to the dynamic symbols). elf_parse fills ElfImage::symbols with it.
#pragma once

#include <string>
#include <vector>

#include "tools/elf/elf_file.h"

namespace sfu::tools {

// Reads the symbol table into `out` (cleared first; the null entry 0 left out). An image
// without either table gives an empty list. A table or name outside the file is an error.
bool read_symbol_table(const ElfImage &image, std::vector<ElfSymbol> &out, std::string &error);

// An aarch64 mapping or tag symbol ("$x", "$d", "$m", "$f", "$p", alone or with ".<anything>"),
// which marks what follows in a section, never names a function: binutils' ELF/AArch64 rule,
// applied to local symbols of aarch64 images only.
bool is_mapping_symbol(uint16_t machine, const ElfSymbol &s);

}  // namespace sfu::tools
