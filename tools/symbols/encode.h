// The .sfu_symbols writer: functions (name, start, size) into the layout docs/symbols.md
// describes, names compressed with a table of byte-pair tokens.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/elf/elf_file.h"

namespace sfu::tools {

using SymbolFunction = ImageFunction;  // name, start, size

struct SymbolEncodeOptions {
  bool big_endian = false;
  uint64_t section_addr = 0;  // function starts are stored relative to it
};

// What the table holds, for gen's summary and the bench.
struct SymbolTableStats {
  size_t functions = 0;
  size_t bytes = 0;            // the whole table
  size_t raw_name_bytes = 0;   // the names as stored (each cut to SFU_SYMBOL_NAME_MAX bytes)
  size_t name_bytes = 0;       // what holds them: the token map and pairs, and the encoded names
  size_t tokens = 0;
  size_t truncated = 0;        // names longer than SFU_SYMBOL_NAME_MAX, stored cut
};

// Encodes functions, sorted by start, none overlapping the next, none empty-named, into `out`.
// Refuses (false, `error` says why) a function more than 2 GiB from section_addr or larger than
// 256 MiB (the entry keeps 28 bits of size), unsorted or overlapping input, a name holding a
// NUL, encoded names of 16 MiB or more (24 bits of offset), and a table of 2 GiB or more.
bool encode_symbols(const std::vector<SymbolFunction> &functions, const SymbolEncodeOptions &options,
                    std::vector<uint8_t> &out, SymbolTableStats &stats, std::string &error);

}  // namespace sfu::tools
