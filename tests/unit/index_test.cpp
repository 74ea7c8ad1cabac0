// The block index (sfu_table_index): a lookup through it gives exactly what the plain binary
// search gives, for every PC of random valid tables; the walk's lookup (find_in_index) answers
// every byte exactly as sfu_table_find does, or sends it to the search exactly where a bucket
// cannot describe its block; walks give the same frames with it and without; registration
// builds it or refuses.
#include <gtest/gtest.h>

#include <stdio.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sframe/index.h"
#include "sframe/rule.h"
#include "sframe/table.h"
#include "support/corpus.h"
#include "support/error_classes.h"
#include "support/fake_machine.h"
#include "support/random_tables.h"
#include "support/sframe_builder.h"
#include "sfu/sframe.h"
#include "sfu/unwind.h"

using namespace sfu::test;
using sfu::sframe::find_in_index;
using sfu::sframe::IndexAnswer;

namespace {

// Index memory as a caller gives it: 8-byte aligned, sfu_index_size bytes.
struct IndexMemory {
  std::vector<uint64_t> words;
  explicit IndexMemory(const sfu_table_desc &d) : words((sfu_index_size(&d) + 7) / 8) {}
  void *data() { return words.data(); }
  size_t size() const { return words.size() * 8; }
};

sfu_table_desc desc_of(const std::vector<uint8_t> &sec, uint64_t sec_addr, uint64_t text_start, uint64_t text_end) {
  sfu_table_desc d{};
  d.section = sec.data();
  d.size = sec.size();
  d.section_addr = sec_addr;
  d.text_start = text_start;
  d.text_end = text_end;
  return d;
}

// [lo, hi): from the first function's start to the last one's end.
std::pair<uint64_t, uint64_t> span_of(const GenTable &g) {
  uint64_t lo = g.funcs[0].start, hi = lo;
  for (const GenFunc &f : g.funcs) {
    lo = std::min(lo, f.start);
    hi = std::max(hi, f.start + f.size);
  }
  return {lo, hi};
}

TEST(Index, SameRowsAsWithoutForEveryPc) {
  int indexed = 0;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    Rng rng(seed);
    GenTable g = generate(rng);
    if (g.funcs.empty()) continue;
    std::vector<uint8_t> sec = encode(g, rng);
    auto [lo, hi] = span_of(g);
    // Text a little wider than the functions, starting off a block boundary.
    sfu_table_desc d = desc_of(sec, g.sec_addr, lo - 1 - rng.below(600), hi + 1 + rng.below(600));
    sfu_table plain, fast;
    ASSERT_EQ(sfu_table_init(&plain, &d), SFU_OK) << "seed " << seed;
    ASSERT_EQ(sfu_table_init(&fast, &d), SFU_OK) << "seed " << seed;
    IndexMemory mem(d);
    ASSERT_EQ(sfu_table_index(&fast, mem.data(), mem.size()), SFU_OK) << "seed " << seed;
    EXPECT_EQ(fast.index != nullptr, (g.flags & SFU_F_FDE_SORTED) != 0) << "seed " << seed;
    indexed += fast.index != nullptr;
    // Every PC of a small text, else every PC near a function's edges and a sample between.
    uint64_t span = d.text_end - d.text_start;
    uint64_t step = span > 200000 ? span / 50000 : 1;
    auto check = [&](uint64_t pc) {
      sfu_row a{}, b{};
      sfu_error ea = sfu_table_find(&plain, pc, &a), eb = sfu_table_find(&fast, pc, &b);
      ASSERT_EQ(ea, eb) << "seed " << seed << " pc 0x" << std::hex << pc;
      if (ea == SFU_OK) {
        ASSERT_TRUE(same_row_exactly(a, b)) << "seed " << seed << " pc 0x" << std::hex << pc;
      }
    };
    for (uint64_t pc = d.text_start; pc < d.text_end; pc += step) check(pc);
    for (const GenFunc &f : g.funcs)
      for (int64_t delta = -2; delta <= 2; delta++) {
        check(f.start + uint64_t(delta));
        check(f.start + f.size + uint64_t(delta));
      }
  }
  EXPECT_GT(indexed, 100);
}

