// The .sfu_symbols writer. Names are compressed by repeated pairing: every byte value no name
// uses is free, and each free code in turn (lowest first) becomes a token for the pair of codes
// that occurs most often in the names so far, which is then replaced everywhere. A token costs
// its two bytes in the table, so pairing stops when the best pair occurs twice or less. Tokens
// are built from earlier (lower) codes only, and never nest deeper than SFU_SYMBOL_TOKEN_DEPTH,
// which is what the reader checks. Before pairing, each name borrows the longest prefix it
// shares with one of the 15 names before it (through at most SFU_SYMBOL_PREFIX_DEPTH borrowings),
// and only the rest is stored: a prefix costs nothing, its length and source sit in the entry's
// spare bits.
#include "tools/symbols/encode.h"

#include <algorithm>
#include <array>

#include "symbols/format.h"
#include "tools/text/bytes.h"

namespace sfu::tools {
namespace {

namespace fmt = sfu::symbols;
using Codes = std::vector<uint8_t>;

struct Tokens {
  std::array<uint8_t, fmt::kTokenMapSize> map{};
  std::vector<std::array<uint8_t, 2>> pairs;  // in code order: the reader finds a pair by rank
  std::array<uint8_t, 256> height{};          // 0 for a character; a token: 1 + its parts' highest
};

// The pair most worth a token: the most frequent (counted as replace() will replace them, left
// to right, so "aaa" holds one "aa"), the lowest pair among equals, within the depth limit.
// Returns its count; 0 when none is allowed.
uint32_t best_pair(const std::vector<Codes> &names, const Tokens &t, uint32_t &best) {
  std::vector<uint32_t> count(1u << 16, 0);
  for (const Codes &s : names) {
    uint32_t last = ~0u;
    size_t last_at = 0;
    for (size_t i = 0; i + 1 < s.size(); i++) {
      uint32_t p = uint32_t(s[i]) << 8 | s[i + 1];
      if (p == last && last_at + 1 == i) continue;
      count[p]++;
      last = p;
      last_at = i;
    }
  }
  uint32_t best_count = 0;
  for (uint32_t p = 0; p < count.size(); p++) {
    if (count[p] <= best_count) continue;
    if (1u + std::max(t.height[p >> 8], t.height[p & 0xff]) > fmt::kTokenDepth) continue;
    best_count = count[p];
    best = p;
  }
  return best_count;
}

void replace(std::vector<Codes> &names, uint32_t pair, uint8_t code) {
  uint8_t a = uint8_t(pair >> 8), b = uint8_t(pair);
  for (Codes &s : names) {
    size_t out = 0;
    for (size_t i = 0; i < s.size(); out++) {
      if (i + 1 < s.size() && s[i] == a && s[i + 1] == b) {
        s[out] = code;
        i += 2;
      } else {
        s[out] = s[i++];
      }
    }
    s.resize(out);
  }
}

Tokens make_tokens(std::vector<Codes> &names) {
  std::array<bool, 256> used{};
  for (const Codes &s : names)
    for (uint8_t c : s) used[c] = true;
  Tokens t;
  for (uint32_t code = 0; code < 256; code++) {
    if (used[code]) continue;
    uint32_t pair = 0;
    // A token saves one byte per occurrence and costs two in the table.
    if (best_pair(names, t, pair) <= fmt::kTokenSize) break;
    t.map[code >> 3] |= uint8_t(1u << (code & 7));
    t.pairs.push_back({uint8_t(pair >> 8), uint8_t(pair)});
    t.height[code] = uint8_t(1 + std::max(t.height[pair >> 8], t.height[pair & 0xff]));
    replace(names, pair, uint8_t(code));
  }
  return t;
}

using Writer = ByteWriter;

struct Borrow {
  uint32_t back = 0, prefix = 0;
};

// For each name, the earlier name (1 to 15 back) it shares the longest prefix with, among those
// borrowing through fewer than kPrefixDepth names; the nearest of equals. At most 255 characters,
// and never the whole name: its own codes must not be empty.
std::vector<Borrow> borrows(const std::vector<Codes> &names) {
  std::vector<Borrow> out(names.size());
  std::vector<uint32_t> depth(names.size(), 0);
  for (size_t i = 0; i < names.size(); i++) {
    const Codes &n = names[i];
    for (uint32_t back = 1; back <= fmt::entry::kMaxBack && back <= i; back++) {
      if (depth[i - back] >= fmt::kPrefixDepth) continue;
      const Codes &a = names[i - back];
      size_t most = std::min({a.size(), n.size() - 1, size_t(fmt::entry::kMaxPrefix)}), p = 0;
      while (p < most && a[p] == n[p]) p++;
      if (p > out[i].prefix) out[i] = {back, uint32_t(p)};
    }
    if (out[i].back) depth[i] = depth[i - out[i].back] + 1;
  }
  return out;
}

}  // namespace

bool encode_symbols(const std::vector<SymbolFunction> &functions, const SymbolEncodeOptions &options,
                    std::vector<uint8_t> &out, SymbolTableStats &stats, std::string &error) {
  stats = SymbolTableStats{};
  std::vector<Codes> names;
  for (size_t i = 0; i < functions.size(); i++) {
    const SymbolFunction &f = functions[i];
    auto at = [&] { return " (" + f.name + " at " + std::to_string(f.start) + ")"; };
    if (f.name.empty() || f.name.find('\0') != std::string::npos) return (error = "a name empty or holding a NUL" + at(), false);
    if (i > 0 && f.start <= functions[i - 1].start) return (error = "functions not sorted by address" + at(), false);
    if (i > 0 && functions[i - 1].start + functions[i - 1].size > f.start) return (error = "functions overlap" + at(), false);
    int64_t rel = int64_t(f.start - options.section_addr);
    if (rel != int64_t(int32_t(rel))) return (error = "a function more than 2 GiB from the section" + at(), false);
    if (f.size > fmt::entry::kSizeMask) return (error = "a function of 256 MiB or more" + at(), false);
    size_t keep = std::min<size_t>(f.name.size(), fmt::kNameMax);
    stats.truncated += keep < f.name.size();
    stats.raw_name_bytes += keep;
    names.emplace_back(f.name.begin(), f.name.begin() + keep);
  }
  std::vector<Borrow> borrowed = borrows(names);
  for (size_t i = 0; i < names.size(); i++) names[i].erase(names[i].begin(), names[i].begin() + borrowed[i].prefix);
  Tokens t = make_tokens(names);

  out.clear();
  Writer w{out, options.big_endian};
  w.put(fmt::kMagic, 4);
  w.put(fmt::kVersion, 1);
  w.put(0, 1);  // flags
  w.put(0, 2);  // reserved
  w.put(functions.size(), 4);
  size_t names_size = 0;
  for (size_t i = 0; i + 1 < names.size(); i++) names_size += names[i].size();
  // Every name but the last must start within the 24 bits of its entry's offset.
  if (names_size > fmt::entry::kOffsetMask) return (error = "encoded names of 16 MiB or more", false);
  if (!names.empty()) names_size += names.back().size();
  w.put(names_size, 4);
  out.insert(out.end(), t.map.begin(), t.map.end());
  for (const auto &p : t.pairs) out.insert(out.end(), p.begin(), p.end());
  size_t name_at = 0;
  for (size_t i = 0; i < functions.size(); i++) {
    w.put(uint32_t(int32_t(int64_t(functions[i].start - options.section_addr))), 4);
    w.put(functions[i].size | uint64_t(borrowed[i].back) << fmt::entry::kSizeBits, 4);
    w.put(name_at | uint64_t(borrowed[i].prefix) << fmt::entry::kOffsetBits, 4);
    name_at += names[i].size();
  }
  for (const Codes &s : names) out.insert(out.end(), s.begin(), s.end());
  if (out.size() > fmt::kMaxSectionSize) return (error = "the symbol table would be 2 GiB or more", false);
  stats.functions = functions.size();
  stats.bytes = out.size();
  stats.tokens = t.pairs.size();
  stats.name_bytes = fmt::kTokenMapSize + fmt::kTokenSize * t.pairs.size() + names_size;
  return true;
}

}  // namespace sfu::tools
