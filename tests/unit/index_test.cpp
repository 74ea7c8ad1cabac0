// The block index (sfu_table_index): a lookup through it gives exactly what the plain binary
// search gives, for every PC of random valid tables, and registration builds it or refuses.
#include <gtest/gtest.h>

#include <vector>

#include "support/error_classes.h"
#include "support/random_tables.h"
#include "support/sframe_builder.h"
#include "sfu/sframe.h"
#include "sfu/unwind.h"

using namespace sfu::test;

namespace {

TEST(Index, SameRowsAsWithoutForEveryPc) {
  int indexed = 0;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    Rng rng(seed);
    GenTable g = generate(rng);
    if (g.funcs.empty()) continue;
    std::vector<uint8_t> sec = encode(g, rng);
    uint64_t lo = g.funcs[0].start, hi = lo;
    for (const GenFunc &f : g.funcs) {
      lo = f.start < lo ? f.start : lo;
      hi = f.start + f.size > hi ? f.start + f.size : hi;
    }
    // Text a little wider than the functions, starting off a block boundary.
    sfu_table_desc d{};
    d.section = sec.data();
    d.size = sec.size();
    d.section_addr = g.sec_addr;
    d.text_start = lo - 1 - rng.below(600);
    d.text_end = hi + 1 + rng.below(600);
    sfu_table plain, fast;
    ASSERT_EQ(sfu_table_init(&plain, &d), SFU_OK) << "seed " << seed;
    ASSERT_EQ(sfu_table_init(&fast, &d), SFU_OK) << "seed " << seed;
    std::vector<uint32_t> mem(sfu_index_size(&d) / 4);
    ASSERT_EQ(sfu_table_index(&fast, mem.data(), mem.size() * 4), SFU_OK) << "seed " << seed;
    EXPECT_EQ(fast.index != nullptr, (g.flags & SFU_F_FDE_SORTED) != 0) << "seed " << seed;
    indexed += fast.index != nullptr;
    // Every PC of a small text, else every PC near a function's edges and a sample between.
    uint64_t span = d.text_end - d.text_start;
    uint64_t step = span > 200000 ? span / 50000 : 1;
    auto check = [&](uint64_t pc) {
      sfu_row a{}, b{};
      sfu_error ea = sfu_table_find(&plain, pc, &a), eb = sfu_table_find(&fast, pc, &b);
      ASSERT_EQ(ea, eb) << "seed " << seed << " pc 0x" << std::hex << pc;
      if (ea == SFU_OK) ASSERT_TRUE(same_row_exactly(a, b)) << "seed " << seed << " pc 0x" << std::hex << pc;
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

// Many functions per block and blocks without a function start: the narrowed search still finds
// the right one.
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
  sfu_table_desc d{};
  d.section = sec.data();
  d.size = sec.size();
  d.section_addr = t.section_addr;
  d.text_start = 0x400000;
  d.text_end = at;
  sfu_table plain, fast;
  ASSERT_EQ(sfu_table_init(&plain, &d), SFU_OK);
  ASSERT_EQ(sfu_table_init(&fast, &d), SFU_OK);
  std::vector<uint32_t> mem(sfu_index_size(&d) / 4);
  ASSERT_EQ(sfu_table_index(&fast, mem.data(), mem.size() * 4), SFU_OK);
  int found = 0;
  for (uint64_t pc = d.text_start; pc < d.text_end; pc++) {
    sfu_row a{}, b{};
    sfu_error ea = sfu_table_find(&plain, pc, &a), eb = sfu_table_find(&fast, pc, &b);
    ASSERT_EQ(ea, eb) << std::hex << pc;
    if (ea == SFU_OK) {
      ASSERT_TRUE(same_row_exactly(a, b)) << std::hex << pc;
      found++;
    }
  }
  EXPECT_GT(found, 100000);
}

TEST(Index, RegistrationBuildsItOrRefusesByName) {
  TableSpec t = sample_table(2, SFU_ABI_AMD64_LE);
  auto sec = build_section(t);
  sfu_module_desc d{};
  d.table.section = sec.data();
  d.table.size = sec.size();
  d.table.section_addr = t.section_addr;
  d.table.text_start = 0x11000;
  d.table.text_end = 0x11100;
  std::vector<uint32_t> mem(sfu_index_size(&d.table) / 4);
  sfu_module m{};
  d.index = mem.data();
  d.index_size = mem.size() * 4 - 1;
  EXPECT_EQ(sfu_register_module(&m, &d), SFU_E_BAD_INDEX_MEMORY);
  EXPECT_EQ(sfu_module_for_pc(0x11000), nullptr);
  d.index_size = mem.size() * 4;
  ASSERT_EQ(sfu_register_module(&m, &d), SFU_OK);
  EXPECT_EQ(m.table.index, mem.data());
  sfu_row row;
  EXPECT_EQ(sfu_table_find(&m.table, 0x11045, &row), SFU_OK);
  EXPECT_EQ(row.func_start, 0x11040u);
  EXPECT_EQ(sfu_unregister(&m), SFU_OK);
}

}  // namespace