// ---- find_in_index against sfu_table_find, every byte ----------------------------------------

using Packed = std::array<uint64_t, 3>;  // a row as the palette keeps it
Packed packed(const sfu_row &r) {
  return {sfu::sframe::pack_rule(r.cfa, r.flags), sfu::sframe::pack_rule(r.ra, 0), sfu::sframe::pack_rule(r.fp, 0)};
}

// How often each answer, and each reason a block is searched, came up: a path that silently
// stops working shows as a zero.
struct Coverage {
  uint64_t rows = 0, no_rows = 0, searches = 0;
  int described = 0;          // blocks answered from their bucket
  int only_overflow = 0;      // searched: more than 29 changes, nothing else
  int only_palette = 0;       // searched: a row the full palette lacks, nothing else
  int only_repeating = 0;     // searched: a repeating-block function, nothing else
  int not_validated = 0;      // searched: the table was only opened
  int palettes_full = 0;      // tables with more than 255 distinct rows
};

// Checks every byte of [d.text_start, d.text_end) of a sorted table through an index built on
// the table validated, or only opened. The expectation is worked out here, from sfu_table_find
// alone: a block is described iff the table was validated, no repeating-block function touches
// it, its row changes at most 29 times, and each of its rows is among the first 255 distinct
// rows in address order (the palette, filled as the build meets them).
void check_every_byte(const GenTable &g, const sfu_table_desc &d, bool validated, Coverage &cov,
                      const std::string &where) {
  sfu_table plain, fast;
  ASSERT_EQ(sfu_table_init(&plain, &d), SFU_OK) << where;
  ASSERT_EQ(validated ? sfu_table_init(&fast, &d) : sfu_table_open(&fast, &d), SFU_OK) << where;
  IndexMemory mem(d);
  ASSERT_EQ(sfu_table_index(&fast, mem.data(), mem.size()), SFU_OK) << where;
  ASSERT_NE(fast.index, nullptr) << where;
  const uint64_t text = d.text_end - d.text_start;
  const uint64_t blocks = (text + SFU_INDEX_BLOCK - 1) / SFU_INDEX_BLOCK;
  ASSERT_EQ(fast.index_entries, blocks + 1) << where;
  // The buckets are cache lines inside the memory, the palette and the hash before them.
  auto *lo = static_cast<const uint8_t *>(mem.data());
  EXPECT_EQ(uintptr_t(fast.index) % 64, 0u) << where;
  EXPECT_GE(fast.index - sfu::sframe::kPaletteBytes - sfu::sframe::kHashSlots, lo) << where;
  EXPECT_LE(fast.index + (blocks + 1) * SFU_INDEX_BUCKET, lo + mem.size()) << where;

  // Each byte's row (packed), or none.
  std::vector<std::optional<Packed>> state(blocks * SFU_INDEX_BLOCK);
  std::vector<sfu_row> rows(text);
  for (uint64_t i = 0; i < text; i++) {
    sfu_error e = sfu_table_find(&plain, d.text_start + i, &rows[i]);
    ASSERT_TRUE(e == SFU_OK || e == SFU_E_NO_FUNCTION || e == SFU_E_NO_ROW) << where << ": " << sfu_error_name(e);
    if (e == SFU_OK) state[i] = packed(rows[i]);
    // The search through the index's first_fde finds the same.
    sfu_row viaindex{};
    ASSERT_EQ(sfu_table_find(&fast, d.text_start + i, &viaindex), e) << where << " pc +" << i;
    if (e == SFU_OK) {
      ASSERT_TRUE(same_row_exactly(rows[i], viaindex)) << where << " pc +" << i;
    }
  }
  // The palette, as the build fills it: rows of described functions in address order.
  std::map<Packed, int> palette;
  int distinct = 0;
  {
    std::map<Packed, int> all;
    for (const GenFunc &f : g.funcs) {
      if (f.size == 0 || f.pcmask) continue;
      for (const GenRow &r : f.rows) {
        if (r.start >= f.size) continue;
        const std::optional<Packed> &p = state[f.start + r.start - d.text_start];
        ASSERT_TRUE(p.has_value()) << where;
        if (!all.count(*p)) all[*p] = distinct++;
        if (!palette.count(*p) && palette.size() < 255) palette[*p] = int(palette.size());
      }
    }
  }
  cov.palettes_full += distinct > 255;
  for (uint64_t b = 0; b < blocks; b++) {
    const uint64_t first = b * SFU_INDEX_BLOCK, last = first + SFU_INDEX_BLOCK;
    int changes = 0;
    bool in_palette = true, repeating = false;
    for (uint64_t i = first; i < last; i++) {
      if (i > first && state[i] != state[i - 1]) changes++;
      if (state[i] && !palette.count(*state[i])) in_palette = false;
    }
    for (const GenFunc &f : g.funcs)
      repeating |= f.pcmask && f.size && f.start < d.text_start + last && f.start + f.size > d.text_start + first;
    const bool described = validated && !repeating && changes <= 29 && in_palette;
    cov.described += described;
    if (!validated) cov.not_validated++;
    else if (!repeating && in_palette && changes > 29) cov.only_overflow++;
    else if (!repeating && !in_palette && changes <= 29) cov.only_palette++;
    else if (repeating && in_palette && changes <= 29) cov.only_repeating++;
    for (uint64_t i = first; i < last && i < text; i++) {
      sfu_row got;
      got.func_start = 0x5a5a;  // must be left alone
      IndexAnswer a = find_in_index(fast, d.text_start + i, got);
      std::string at = where + " block " + std::to_string(b) + " byte " + std::to_string(i - first);
      if (!described) {
        ASSERT_EQ(int(a), int(IndexAnswer::kSearch)) << at;
        cov.searches++;
      } else if (!state[i]) {
        ASSERT_EQ(int(a), int(IndexAnswer::kNoRow)) << at;
        cov.no_rows++;
      } else {
        ASSERT_EQ(int(a), int(IndexAnswer::kRow)) << at;
        // Exactly the rules and flags of sfu_table_find's row, so the same in meaning too.
        ASSERT_TRUE(packed(got) == *state[i]) << at;
        ASSERT_TRUE(sfu::sframe::same_rules(got, rows[i])) << at;
        ASSERT_EQ(got.flags, rows[i].flags) << at;
        ASSERT_EQ(got.func_start, 0x5a5au) << at;
        cov.rows++;
      }
    }
  }
}

