// The symbol table (.sfu_symbols) and the build-id: one test per reader error (docs/errors.md
// points at the SymbolErrors.* tests), lookups and name decoding, the writer's round trip through
// the reader, which symbols of an image it keeps, and registration with both.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "sfu/print.h"
#include "sfu/symbols.h"
#include "sfu/unwind.h"
#include "support/fake_machine.h"
#include "support/symbols_builder.h"
#include "symbols/format.h"
#include "tools/elf/functions.h"
#include "tools/symbols/encode.h"
#include "tools/symbols/read.h"
#include "tools/symbols/select.h"

using namespace sfu::test;
using sfu::tools::SymbolFunction;

namespace {

constexpr uint64_t kText = 0x100000, kTextEnd = 0x101000, kSec = 0x102000;

// chain_1 [0x100000, +0x40), beta [0x100040, +0x20), gap, char [0x100080, +0x10); "ch" and
// "cha" are tokens 0x80 and 0x81 (the second built from the first).
RawSymbols sample(bool big = false) {
  RawSymbols r;
  r.big = big;
  r.token(0x80, 'c', 'h');
  r.token(0x81, 0x80, 'a');
  r.entries = {{-0x2000, 0x40, {0x81, 'i', 'n', '_', '1'}}, {-0x1fc0, 0x20, codes("beta")}, {-0x1f80, 0x10, {0x81, 'r'}}};
  return r;
}

sfu_error init(const std::vector<uint8_t> &sec, sfu_symbols &view, uint64_t text_start = kText,
               uint64_t text_end = kTextEnd, uint64_t addr = kSec) {
  sfu_symbols_desc d{sec.data(), sec.size(), addr, text_start, text_end};
  return sfu_symbols_init(&view, &d);
}

std::string init_error(const std::vector<uint8_t> &sec, uint64_t text_end = kTextEnd) {
  sfu_symbols view;
  return sfu_error_name(init(sec, view, kText, text_end));
}
std::string init_error(const RawSymbols &r) { return init_error(build_symbols(r)); }

std::string name_at(const sfu_symbols &view, uint64_t pc) {
  sfu_symbol sym;
  if (sfu_symbols_find(&view, pc, &sym) != SFU_OK) return "?";
  char buf[SFU_SYMBOL_NAME_MAX + 1];
  sfu_symbol_name(&view, &sym, buf, sizeof buf);
  return buf;
}

// ---- errors ---------------------------------------------------------------------------------

TEST(SymbolErrors, SampleIsValidInEitherByteOrder) {
  for (bool big : {false, true}) {
    sfu_symbols view;
    auto sec = build_symbols(sample(big));
    ASSERT_EQ(init(sec, view), SFU_OK) << big;
    EXPECT_EQ(view.big_endian, big);
    EXPECT_EQ(name_at(view, kText), "chain_1");
    EXPECT_EQ(name_at(view, kText + 0x45), "beta");
    EXPECT_EQ(name_at(view, kText + 0x8f), "char");
  }
}

TEST(SymbolErrors, NoSymbols) {
  sfu_symbols view;
  sfu_symbols_desc d{nullptr, 0, kSec, 0, 0};
  EXPECT_EQ(sfu_symbols_init(&view, &d), SFU_E_NO_SYMBOLS);
  std::vector<uint8_t> sec = build_symbols(sample());
  d = {sec.data(), 0, kSec, 0, 0};
  EXPECT_EQ(sfu_symbols_init(&view, &d), SFU_E_NO_SYMBOLS);
  // A reservation `sfu gen` never filled: zeros.
  EXPECT_EQ(init_error(std::vector<uint8_t>(4096, 0)), "no-symbol-table");
}

TEST(SymbolErrors, NullArgument) {
  auto sec = build_symbols(sample());
  sfu_symbols view;
  sfu_symbols_desc d{sec.data(), sec.size(), kSec, 0, 0};
  EXPECT_EQ(sfu_symbols_init(nullptr, &d), SFU_E_NULL_ARGUMENT);
  EXPECT_EQ(sfu_symbols_init(&view, nullptr), SFU_E_NULL_ARGUMENT);
  ASSERT_EQ(sfu_symbols_init(&view, &d), SFU_OK);
  sfu_symbol sym;
  EXPECT_EQ(sfu_symbols_find(nullptr, kText, &sym), SFU_E_NULL_ARGUMENT);
  EXPECT_EQ(sfu_symbols_find(&view, kText, nullptr), SFU_E_NULL_ARGUMENT);
  EXPECT_EQ(sfu_symbols_entry(&view, 0, nullptr), SFU_E_NULL_ARGUMENT);
}

TEST(SymbolErrors, SectionTooLarge) {
  auto sec = build_symbols(sample());
  sfu_symbols view;
  sfu_symbols_desc d{sec.data(), size_t(1) << 31, kSec, 0, 0};
  EXPECT_EQ(sfu_symbols_init(&view, &d), SFU_E_SECTION_TOO_LARGE);
}

TEST(SymbolErrors, Truncated) {
  auto sec = build_symbols(sample());
  for (size_t cut : {size_t(1), size_t(3), size_t(sfu::symbols::kHeaderSize - 1), size_t(sfu::symbols::kHeaderSize),
                     sec.size() - 1}) {
    std::vector<uint8_t> part(sec.begin(), sec.begin() + cut);
    EXPECT_EQ(init_error(part), "symbols-truncated") << cut;
  }
  // The names run past the end when the header claims more of them.
  RawSymbols r = sample();
  r.override_names_size = true;
  r.names_size = 100;
  EXPECT_EQ(init_error(r), "symbols-truncated");
  // A reservation may be longer than the table: zeros after it are fine.
  sec.resize(sec.size() + 4096, 0);
  EXPECT_EQ(init_error(sec), "ok");
}

TEST(SymbolErrors, BadMagic) {
  auto sec = build_symbols(sample());
  sec[0] ^= 1;
  EXPECT_EQ(init_error(sec), "bad-symbols-magic");
  // The magic of one byte order with the other's bytes swapped is no magic either.
  sec = build_symbols(sample());
  std::swap(sec[1], sec[2]);
  EXPECT_EQ(init_error(sec), "bad-symbols-magic");
}

TEST(SymbolErrors, BadVersion) {
  RawSymbols r = sample();
  r.version = 1;  // written by an sfu gen before prefixes: its entries read otherwise
  EXPECT_EQ(init_error(r), "bad-symbols-version");
  r.version = 3;
  EXPECT_EQ(init_error(r), "bad-symbols-version");
  r.version = 0;
  EXPECT_EQ(init_error(r), "bad-symbols-version");
}

TEST(SymbolErrors, UnknownFlags) {
  RawSymbols r = sample();
  r.flags = 1;
  EXPECT_EQ(init_error(r), "unknown-symbols-flags");
  r = sample();
  r.reserved = 0x80;
  EXPECT_EQ(init_error(r), "unknown-symbols-flags");
}

TEST(SymbolErrors, BadToken) {
  RawSymbols r = sample();
  r.pairs[1][0] = 0x81;  // "cha" made of itself
  EXPECT_EQ(init_error(r), "bad-symbol-token");
  r = sample();
  r.pairs[0][1] = 0x81;  // "ch" made of a later token
  EXPECT_EQ(init_error(r), "bad-symbol-token");
  r = sample();
  r.pairs[0][1] = 0;  // a NUL character
  EXPECT_EQ(init_error(r), "bad-symbol-token");
}

TEST(SymbolErrors, NotSorted) {
  RawSymbols r = sample();
  std::swap(r.entries[1].rel, r.entries[2].rel);
  r.entries[1].size = r.entries[2].size = 0x10;
  EXPECT_EQ(init_error(r), "symbols-not-sorted");
  r = sample();
  r.entries[1].rel = r.entries[0].rel;  // two functions at one address
  EXPECT_EQ(init_error(r), "symbols-not-sorted");
}

TEST(SymbolErrors, Overlap) {
  RawSymbols r = sample();
  r.entries[0].size = 0x41;
  EXPECT_EQ(init_error(r), "symbols-overlap");
  r.entries[0].size = 0x40;  // ending exactly where the next starts is fine
  EXPECT_EQ(init_error(r), "ok");
}

TEST(SymbolErrors, OutsideText) {
  RawSymbols r = sample();
  r.entries[2].size = 0xf81;  // to kTextEnd + 1
  EXPECT_EQ(init_error(r), "symbol-outside-text");
  r.entries[2].size = 0xf80;  // to kTextEnd exactly
  EXPECT_EQ(init_error(r), "ok");
  EXPECT_EQ(init_error(build_symbols(sample()), kText + 0x8f), "symbol-outside-text");
  EXPECT_EQ(init_error(build_symbols(sample()), 0), "ok");  // text_end 0: not checked
  // A start below address 0 wraps: refused even with no text range to check.
  sfu_symbols view;
  EXPECT_EQ(init(build_symbols(sample()), view, 0, 0, 0x1000), SFU_E_SYMBOL_OUTSIDE_TEXT);
  // So does a function running past the top of the address space.
  RawSymbols top = plain_symbols({{0x10, 0x20, codes("top")}});
  EXPECT_EQ(init(build_symbols(top), view, 0, 0, UINT64_MAX - 0x18), SFU_E_SYMBOL_OUTSIDE_TEXT);
}

TEST(SymbolErrors, BadNameOffset) {
  RawSymbols r = sample();
  r.name_offsets = {1, 5, 9};  // the first name must start at 0
  EXPECT_EQ(init_error(r), "bad-symbol-name-offset");
  r.name_offsets = {0, 0, 9};  // names must not be empty or shared
  EXPECT_EQ(init_error(r), "bad-symbol-name-offset");
  r.name_offsets = {0, 5, 11};  // the last one starts past the names
  EXPECT_EQ(init_error(r), "bad-symbol-name-offset");
  RawSymbols none;  // names without any function
  none.override_names_size = true;
  none.names_size = 1;
  std::vector<uint8_t> sec = build_symbols(none);
  sec.push_back('x');
  EXPECT_EQ(init_error(sec), "bad-symbol-name-offset");
}

TEST(SymbolErrors, BadName) {
  RawSymbols r = sample();
  r.entries[1].name = {'b', 0, 't', 'a'};
  EXPECT_EQ(init_error(r), "bad-symbol-name");
}

TEST(SymbolErrors, NameTooLong) {
  // Stored longer than the limit.
  RawSymbols r = plain_symbols({{-0x2000, 0x10, std::vector<uint8_t>(SFU_SYMBOL_NAME_MAX + 1, 'x')}});
  EXPECT_EQ(init_error(r), "symbol-name-too-long");
  r.entries[0].name.pop_back();
  EXPECT_EQ(init_error(r), "ok");
  // Short when stored, too long once its tokens are expanded: 257 times "xx".
  r = plain_symbols({{-0x2000, 0x10, std::vector<uint8_t>(257, 0x80)}});
  r.token(0x80, 'x', 'x');
  EXPECT_EQ(init_error(r), "symbol-name-too-long");
  r.entries[0].name.pop_back();  // 512 characters exactly
  EXPECT_EQ(init_error(r), "ok");
}

TEST(SymbolErrors, TokensTooDeep) {
  // Token k is (token k-1, 'y'): token 32 nests 33 deep.
  auto nested = [](int depth) {
    RawSymbols r;
    r.token(0, 'y', 'y');
    for (int k = 1; k < depth; k++) r.token(uint8_t(k), uint8_t(k - 1), 'y');
    r.entries = {{-0x2000, 0x10, {uint8_t(depth - 1)}}};
    return r;
  };
  EXPECT_EQ(init_error(nested(SFU_SYMBOL_TOKEN_DEPTH + 1)), "symbol-tokens-too-deep");
  EXPECT_EQ(init_error(nested(SFU_SYMBOL_TOKEN_DEPTH)), "ok");
}

// "abcdef", then "abcdXY" (4 from it), "abcdXZ" (5 from that), "abq" (2 from that).
RawSymbols borrowing() {
  RawSymbols r = plain_symbols({{-0x2000, 0x10, codes("abcdef")},
                                {-0x1ff0, 0x10, codes("XY"), 1, 4},
                                {-0x1fe0, 0x10, codes("Z"), 1, 5},
                                {-0x1fd0, 0x10, codes("q"), 1, 2}});
  return r;
}

TEST(SymbolErrors, BadPrefix) {
  EXPECT_EQ(init_error(borrowing()), "ok");
  RawSymbols r = borrowing();
  r.entries[1].prefix = 0;  // back without a prefix
  EXPECT_EQ(init_error(r), "bad-symbol-prefix");
  r = borrowing();
  r.entries[1].back = 0;  // a prefix from nowhere
  EXPECT_EQ(init_error(r), "bad-symbol-prefix");
  r = borrowing();
  r.entries[1].back = 2;  // before the first entry
  EXPECT_EQ(init_error(r), "bad-symbol-prefix");
  r = borrowing();
  r.entries[1].prefix = 7;  // "abcdef" has 6
  EXPECT_EQ(init_error(r), "bad-symbol-prefix");
  r.entries[1].prefix = 6;
  EXPECT_EQ(init_error(r), "ok");
}

TEST(SymbolErrors, PrefixTooDeep) {
  // Entry k borrows all of entry k-1 and adds 'y': entry k borrows through k names.
  auto chain = [](uint32_t n) {
    RawSymbols r = plain_symbols({{-0x2000, 1, codes("x")}});
    for (uint32_t k = 1; k < n; k++) r.entries.push_back({-0x2000 + int64_t(k), 1, codes("y"), 1, k});
    return r;
  };
  EXPECT_EQ(init_error(chain(SFU_SYMBOL_PREFIX_DEPTH + 2)), "symbol-prefix-too-deep");
  EXPECT_EQ(init_error(chain(SFU_SYMBOL_PREFIX_DEPTH + 1)), "ok");
}

TEST(SymbolErrors, NoSymbolForPc) {
  sfu_symbols view;
  auto sec = build_symbols(sample());
  ASSERT_EQ(init(sec, view), SFU_OK);
  sfu_symbol sym;
  EXPECT_EQ(sfu_symbols_find(&view, kText - 1, &sym), SFU_E_NO_SYMBOL);     // before the first
  EXPECT_EQ(sfu_symbols_find(&view, kText + 0x60, &sym), SFU_E_NO_SYMBOL);  // in the gap
  EXPECT_EQ(sfu_symbols_find(&view, kText + 0x90, &sym), SFU_E_NO_SYMBOL);  // past the last
  EXPECT_EQ(sfu_symbols_entry(&view, 3, &sym), SFU_E_NO_SYMBOL);
}

TEST(SymbolErrors, NotInitialized) {
  sfu_symbols view;
  auto sec = build_symbols(sample());
  ASSERT_EQ(init(sec, view), SFU_OK);
  auto bad = build_symbols(sample());
  bad[0] ^= 1;
  EXPECT_EQ(init(bad, view), SFU_E_SYMBOLS_BAD_MAGIC);  // a refused init closes the view
  sfu_symbol sym{kText, 0x40, 0};
  EXPECT_EQ(sfu_symbols_find(&view, kText, &sym), SFU_E_NOT_INITIALIZED);
  EXPECT_EQ(sfu_symbols_entry(&view, 0, &sym), SFU_E_NOT_INITIALIZED);
  char buf[16] = "junk";
  EXPECT_EQ(sfu_symbol_name(&view, &sym, buf, sizeof buf), 0u);
  EXPECT_STREQ(buf, "");
}

// A note as ld writes it: namesz, descsz, type, name, descriptor, padded to 4.
std::vector<uint8_t> note(bool big, const std::string &name, uint32_t type, const std::vector<uint8_t> &desc) {
  std::vector<uint8_t> out;
  auto put = [&](uint32_t v) {
    for (unsigned i = 0; i < 4; i++) out.push_back(uint8_t(v >> (8 * (big ? 3 - i : i))));
  };
  put(uint32_t(name.size() + 1));
  put(uint32_t(desc.size()));
  put(type);
  out.insert(out.end(), name.begin(), name.end());
  out.push_back(0);
  out.resize((out.size() + 3) & ~size_t(3), 0);
  out.insert(out.end(), desc.begin(), desc.end());
  out.resize((out.size() + 3) & ~size_t(3), 0);
  return out;
}

const std::vector<uint8_t> kId = {0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};

std::string build_id_error(const std::vector<uint8_t> &bytes, bool big = false) {
  const uint8_t *id;
  uint32_t size;
  return sfu_error_name(sfu_build_id_from_note(bytes.data(), bytes.size(), big, &id, &size));
}

TEST(SymbolErrors, NoBuildId) {
  const uint8_t *id = kId.data();
  uint32_t size = 7;
  EXPECT_EQ(sfu_build_id_from_note(nullptr, 36, 0, &id, &size), SFU_E_NO_BUILD_ID);
  EXPECT_EQ(id, nullptr);
  EXPECT_EQ(size, 0u);
  EXPECT_EQ(sfu_build_id_from_note(kId.data(), 0, 0, &id, &size), SFU_E_NO_BUILD_ID);
  EXPECT_EQ(sfu_build_id_from_note(kId.data(), 20, 0, nullptr, &size), SFU_E_NULL_ARGUMENT);
}

TEST(SymbolErrors, BuildIdTruncated) {
  auto n = note(false, "GNU", 3, kId);
  EXPECT_EQ(build_id_error(std::vector<uint8_t>(n.begin(), n.begin() + 11)), "build-id-note-truncated");
  EXPECT_EQ(build_id_error(std::vector<uint8_t>(n.begin(), n.end() - 1)), "build-id-note-truncated");
  n[0] = 0xff;  // a name running past the end
  EXPECT_EQ(build_id_error(n), "build-id-note-truncated");
}

TEST(SymbolErrors, NotABuildId) {
  EXPECT_EQ(build_id_error(note(false, "GNU", 1, kId)), "not-a-gnu-build-id");  // another type
  EXPECT_EQ(build_id_error(note(false, "GNX", 3, kId)), "not-a-gnu-build-id");
  EXPECT_EQ(build_id_error(note(false, "GNUX", 3, kId)), "not-a-gnu-build-id");
  // The right note read in the wrong byte order.
  EXPECT_NE(build_id_error(note(true, "GNU", 3, kId), false), "ok");
}

TEST(SymbolErrors, BadBuildIdSize) {
  EXPECT_EQ(build_id_error(note(false, "GNU", 3, {})), "bad-build-id-size");
  EXPECT_EQ(build_id_error(note(false, "GNU", 3, std::vector<uint8_t>(SFU_BUILD_ID_MAX + 1, 7))), "bad-build-id-size");
  EXPECT_EQ(build_id_error(note(false, "GNU", 3, std::vector<uint8_t>(SFU_BUILD_ID_MAX, 7))), "ok");
}

// ---- lookups and names ------------------------------------------------------------------------

TEST(Symbols, EveryAddressFindsTheFunctionCoveringIt) {
  sfu_symbols view;
  auto sec = build_symbols(sample(true));
  ASSERT_EQ(init(sec, view), SFU_OK);
  struct F {
    uint64_t start, size;
    const char *name;
  } fns[] = {{kText, 0x40, "chain_1"}, {kText + 0x40, 0x20, "beta"}, {kText + 0x80, 0x10, "char"}};
  for (uint64_t pc = kText - 2; pc < kText + 0xa0; pc++) {
    const F *want = nullptr;
    for (const F &f : fns)
      if (pc >= f.start && pc < f.start + f.size) want = &f;
    sfu_symbol sym;
    sfu_error e = sfu_symbols_find(&view, pc, &sym);
    if (!want) {
      EXPECT_EQ(e, SFU_E_NO_SYMBOL) << std::hex << pc;
      continue;
    }
    ASSERT_EQ(e, SFU_OK) << std::hex << pc;
    EXPECT_EQ(sym.start, want->start);
    EXPECT_EQ(sym.size, want->size);
    EXPECT_EQ(name_at(view, pc), want->name);
  }
}

TEST(Symbols, NameIntoABufferIsCutAndTerminated) {
  sfu_symbols view;
  auto sec = build_symbols(sample());
  ASSERT_EQ(init(sec, view), SFU_OK);
  sfu_symbol sym;
  ASSERT_EQ(sfu_symbols_find(&view, kText, &sym), SFU_OK);
  char buf[5];
  EXPECT_EQ(sfu_symbol_name(&view, &sym, buf, sizeof buf), 7u);  // the full length
  EXPECT_STREQ(buf, "chai");
  EXPECT_EQ(sfu_symbol_name(&view, &sym, buf, 1), 7u);
  EXPECT_STREQ(buf, "");
  EXPECT_EQ(sfu_symbol_name(&view, &sym, nullptr, 8), 0u);
  sym.index = 3;  // past the last entry
  EXPECT_EQ(sfu_symbol_name(&view, &sym, buf, sizeof buf), 0u);
}

TEST(Symbols, NameIntoASinkNeedsNoBuffer) {
  sfu_symbols view;
  auto sec = build_symbols(sample());
  ASSERT_EQ(init(sec, view), SFU_OK);
  std::string got;
  sfu_sink sink{[](void *ctx, char c) { static_cast<std::string *>(ctx)->push_back(c); }, &got};
  sfu_symbol sym;
  ASSERT_EQ(sfu_symbols_find(&view, kText + 0x80, &sym), SFU_OK);
  EXPECT_EQ(sfu_symbol_print_name(&sink, &view, &sym), 4u);
  EXPECT_EQ(got, "char");
  sfu_sink none{nullptr, nullptr};
  EXPECT_EQ(sfu_symbol_print_name(&none, &view, &sym), 4u);  // counted, nothing printed
  EXPECT_EQ(sfu_symbol_print_name(nullptr, &view, &sym), 4u);
}

TEST(Symbols, BorrowedPrefixesDecodeInOrder) {
  for (bool big : {false, true}) {
    RawSymbols r = borrowing();
    r.big = big;
    sfu_symbols view;
    auto sec = build_symbols(r);
    ASSERT_EQ(init(sec, view), SFU_OK);
    EXPECT_EQ(name_at(view, kText), "abcdef");
    EXPECT_EQ(name_at(view, kText + 0x10), "abcdXY");
    EXPECT_EQ(name_at(view, kText + 0x20), "abcdXZ");  // 4 from the first, 1 from the second
    EXPECT_EQ(name_at(view, kText + 0x3f), "abq");     // 2 from the first: the others give none
    sfu_symbol sym;
    ASSERT_EQ(sfu_symbols_find(&view, kText + 0x20, &sym), SFU_OK);
    EXPECT_EQ(sym.size, 0x10u);  // back in the size field's top bits is not size
    char buf[4];
    EXPECT_EQ(sfu_symbol_name(&view, &sym, buf, sizeof buf), 6u);
    EXPECT_STREQ(buf, "abc");
  }
  // A prefix that ends inside a token: "cha" (0x81) lends "ch".
  RawSymbols t = sample();
  t.entries[1] = {-0x1fc0, 0x20, codes("ip"), 1, 2};
  sfu_symbols view;
  auto sec = build_symbols(t);
  ASSERT_EQ(init(sec, view), SFU_OK);
  EXPECT_EQ(name_at(view, kText + 0x40), "chip");
}

// ---- the writer -------------------------------------------------------------------------------

std::vector<SymbolFunction> many_functions(size_t n, uint64_t base, unsigned seed) {
  std::mt19937 rng(seed);
  const char *parts[] = {"_ZN7testing", "8internal", "chain_", "scenario_", "trap_", "Test", "Impl", "handle_", "irq"};
  std::vector<SymbolFunction> out;
  uint64_t at = base;
  for (size_t i = 0; i < n; i++) {
    std::string name;
    for (unsigned k = 0; k < 1 + rng() % 4; k++) name += parts[rng() % 9];
    name += std::to_string(i);
    uint64_t size = 1 + rng() % 0x80;
    out.push_back({name, at, size});
    at += size + rng() % 3 * 16;
  }
  return out;
}

sfu_symbols read_back(const std::vector<uint8_t> &bytes, uint64_t addr) {
  sfu_symbols view;
  sfu_symbols_desc d{bytes.data(), bytes.size(), addr, 0, 0};
  EXPECT_EQ(sfu_symbols_init(&view, &d), SFU_OK);
  return view;
}

TEST(SymbolsWriter, RoundTripThroughTheReaderInEitherByteOrder) {
  for (bool big : {false, true})
    for (uint64_t addr : {kText - 0x10000, kText + 0x80000}) {  // the table after and before the text
      auto fns = many_functions(700, kText, unsigned(addr + big));
      sfu::tools::SymbolEncodeOptions opt{big, addr};
      std::vector<uint8_t> bytes;
      sfu::tools::SymbolTableStats stats;
      std::string error;
      ASSERT_TRUE(sfu::tools::encode_symbols(fns, opt, bytes, stats, error)) << error;
      sfu_symbols view = read_back(bytes, addr);
      ASSERT_EQ(view.num_symbols, fns.size());
      EXPECT_EQ(view.big_endian, big);
      for (size_t i = 0; i < fns.size(); i++) {
        sfu_symbol sym;
        ASSERT_EQ(sfu_symbols_find(&view, fns[i].start + fns[i].size - 1, &sym), SFU_OK);
        EXPECT_EQ(sym.index, i);
        EXPECT_EQ(sym.start, fns[i].start);
        EXPECT_EQ(sym.size, fns[i].size);
        EXPECT_EQ(sfu::tools::symbol_name(view, sym), fns[i].name);
      }
      sfu::tools::SymbolTableStats again = sfu::tools::symbol_stats(view);
      EXPECT_EQ(again.bytes, stats.bytes);
      EXPECT_EQ(again.name_bytes, stats.name_bytes);
      EXPECT_EQ(again.raw_name_bytes, stats.raw_name_bytes);
      EXPECT_EQ(again.tokens, stats.tokens);
    }
}

TEST(SymbolsWriter, SizeIsHeaderPairsEntriesAndNames) {
  auto fns = many_functions(300, kText, 7);
  std::vector<uint8_t> bytes;
  sfu::tools::SymbolTableStats s;
  std::string error;
  ASSERT_TRUE(sfu::tools::encode_symbols(fns, {false, kText}, bytes, s, error)) << error;
  EXPECT_EQ(s.functions, 300u);
  EXPECT_EQ(s.bytes, bytes.size());
  size_t raw = 0;
  for (const auto &f : fns) raw += f.name.size();
  EXPECT_EQ(s.raw_name_bytes, raw);
  sfu_symbols view = read_back(bytes, kText);
  EXPECT_EQ(bytes.size(), 48 + 2 * s.tokens + 12 * 300 + view.names_size);
  EXPECT_EQ(s.name_bytes, 32 + 2 * s.tokens + view.names_size);
  EXPECT_GT(s.tokens, 50u);
  // These names repeat a few parts: the tokens must at least halve them.
  EXPECT_LT(double(s.name_bytes), 0.5 * double(raw));
}

TEST(SymbolsWriter, NoTokenWhereNoPairRepeatsEnough) {
  // No two names start alike, so none borrows a prefix.
  std::vector<SymbolFunction> fns = {{"xab", kText, 4}, {"yab", kText + 4, 4}, {"zq", kText + 8, 4}};
  std::vector<uint8_t> bytes;
  sfu::tools::SymbolTableStats s;
  std::string error;
  ASSERT_TRUE(sfu::tools::encode_symbols(fns, {false, kText}, bytes, s, error)) << error;
  EXPECT_EQ(s.tokens, 0u);  // "ab" twice saves 2 bytes and would cost 2
  fns.push_back({"wab", kText + 12, 4});
  ASSERT_TRUE(sfu::tools::encode_symbols(fns, {false, kText}, bytes, s, error)) << error;
  EXPECT_EQ(s.tokens, 1u);
}

TEST(SymbolsWriter, NamesBorrowTheLongestPrefixNearby) {
  std::vector<SymbolFunction> fns = {{"sfu_print_hex", kText, 4}, {"trap_init", kText + 4, 4},
                                     {"sfu_print_dec", kText + 8, 4}, {"sfu_print", kText + 12, 4},
                                     {"sfu_print", kText + 16, 4}};
  std::vector<uint8_t> bytes;
  sfu::tools::SymbolTableStats s;
  std::string error;
  ASSERT_TRUE(sfu::tools::encode_symbols(fns, {false, kText}, bytes, s, error)) << error;
  EXPECT_EQ(s.tokens, 0u);
  sfu_symbols view = read_back(bytes, kText);
  // Stored: all of the first two, "dec" (10 from 2 back), "t" (8 from 1 back: a name never
  // borrows all of itself), "t" again (8 from 2 back, the nearest of the longest).
  EXPECT_EQ(view.names_size, 13u + 9 + 3 + 1 + 1);
  auto field = [&](uint32_t i, uint32_t off) {
    uint32_t v = 0;
    for (int k = 3; k >= 0; k--) v = v << 8 | bytes[view.entries_at + 12 * i + off + uint32_t(k)];
    return v;
  };
  uint32_t want[][2] = {{0, 0}, {0, 0}, {2, 10}, {1, 8}, {1, 8}};
  for (uint32_t i = 0; i < 5; i++) {
    EXPECT_EQ(field(i, 4) >> 28, want[i][0]) << i;
    EXPECT_EQ(field(i, 8) >> 24, want[i][1]) << i;
    sfu_symbol sym;
    ASSERT_EQ(sfu_symbols_entry(&view, i, &sym), SFU_OK);
    EXPECT_EQ(sfu::tools::symbol_name(view, sym), fns[i].name);
  }
}

TEST(SymbolsWriter, BorrowingStopsAtThePrefixDepth) {
  // Each name extends the one before: each would borrow all but its last character.
  std::vector<SymbolFunction> fns;
  std::string name = "n";
  for (uint64_t i = 0; i < 40; i++, name += char('a' + i % 26)) fns.push_back({name, kText + i, 1});
  std::vector<uint8_t> bytes;
  sfu::tools::SymbolTableStats s;
  std::string error;
  ASSERT_TRUE(sfu::tools::encode_symbols(fns, {false, kText}, bytes, s, error)) << error;
  sfu_symbols view = read_back(bytes, kText);
  for (uint32_t i = 0; i < fns.size(); i++) {
    sfu_symbol sym;
    ASSERT_EQ(sfu_symbols_entry(&view, i, &sym), SFU_OK);
    EXPECT_EQ(sfu::tools::symbol_name(view, sym), fns[i].name);
  }
}

TEST(SymbolsWriter, RefusesNamesPastTheOffsetBits) {
  // Names of the given sizes that use nearly every byte value and share no prefix: the last
  // one starts at the sum of the others, which must fit the entry's 24 bits.
  auto names = [](const std::vector<size_t> &sizes) {
    std::vector<SymbolFunction> fns;
    uint32_t x = 1;
    for (size_t i = 0; i < sizes.size(); i++) {
      std::string s(sizes[i], 'a');
      s[0] = char(1 + i % 255);
      for (size_t k = 1; k < s.size(); k++) s[k] = char(1 + ((x = x * 1103515245 + 12345) >> 16) % 255);
      fns.push_back({s, kText + i, 1});
    }
    return fns;
  };
  // 32768 names of 512 bytes make 2^24; the one token code 0 can be (NUL is in no name) saves
  // a few hundred bytes, so 8 names either side.
  size_t full = (size_t(1) << 24) / SFU_SYMBOL_NAME_MAX;
  std::vector<size_t> sizes(full + 8, SFU_SYMBOL_NAME_MAX);
  std::vector<uint8_t> bytes;
  sfu::tools::SymbolTableStats s;
  std::string error;
  EXPECT_FALSE(sfu::tools::encode_symbols(names(sizes), {false, kText}, bytes, s, error));
  EXPECT_NE(error.find("16 MiB"), std::string::npos) << error;
  sizes.resize(full - 8);
  auto fns = names(sizes);
  ASSERT_TRUE(sfu::tools::encode_symbols(fns, {false, kText}, bytes, s, error)) << error;
  EXPECT_GT(s.name_bytes, (size_t(1) << 24) - 8 * SFU_SYMBOL_NAME_MAX - 1024);
  sfu_symbols view = read_back(bytes, kText);
  sfu_symbol sym;
  ASSERT_EQ(sfu_symbols_entry(&view, uint32_t(fns.size() - 1), &sym), SFU_OK);
  EXPECT_EQ(sfu::tools::symbol_name(view, sym), fns.back().name);
}

TEST(SymbolsWriter, LongNamesAreStoredCut) {
  std::string long_name(SFU_SYMBOL_NAME_MAX + 40, 'q');
  std::vector<SymbolFunction> fns = {{long_name, kText, 4}};
  std::vector<uint8_t> bytes;
  sfu::tools::SymbolTableStats s;
  std::string error;
  ASSERT_TRUE(sfu::tools::encode_symbols(fns, {true, kText}, bytes, s, error)) << error;
  EXPECT_EQ(s.truncated, 1u);
  sfu_symbols view = read_back(bytes, kText);
  sfu_symbol sym;
  ASSERT_EQ(sfu_symbols_find(&view, kText, &sym), SFU_OK);
  EXPECT_EQ(sfu::tools::symbol_name(view, sym), long_name.substr(0, SFU_SYMBOL_NAME_MAX));
}

TEST(SymbolsWriter, RefusesWhatTheFormatCannotHold) {
  auto refusal = [](std::vector<SymbolFunction> fns, uint64_t addr = kText) {
    std::vector<uint8_t> bytes;
    sfu::tools::SymbolTableStats s;
    std::string error;
    return sfu::tools::encode_symbols(fns, {false, addr}, bytes, s, error) ? std::string("accepted") : error;
  };
  EXPECT_NE(refusal({{"b", kText + 8, 4}, {"a", kText, 4}}).find("not sorted"), std::string::npos);
  EXPECT_NE(refusal({{"a", kText, 9}, {"b", kText + 8, 4}}).find("overlap"), std::string::npos);
  EXPECT_NE(refusal({{"a", kText, 4}}, kText + 0x80000001ull).find("2 GiB"), std::string::npos);
  EXPECT_NE(refusal({{"a", kText, 4}}, kText - 0x80000000ull).find("2 GiB"), std::string::npos);
  EXPECT_EQ(refusal({{"a", kText, 4}}, kText + 0x80000000ull), "accepted");
  EXPECT_EQ(refusal({{"a", kText, 4}}, kText - 0x7fffffffull), "accepted");
  EXPECT_NE(refusal({{"a", kText, 1ull << 28}}).find("256 MiB"), std::string::npos);
  EXPECT_EQ(refusal({{"a", kText, (1ull << 28) - 1}}), "accepted");
  EXPECT_NE(refusal({{std::string("a\0b", 3), kText, 4}}).find("NUL"), std::string::npos);
  EXPECT_NE(refusal({{"", kText, 4}}).find("empty"), std::string::npos);
}

// ---- which symbols of an image ----------------------------------------------------------------

sfu::tools::ElfSymbol sym(const char *name, uint64_t value, uint64_t size, uint8_t type, uint8_t bind = 1,
                          uint16_t shndx = 1) {
  return sfu::tools::ElfSymbol{name, value, size, type, bind, shndx};
}

std::string listed(const std::vector<SymbolFunction> &fns) {
  std::string out;
  for (const auto &f : fns) {
    char buf[64];
    snprintf(buf, sizeof buf, " %llx+%llx", (unsigned long long)f.start, (unsigned long long)f.size);
    out += f.name + buf + "\n";
  }
  return out;
}

TEST(SymbolsSelect, FunctionsLabelsAliasesAndSizes) {
  using namespace sfu::tools;
  ElfImage img;
  img.sections.resize(3);
  img.sections[1] = {".text", 1, kShtProgbits, kShfAlloc | kShfExecinstr, 0x1000, 0, 0x100, 0};
  img.sections[2] = {".rodata", 2, kShtProgbits, kShfAlloc, 0x2000, 0, 0x100, 0};
  img.symbols = {
      sym("_stext", 0x1000, 0, kSymNotype),      // alias of _start: a label loses to a function
      sym("_start", 0x1000, 0x10, kSymFunc),
      sym("$x", 0x1000, 0, kSymNotype, 0),       // arm64 mapping symbol
      sym(".Lloop", 0x1004, 0, kSymNotype, 0),   // local label
      sym("inside", 0x1008, 0, kSymNotype),      // a label inside _start: left out
      sym("local_fn", 0x1010, 0x10, kSymFunc, 0),
      sym("weak_fn", 0x1010, 0x10, kSymFunc, 2),  // alias: global before weak before local
      sym("glob_fn", 0x1010, 0x10, kSymFunc, 1),
      sym("asm_entry", 0x1020, 0, kSymNotype),   // no size: up to the next symbol
      sym("long_fn", 0x1040, 0x30, kSymFunc),    // its size runs into the next: cut
      sym("next_fn", 0x1060, 0, kSymFunc),       // no size, last: up to the section's end
      sym("_etext", 0x1100, 0, kSymNotype),      // at the end of .text: nothing to name
      sym("table", 0x2000, 0x10, kSymFunc, 1, 2),  // not executable
      sym("abs", 0x1030, 0, kSymNotype, 1, 0xfff1),  // absolute
      sym("undef", 0, 0, kSymFunc, 1, 0),
  };
  img.functions = image_functions(img);
  SymbolRange all;
  std::string error;
  ASSERT_TRUE(symbol_range(img, "all", all, error));
  EXPECT_EQ(listed(select_functions(img, all)),
            "_start 1000+10\nglob_fn 1010+10\nasm_entry 1020+20\nlong_fn 1040+20\nnext_fn 1060+a0\n");
  // The default range is [_stext, _etext) when both are defined, cut to it.
  SymbolRange def;
  ASSERT_TRUE(symbol_range(img, "", def, error));
  EXPECT_EQ(def.label, "[_stext, _etext)");
  ASSERT_TRUE(symbol_range(img, "0x1010,asm_entry", def, error));
  EXPECT_EQ(listed(select_functions(img, def)), "glob_fn 1010+10\n");
  EXPECT_FALSE(symbol_range(img, "0x1010,nowhere", def, error));
  EXPECT_NE(error.find("nowhere"), std::string::npos);
  EXPECT_FALSE(symbol_range(img, "0x1010", def, error));
  EXPECT_FALSE(symbol_range(img, "0x1020,0x1010", def, error));
}

// ---- registration -----------------------------------------------------------------------------

TableSpec module_table(uint8_t abi = SFU_ABI_AMD64_LE) {
  TableSpec t = table_spec(3, abi, {fde_spec(kText, 0x40, {{0, {8}}})});
  t.section_addr = kSec + 0x10000;
  return t;
}

TEST(RegisterModule, SymbolsAndBuildIdInEitherByteOrder) {
  for (uint8_t abi : {SFU_ABI_AMD64_LE, SFU_ABI_S390X_BE}) {
    bool big = abi == SFU_ABI_S390X_BE;
    ModuleExtras x{build_symbols(sample(big)), kSec, note(big, "GNU", 3, kId)};
    Registered reg{module_table(abi), kText, kTextEnd, "m", x};
    ASSERT_EQ(reg.error(), SFU_OK);
    const sfu_module &m = reg.module();
    EXPECT_EQ(m.symbols_error, SFU_OK);
    EXPECT_EQ(m.build_id_error, SFU_OK);
    ASSERT_EQ(m.build_id_size, kId.size());
    EXPECT_TRUE(std::equal(kId.begin(), kId.end(), m.build_id));
    EXPECT_EQ(sfu_module_for_pc(kText), &m);
    EXPECT_EQ(name_at(m.symbols, kText + 0x41), "beta");
  }
}

TEST(RegisterModule, ABadSymbolTableOrBuildIdDoesNotStopTheModule) {
  auto bad_symbols = build_symbols(sample());
  bad_symbols[4] = 9;  // version
  ModuleExtras x{bad_symbols, kSec, note(false, "GNU", 3, {})};
  Registered reg{module_table(), kText, kTextEnd, "m", x};
  ASSERT_EQ(reg.error(), SFU_OK);
  EXPECT_EQ(reg.module().symbols_error, SFU_E_SYMBOLS_BAD_VERSION);
  EXPECT_EQ(reg.module().build_id_error, SFU_E_BAD_BUILD_ID_SIZE);
  EXPECT_EQ(reg.module().build_id, nullptr);
  EXPECT_EQ(sfu_module_for_pc(kText), &reg.module());
  sfu_symbol s;
  EXPECT_EQ(sfu_symbols_find(&reg.module().symbols, kText, &s), SFU_E_NOT_INITIALIZED);
}

TEST(RegisterModule, SymbolsAreCheckedAgainstTheModulesText) {
  ModuleExtras x{build_symbols(sample()), kSec, {}};
  Registered reg{module_table(), kText, kText + 0x80, "m", x};  // char lies past the text
  ASSERT_EQ(reg.error(), SFU_OK);
  EXPECT_EQ(reg.module().symbols_error, SFU_E_SYMBOL_OUTSIDE_TEXT);
  EXPECT_EQ(reg.module().build_id_error, SFU_E_NO_BUILD_ID);
}

TEST(RegisterModule, TheTableDecides) {
  ModuleExtras x{build_symbols(sample()), kSec, note(false, "GNU", 3, kId)};
  TableSpec bad = module_table();
  bad.fdes[0].start = kTextEnd;  // outside the text
  Registered reg{bad, kText, kTextEnd, "m", x};
  EXPECT_EQ(reg.error(), SFU_E_FUNCTION_OUTSIDE_TEXT);
  EXPECT_EQ(sfu_module_for_pc(kText), nullptr);
  EXPECT_EQ(sfu_register_module(nullptr, nullptr), SFU_E_NULL_ARGUMENT);
}

TEST(RegisterModule, TheTableOnlyFormHasNeither) {
  Registered reg{module_table(), kText, kTextEnd, "m"};
  ASSERT_EQ(reg.error(), SFU_OK);
  EXPECT_EQ(reg.module().symbols_error, SFU_E_NO_SYMBOLS);
  EXPECT_EQ(reg.module().build_id_error, SFU_E_NO_BUILD_ID);
  EXPECT_EQ(reg.module().build_id, nullptr);
  EXPECT_EQ(reg.module().build_id_size, 0u);
}

TEST(BuildId, TheGnuNoteAmongOthers) {
  for (bool big : {false, true}) {
    auto bytes = note(big, "stapsdt", 3, {1, 2, 3});  // another owner's type 3
    auto more = note(big, "GNU", 1, {0, 0, 0, 0});     // GNU's ABI tag
    auto id = note(big, "GNU", 3, kId);
    bytes.insert(bytes.end(), more.begin(), more.end());
    size_t at = bytes.size() + 16;
    bytes.insert(bytes.end(), id.begin(), id.end());
    const uint8_t *got;
    uint32_t size;
    ASSERT_EQ(sfu_build_id_from_note(bytes.data(), bytes.size(), big, &got, &size), SFU_OK);
    EXPECT_EQ(got, bytes.data() + at);
    EXPECT_EQ(size, kId.size());
  }
}

}  // namespace
