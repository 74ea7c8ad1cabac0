// Test helper: .sfu_symbols tables built byte by byte (docs/symbols.md), with every field in
// reach, so tests can make exactly the damage they name. (The real writer is tools/symbols/;
// tests of it round-trip through the reader instead.)
#pragma once

#include <stdint.h>

#include <array>
#include <string>
#include <vector>

namespace sfu::test {

struct RawSymbol {
  int64_t rel;                // start relative to the section's address
  uint32_t size;
  std::vector<uint8_t> name;  // codes as stored (the name's own, after any borrowed prefix)
  uint32_t back = 0;          // the prefix comes from the entry this many before
  uint32_t prefix = 0;        // characters borrowed from it
};

struct RawSymbols {
  bool big = false;
  uint8_t version = 2, flags = 0, reserved = 0;
  std::array<uint8_t, 32> map{};               // token codes
  std::vector<std::array<uint8_t, 2>> pairs;   // one per token, in code order
  std::vector<RawSymbol> entries;
  std::vector<uint32_t> name_offsets;          // empty: each name where the last one ended
  bool override_names_size = false;
  uint32_t names_size = 0;

  // Makes code c a token for (a, b); tokens must be added in rising code order.
  void token(uint8_t c, uint8_t a, uint8_t b);
};

std::vector<uint8_t> build_symbols(const RawSymbols &spec);

std::vector<uint8_t> codes(const std::string &s);

// Functions with plain names (no tokens) at starts relative to the section.
RawSymbols plain_symbols(std::initializer_list<RawSymbol> entries);

}  // namespace sfu::test