// Random tables of one shape, every byte checked, each validated and only opened.
Coverage check_shape(const GenShape &shape, uint64_t first_seed, int tables) {
  Coverage cov;
  for (uint64_t seed = first_seed; seed < first_seed + uint64_t(tables); seed++) {
    Rng rng(seed);
    GenTable g = generate(rng, shape);
    if (g.funcs.empty()) continue;
    g.flags |= SFU_F_FDE_SORTED;  // starts rise in every generated table: sorted is true
    std::vector<uint8_t> sec = encode(g, rng);
    auto [lo, hi] = span_of(g);
    uint64_t text_start = lo - rng.below(300), text_end = hi + rng.below(300) + 1;
    if (rng.one_in(4)) text_end = hi;  // functions up to the very end of the text
    if (rng.one_in(4)) text_start = lo & ~uint64_t(SFU_INDEX_BLOCK - 1);
    sfu_table_desc d = desc_of(sec, g.sec_addr, text_start, text_end);
    std::string where = "seed " + std::to_string(seed) + " version " + std::to_string(g.version) + " abi " +
                        std::to_string(g.abi);
    check_every_byte(g, d, true, cov, where);
    if (seed % 4 == 0) check_every_byte(g, d, false, cov, where + " (only opened)");
    if (testing::Test::HasFatalFailure()) break;
  }
  std::printf("index: %llu rows, %llu no-rows, %llu searched; blocks: %d described, searched for %d overflows, "
              "%d full palettes, %d repeating blocks, %d only opened; %d tables of over 255 rows\n",
              (unsigned long long)cov.rows, (unsigned long long)cov.no_rows, (unsigned long long)cov.searches,
              cov.described, cov.only_overflow, cov.only_palette, cov.only_repeating, cov.not_validated,
              cov.palettes_full);
  return cov;
}

