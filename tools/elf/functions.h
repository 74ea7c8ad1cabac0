// The host's one answer to "which function holds this address", from the image's symbol table:
// `sfu symbolize` (its first line and the log mode's annotation), `sfu crash`, `sfu verify`,
// `sfu diff` and `sfu gen -v` name code with it, and `sfu gen --symbols` writes the same
// functions into the device's .sfu_symbols table, so the device and the host name an address
// alike. (`sfu symbolize --addr2line` and the source frames follow binutils' own choices
// instead: tools/dwarf/addr2line.h.)
//
// The functions, sorted and none overlapping, are:
//  - STT_FUNC and STT_GNU_IFUNC symbols, and STT_NOTYPE labels (assembly code without .type, such
//    as _start or _vectors), defined in an allocated executable section and inside it; never
//    local labels (.L...), aarch64 mapping symbols ($x, $d, ...: is_mapping_symbol), annobin's
//    hidden local markers or empty names;
//  - of aliases at one address: a function symbol before a label, then global before weak before
//    local, then the larger size, then the smaller name;
//  - a label inside a function symbol with a size is left out: the function holds the address;
//    with no function symbol around it, a label names the code up to the next symbol, as binutils
//    addr2line names code it has no DWARF function for;
//  - a size that runs into the next symbol is cut there; a symbol without a size reaches the
//    next symbol or the end of its section.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/elf/elf_file.h"

namespace sfu::tools {

// The functions of the image (ElfImage::functions holds them once elf_parse has run).
std::vector<ImageFunction> image_functions(const ElfImage &image);

// The function holding addr, or nullptr.
const ImageFunction *function_at(const ElfImage &image, uint64_t addr);

// "name+0xoff" for the function holding addr ("name" at its start), else "0x<addr>".
std::string symbolize(const ElfImage &image, uint64_t addr);

// "name+0xoff" for pc in the function starting at start ("name" at its start): symbolize's
// form, for callers that name the function otherwise (demangled, or looked up at another address).
std::string name_plus_offset(const std::string &name, uint64_t start, uint64_t pc);

}  // namespace sfu::tools
