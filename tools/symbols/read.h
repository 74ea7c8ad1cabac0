// Reading a .sfu_symbols table back on the host, through the core's own reader.
#pragma once

#include <string>

#include "sfu/symbols.h"
#include "tools/elf/elf_file.h"
#include "tools/symbols/encode.h"

namespace sfu::tools {

// Opens the image's .sfu_symbols (no text range checked). On failure returns false and sets
// `error` ("no .sfu_symbols section", "invalid symbol table: bad-symbols-magic", ...).
// `section` keeps the bytes the view points into.
bool open_symbols(const ElfImage &image, ElfSection &section, sfu_symbols &view, std::string &error);

// The name of a symbol the view gave.
std::string symbol_name(const sfu_symbols &view, const sfu_symbol &sym);

// What the table holds, as encode_symbols reports it (truncated is not known here: 0).
SymbolTableStats symbol_stats(const sfu_symbols &view);

// "name+0xoff/0xsize" for addr looked up at lookup (as the device prints it), or "?".
std::string symbol_at(const sfu_symbols &view, uint64_t lookup, uint64_t addr);

}  // namespace sfu::tools