TEST(Index, TheWalksLookupAnswersEveryByteAsTheSearchDoes) {
  GenShape small;  // generate()'s own: a few functions, a few rows
  small.huge_functions = false;
  Coverage c = check_shape(small, 1, 300);
  EXPECT_GT(c.rows, 10000u);
  EXPECT_GT(c.no_rows, 1000u);
  EXPECT_GT(c.described, 300);
  EXPECT_GT(c.only_repeating, 10);
  EXPECT_GT(c.not_validated, 10);
}

TEST(Index, DenseBlocksOverflowAndFullPalettesSearch) {
  GenShape dense;  // tiny functions full of rows: blocks of more than 29 changes
  dense.max_funcs = 200;
  dense.max_rows = 8;
  dense.max_size = 40;
  dense.max_gap = 8;
  dense.huge_functions = false;
  dense.pcmask_one_in = 0;  // a reason of its own, tested above
  Coverage c = check_shape(dense, 1000, 60);
  EXPECT_GT(c.only_overflow, 100);
  EXPECT_GT(c.described, 20);
  EXPECT_GT(c.rows, 1000u);
  GenShape many;  // many functions of a few distinct rows each: over 255 distinct rows
  many.max_funcs = 300;
  many.max_rows = 3;
  many.max_size = 200;
  many.max_gap = 40;
  many.huge_functions = false;
  many.pcmask_one_in = 0;
  c = check_shape(many, 2000, 40);
  EXPECT_GT(c.palettes_full, 5);
  EXPECT_GT(c.only_palette, 100);
  EXPECT_GT(c.described, 100);
}

// The bucket's limit, exactly: 29 changes fit, 30 do not, and a change undone at its own place
// (a function ending where the next begins with the same row) is not counted.
TEST(Index, TwentyNineChangesFitAndThirtyDoNot) {
  auto rows_to = [](uint32_t last) {
    std::vector<FreSpec> r;
    for (uint32_t o = 0; o <= last; o++) r.push_back(FreSpec{o, {o % 2 ? 16 : 8}});
    return r;
  };
  constexpr uint64_t kText = 0x400000;
  TableSpec t = table_spec(3, SFU_ABI_AMD64_LE, {});
  t.fdes.push_back(fde_spec(kText, 256, rows_to(29)));           // block 0: 29 changes
  t.fdes.push_back(fde_spec(kText + 256, 256, rows_to(30)));     // block 1: 30
  t.fdes.push_back(fde_spec(kText + 512, 100, rows_to(29)));     // block 2: 29, the last row {16}
  t.fdes.push_back(fde_spec(kText + 612, 156, {FreSpec{0, {16}}}));  // ... and on at 100
  std::vector<uint8_t> sec = build_section(t);
  sfu_table_desc d = desc_of(sec, t.section_addr, kText, kText + 768);
  sfu_table fast;
  ASSERT_EQ(sfu_table_init(&fast, &d), SFU_OK);
  IndexMemory mem(d);
  ASSERT_EQ(sfu_table_index(&fast, mem.data(), mem.size()), SFU_OK);
  for (uint64_t pc = kText; pc < kText + 768; pc++) {
    sfu_row want, got;
    ASSERT_EQ(sfu_table_find(&fast, pc, &want), SFU_OK);
    IndexAnswer a = find_in_index(fast, pc, got);
    uint64_t block = (pc - kText) / 256;
    if (block == 1) {
      EXPECT_EQ(int(a), int(IndexAnswer::kSearch)) << std::hex << pc;
    } else {
      ASSERT_EQ(int(a), int(IndexAnswer::kRow)) << std::hex << pc;
      EXPECT_TRUE(sfu::sframe::same_rules(got, want)) << std::hex << pc;
    }
  }
  EXPECT_EQ(fast.index[0 * 64 + sfu::sframe::kCountAt], 29);
  EXPECT_EQ(fast.index[2 * 64 + sfu::sframe::kCountAt], 29);
}

