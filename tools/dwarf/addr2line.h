// What GNU addr2line (binutils 2.40) prints for `addr2line -f -i [-C] -e ELF ADDR...`, computed
// from a SourceImage: for each address, a function line and a FILE:LINE line per inline level,
// or "??" and "??:0" when no section, DWARF or symbol covers it. It reproduces addr2line's
// choices, including the ones that are not what the DWARF says:
//   - the innermost function is the one with the smallest single range holding the address;
//   - range lists given by DW_FORM_rnglistx are not read, and a unit whose lists use the
//     .debug_addr entry kinds answers nothing (for its unit DIE: neither it nor any later unit);
//   - a function without a linkage name in a C++ unit (extern "C", main, C library inlines)
//     is named, the first time, by the nearest preceding symbol, and the DWARF function then
//     takes that symbol's name if both start at one address; later lookups use the DWARF name;
//   - a DWARF 5 sequence starts in file 0, older ones in file 1; a missing file is "<unknown>";
//   - without DWARF for the address, the nearest preceding function or untyped symbol of its
//     section, with the file of the STT_FILE symbol before it where binutils takes one, line "?";
//     the symbol found last is reused while later addresses fall inside its size;
//   - the discriminator of the first line is repeated on the "inlined by" lines.
// Because of the last three, answers depend on the earlier addresses of the same run: use one
// Addr2line for all the addresses of one command, in their order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/dwarf/source.h"
#include "tools/dwarf/source_index.h"

namespace sfu::tools::dwarf {

class Addr2line {
 public:
  explicit Addr2line(const SourceImage &image) : Addr2line(image.index()) {}
  explicit Addr2line(const SourceIndex *index);

  // The lines addr2line prints for `addr`, each ending in '\n'; demangled names with `demangle`.
  std::string lookup(uint64_t addr, bool demangle);

 private:
  CodeSymbol cached_symbol(uint32_t section, uint64_t addr);

  const SourceIndex *idx_;
  std::vector<std::string> names_;  // each function's name as addr2line holds it now
  std::vector<bool> settled_;       // its name is final (binutils' is_linkage)
  std::vector<bool> decoded_;       // binutils has read the unit's lines (they then count as its ranges)
  int64_t cache_section_ = -1;
  CodeSymbol cache_;
};

}  // namespace sfu::tools::dwarf
