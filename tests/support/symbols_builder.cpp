#include "support/symbols_builder.h"

#include "symbols/format.h"

namespace sfu::test {

void RawSymbols::token(uint8_t c, uint8_t a, uint8_t b) {
  map[c >> 3] |= uint8_t(1u << (c & 7));
  pairs.push_back({a, b});
}

std::vector<uint8_t> codes(const std::string &s) { return std::vector<uint8_t>(s.begin(), s.end()); }

RawSymbols plain_symbols(std::initializer_list<RawSymbol> entries) {
  RawSymbols r;
  r.entries = entries;
  return r;
}

std::vector<uint8_t> build_symbols(const RawSymbols &spec) {
  std::vector<uint8_t> out;
  auto put = [&](uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) out.push_back(uint8_t(v >> (8 * (spec.big ? n - 1 - i : i))));
  };
  uint32_t names_size = 0;
  for (const RawSymbol &e : spec.entries) names_size += uint32_t(e.name.size());
  if (spec.override_names_size) names_size = spec.names_size;
  put(symbols::kMagic, 4);
  put(spec.version, 1);
  put(spec.flags, 1);
  put(spec.reserved, 1);
  put(0, 1);
  put(spec.entries.size(), 4);
  put(names_size, 4);
  out.insert(out.end(), spec.map.begin(), spec.map.end());
  for (const auto &p : spec.pairs) out.insert(out.end(), p.begin(), p.end());
  uint32_t at = 0;
  for (size_t i = 0; i < spec.entries.size(); i++) {
    const RawSymbol &e = spec.entries[i];
    put(uint32_t(int32_t(e.rel)), 4);
    put(e.size | uint64_t(e.back) << symbols::entry::kSizeBits, 4);
    put((i < spec.name_offsets.size() ? spec.name_offsets[i] : at) | uint64_t(e.prefix) << symbols::entry::kOffsetBits, 4);
    at += uint32_t(e.name.size());
  }
  for (const RawSymbol &e : spec.entries) out.insert(out.end(), e.name.begin(), e.name.end());
  return out;
}

}  // namespace sfu::test