// Many functions per block and blocks without a function start: the narrowed search still finds
// the right one, and the two rows of the table are described wherever a block has room.
TEST(Index, DenseAndSparseBlocks) {
  TableSpec t = table_spec(3, SFU_ABI_AMD64_LE, {});
  uint64_t at = 0x400000;
  for (int i = 0; i < 600; i++) {
    uint32_t size = i % 3 == 0 ? 1 : i % 3 == 1 ? 7 : 1000;  // 1-byte functions to 4 blocks
    t.fdes.push_back(fde_spec(at, size, {FreSpec{0, {8}}, FreSpec{size > 2 ? 1u : 0u, {16}}}));
    at += size + (i % 5 == 0 ? 300 : 0);  // gaps, some longer than a block
  }
  for (auto &f : t.fdes)
    if (f.fres[1].start == 0) f.fres.pop_back();
  auto sec = build_section(t);
  sfu_table_desc d = desc_of(sec, t.section_addr, 0x400000, at);
  sfu_table plain, fast;
  ASSERT_EQ(sfu_table_init(&plain, &d), SFU_OK);
  ASSERT_EQ(sfu_table_init(&fast, &d), SFU_OK);
  IndexMemory mem(d);
  ASSERT_EQ(sfu_table_index(&fast, mem.data(), mem.size()), SFU_OK);
  int found = 0, from_index = 0;
  for (uint64_t pc = d.text_start; pc < d.text_end; pc++) {
    sfu_row a{}, b{}, c{};
    sfu_error ea = sfu_table_find(&plain, pc, &a), eb = sfu_table_find(&fast, pc, &b);
    ASSERT_EQ(ea, eb) << std::hex << pc;
    IndexAnswer ia = find_in_index(fast, pc, c);
    if (ea == SFU_OK) {
      ASSERT_TRUE(same_row_exactly(a, b)) << std::hex << pc;
      found++;
      ASSERT_NE(int(ia), int(IndexAnswer::kNoRow)) << std::hex << pc;
      if (ia == IndexAnswer::kRow) {
        ASSERT_TRUE(sfu::sframe::same_rules(a, c)) << std::hex << pc;
        from_index++;
      }
    } else {
      ASSERT_NE(int(ia), int(IndexAnswer::kRow)) << std::hex << pc;
    }
  }
  EXPECT_GT(found, 100000);
  EXPECT_GT(from_index, found * 9 / 10);
}

// Real tables (the conformance corpus: gas 2.40 to 2.46, V1 to V3, x86_64, arm64, s390x), their
// text the span of their functions: every byte answered by the bucket as sfu_table_find answers
// it, or searched.
TEST(Index, CorpusTablesEveryByte) {
  int tables = 0;
  uint64_t from_bucket = 0, searched = 0;
  for (const std::string &name : corpus_case_names()) {
    CorpusCase c = load_corpus_case(name);
    if (c.section.empty()) continue;
    sfu_table t;
    sfu_table_desc d = desc_of(c.section, c.section_base, 0, 0);
    ASSERT_EQ(sfu_table_init(&t, &d), SFU_OK) << name;
    if (t.num_fdes == 0 || !(t.flags & SFU_F_FDE_SORTED)) continue;
    uint64_t lo = ~0ull, hi = 0;
    for (uint32_t i = 0; i < t.num_fdes; i++) {
      sfu::sframe::Fde f;
      ASSERT_EQ(sfu::sframe::read_fde(t, i, f), SFU_OK) << name;
      lo = std::min(lo, f.start);
      hi = std::max(hi, f.start + f.size);
    }
    if (hi <= lo) continue;
    d.text_start = lo;
    d.text_end = hi;
    ASSERT_EQ(sfu_table_init(&t, &d), SFU_OK) << name;
    IndexMemory mem(d);
    ASSERT_EQ(sfu_table_index(&t, mem.data(), mem.size()), SFU_OK) << name;
    tables++;
    for (uint64_t pc = lo; pc < hi; pc++) {
      sfu_row want, got;
      sfu_error e = sfu_table_find(&t, pc, &want);
      ASSERT_TRUE(e == SFU_OK || e == SFU_E_NO_FUNCTION || e == SFU_E_NO_ROW) << name << ": " << sfu_error_name(e);
      IndexAnswer a = find_in_index(t, pc, got);
      if (a == IndexAnswer::kSearch) {
        searched++;
        continue;
      }
      from_bucket++;
      ASSERT_EQ(a == IndexAnswer::kRow, e == SFU_OK) << name << " pc 0x" << std::hex << pc;
      if (e == SFU_OK) {
        ASSERT_TRUE(packed(got) == packed(want)) << name << " pc 0x" << std::hex << pc;
      }
    }
  }
  // The searched bytes are the blocks of the cases whose .plt (a repeating block) shares a block
  // with code.
  EXPECT_GT(tables, 60);
  EXPECT_GT(from_bucket, 4000u);
  EXPECT_GT(from_bucket, 3 * searched);
  EXPECT_GT(searched, 0u);
}

