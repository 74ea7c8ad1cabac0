// Which symbols of an image become the functions of its .sfu_symbols table.
#pragma once

#include <string>
#include <vector>

#include "tools/elf/elf_file.h"
#include "tools/symbols/encode.h"

namespace sfu::tools {

// The address range the table covers: it must lie inside the text range the kernel registers
// the module with, or the device refuses the table (symbol-outside-text).
struct SymbolRange {
  uint64_t lo = 0, hi = 0;  // [lo, hi); hi == 0: every executable section, whole
  std::string label;        // "[_stext, _etext)", "[0x1000, 0x2000)", "executable sections"
};

// Parses --symbols-range: "START,END" (symbol names or addresses) or "all". An empty spec is the
// default: [_stext, _etext) when the image defines both (the range sfu_register_image is usually
// given), else every executable section.
bool symbol_range(const ElfImage &image, const std::string &spec, SymbolRange &range, std::string &error);

// The functions of the image inside the range, sorted, none overlapping:
//  - STT_FUNC symbols, and STT_NOTYPE labels (assembly code without .type), defined in an
//    allocated executable section; never local labels (.L...), ARM mapping symbols ($x, $d, ...)
//    or empty names;
//  - aliases at one address: STT_FUNC before a label, then global before weak before local,
//    then the larger size, then the smaller name;
//  - a label inside a function that has a size is left out (it names the inside of that
//    function, as addr2line does), and a size that runs into the next symbol is cut there;
//  - a symbol without a size reaches the next symbol, or the end of its section;
//  - everything is cut to the range, and what is left empty is dropped.
std::vector<SymbolFunction> select_functions(const ElfImage &image, const SymbolRange &range);

}  // namespace sfu::tools
