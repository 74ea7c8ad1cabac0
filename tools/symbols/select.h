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

// Parses --symbols-range: "START,END" (symbol names, or addresses: hex with 0x or decimal, as
// every address argument) or "all". An empty spec is the default: [_stext, _etext) when the image
// defines both (the range sfu_register_image is usually given), else every executable section.
bool symbol_range(const ElfImage &image, const std::string &spec, SymbolRange &range, std::string &error);

// The spec's form alone, before any image is read: false with `error` ("--symbols-range: not an
// address: 010x") for what is a usage error whatever the image.
bool symbol_range_syntax(const std::string &spec, std::string &error);

// The functions of the image (ElfImage::functions, tools/elf/functions.h: the ones every host
// tool names code with) that start inside the range, cut to its end.
std::vector<SymbolFunction> select_functions(const ElfImage &image, const SymbolRange &range);

}  // namespace sfu::tools