// ---- Walks ------------------------------------------------------------------------------------

void expect_same_frames(const Walked &a, const Walked &b, const std::string &where) {
  ASSERT_EQ(a.frames.size(), b.frames.size()) << where;
  EXPECT_EQ(a.stop, b.stop) << where;
  for (size_t i = 0; i < a.frames.size(); i++) {
    const sfu_frame &x = a.frames[i], &y = b.frames[i];
    EXPECT_TRUE(x.pc == y.pc && x.sp == y.sp && x.cfa == y.cfa && x.module == y.module && x.source == y.source &&
                x.reliable == y.reliable && x.stack_kind == y.stack_kind && x.index == y.index)
        << where << " frame " << i;
  }
}

// Random tables (every ABI and version, dense ones too) and stacks of plausible garbage: the same
// walks with the module registered without an index and with one give the same frames and stops.
TEST(Index, WalksGiveTheSameFramesWithAndWithout) {
  int walks = 0, stepped = 0, from_index = 0, no_row = 0;
  for (uint64_t seed = 1; seed <= 1500; seed++) {
    Rng rng(seed);
    GenShape shape;
    if (seed % 2) {
      shape.max_funcs = 60;
      shape.max_rows = 8;
      shape.max_size = 100;
      shape.max_gap = 16;
    }
    GenTable gen = generate(rng, shape);
    if (gen.funcs.empty()) continue;
    gen.flags |= SFU_F_FDE_SORTED;
    std::vector<uint8_t> bytes = encode(gen, rng);
    auto [lo, hi] = span_of(gen);
    sfu_module_desc md{};
    md.table = desc_of(bytes, gen.sec_addr, lo, hi + 1);
    md.name = "indexed";

    FakeMemory mem(gen.big());
    uint64_t base = 0x10000 + rng.below(0x100) * 0x1000;
    for (int i = 0, n = 1 + int(rng.below(2)); i < n; i++) {
      uint64_t size = 0x200 + rng.below(0x40) * 0x40;
      mem.add_stack(base, base + size, uint32_t(rng.below(4)));
      base += size;
    }
    for (const sfu_stack &s : mem.stacks())
      for (uint64_t a = s.lo; a + 8 <= s.hi; a += 8) mem.put(a, plausible_word(rng, gen, mem.stacks()));
    std::vector<sfu_regs> starts;
    for (int w = 0; w < 32; w++) {
      sfu_regs regs = random_registers(rng, [&] { return plausible_word(rng, gen, mem.stacks()); });
      const GenFunc &f = gen.funcs[rng.below(gen.funcs.size())];
      regs.pc = f.start + rng.below(uint64_t(f.size) + 1);
      const sfu_stack &s = mem.stacks()[rng.below(mem.stacks().size())];
      uint8_t sp = sfu::sframe::abi_sp_reg(gen.abi);
      regs.r[sp] = (s.lo + rng.below(s.hi - s.lo)) & ~uint64_t(7);
      regs.valid |= 1u << sp;
      starts.push_back(regs);
    }
    std::vector<Walked> without, with;
    sfu_module plain{}, fast{};
    ASSERT_EQ(sfu_register_module(&plain, &md), SFU_OK) << "seed " << seed;
    for (const sfu_regs &r : starts) without.push_back(walk(r, mem.config(gen.abi, 64)));
    ASSERT_EQ(sfu_unregister(&plain), SFU_OK);
    IndexMemory index(md.table);
    md.index = index.data();
    md.index_size = index.size();
    ASSERT_EQ(sfu_register_module(&fast, &md), SFU_OK) << "seed " << seed;
    ASSERT_NE(fast.table.index, nullptr);
    for (const sfu_regs &r : starts) with.push_back(walk(r, mem.config(gen.abi, 64)));
    ASSERT_EQ(sfu_unregister(&fast), SFU_OK);
    for (size_t w = 0; w < starts.size(); w++) {
      // The module pointers differ by construction; everything else must not.
      for (sfu_frame &f : with[w].frames)
        if (f.module == &fast) f.module = &plain;
      expect_same_frames(without[w], with[w], "seed " + std::to_string(seed) + " walk " + std::to_string(w));
      walks++;
      stepped += with[w].frames.size() >= 2;
      // Each step from a frame in the module: how many the index answered itself.
      for (size_t i = 0; i + 1 < with[w].frames.size(); i++) {
        sfu_row r;
        uint64_t pc = sfu_frame_lookup_pc(&with[w].frames[i]);
        if (pc < lo || pc > hi) continue;
        IndexAnswer a = find_in_index(fast.table, pc, r);
        from_index += a == IndexAnswer::kRow;
        no_row += a == IndexAnswer::kNoRow;
      }
    }
    EXPECT_TRUE(mem.stray_reads().empty()) << "seed " << seed;
    if (HasFailure()) break;
  }
  std::printf("index: %d walks (%d past their first frame), steps the index answered: %d with a row, %d without\n",
              walks, stepped, from_index, no_row);
  EXPECT_GT(walks, 30000);
  EXPECT_GT(stepped, walks / 20);
  EXPECT_GT(from_index, 2000);
  EXPECT_GT(no_row, 200);
}

// ---- Memory and registration ------------------------------------------------------------------

TEST(Index, SizeIsTheTextsAloneAndAConstantExpression) {
  for (uint64_t text : {1ull, 255ull, 256ull, 257ull, 4096ull, 16ull << 20, 12345677ull}) {
    sfu_table_desc d{};
    d.text_start = 0xffffffff80000000ull + 13;
    d.text_end = d.text_start + text;
    uint64_t blocks = (text + 255) / 256;
    EXPECT_EQ(sfu_index_size(&d), (blocks + 1) * 64 + SFU_INDEX_FIXED) << text;
    EXPECT_EQ(sfu_index_size(&d), SFU_INDEX_BYTES(text)) << text;
  }
  static_assert(SFU_INDEX_BYTES(16u << 20) == (65536 + 1) * 64 + 6720, "a static reservation's size");
  // An index of 4 GiB or more is not built.
  sfu_table_desc huge{};
  huge.text_start = 0x1000;
  huge.text_end = huge.text_start + (16ull << 30);
  EXPECT_EQ(sfu_index_size(&huge), 0u);
  huge.text_end = huge.text_start + (15ull << 30);
  EXPECT_EQ(sfu_index_size(&huge), SFU_INDEX_BYTES(15ull << 30));
}

TEST(Index, RegistrationBuildsItOrRefusesByName) {
  TableSpec t = sample_table(2, SFU_ABI_AMD64_LE);
  auto sec = build_section(t);
  sfu_module_desc d{};
  d.table = desc_of(sec, t.section_addr, 0x11000, 0x11100);
  IndexMemory mem(d.table);
  sfu_module m{};
  d.index = mem.data();
  d.index_size = sfu_index_size(&d.table) - 1;
  EXPECT_EQ(sfu_register_module(&m, &d), SFU_E_BAD_INDEX_MEMORY);
  EXPECT_EQ(sfu_module_for_pc(0x11000), nullptr);
  d.index_size = sfu_index_size(&d.table);
  ASSERT_EQ(sfu_register_module(&m, &d), SFU_OK);
  ASSERT_NE(m.table.index, nullptr);
  sfu_row row;
  EXPECT_EQ(sfu_table_find(&m.table, 0x11045, &row), SFU_OK);
  EXPECT_EQ(row.func_start, 0x11040u);
  EXPECT_EQ(int(find_in_index(m.table, 0x11045, row)), int(IndexAnswer::kRow));
  EXPECT_EQ(row.cfa.offset, 32);
  EXPECT_EQ(sfu_unregister(&m), SFU_OK);
}

}  // namespace
