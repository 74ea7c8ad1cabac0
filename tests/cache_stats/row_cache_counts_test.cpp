// The core built with tests/cache_stats/stats.config (CONFIG_SFU_ROW_CACHE_STATS=y): the hits and
// misses sfu_row_cache_counts reports are exactly the steps the row cache served and the steps
// that searched the table, whether a walk steps one frame at a time or runs (sfu_backtrace).
#include <gtest/gtest.h>

#include <string.h>

#include <vector>

#include "support/fake_machine.h"
#include "support/sframe_builder.h"
#include "unwind/row_cache.h"

using namespace sfu::test;

namespace {

constexpr uint64_t kText = 0x500000, kF = kText, kG = kText + 0x100, kOuter = kText + 0x200;
constexpr uint64_t kSp = 0x7f00;

// f and g: CFA = rsp + 16, RA at CFA - 8 (plain rows); outer: an outermost row.
TableSpec chain_table() {
  return table_spec(3, SFU_ABI_AMD64_LE,
                    {fde_spec(kF, 0x100, {{0, {16}}}), fde_spec(kG, 0x100, {{0, {16}}}), fde_spec(kOuter, 0x100, {{0, {}}})});
}

// f at kF + 0x10 called from g, g called from outer: three lookups a walk (f's PC, then each
// return address less 1), the last one's row ending the walk.
void put_chain(FakeMemory &m) {
  m.add_stack(0x7000, 0x8000);
  m.put(kSp + 8, kG + 0x20);
  m.put(kSp + 24, kOuter + 0x30);
}

// FP known (the rows leave it unchanged): the walk may take plain rows in runs.
sfu_regs start() { return regs_with(kF + 0x10, {{SFU_X86_64_RSP, kSp}, {SFU_X86_64_RBP, 0x1234}}); }

struct Counts {
  uint64_t hits, misses;
};

Counts counts() {
  Counts c{};
  EXPECT_EQ(sfu_row_cache_counts(&c.hits, &c.misses), 1);
  return c;
}

// What one walk added.
template <class F>
Counts during(F &&walk) {
  Counts before = counts();
  walk();
  Counts after = counts();
  return {after.hits - before.hits, after.misses - before.misses};
}

void empty_cache() { memset(static_cast<void *>(sfu::unwind::g_row_cache), 0, sizeof sfu::unwind::g_row_cache); }

std::vector<uint64_t> backtrace(const sfu_walk_config &cfg) {
  sfu_regs regs = start();
  uint64_t pcs[8];
  sfu_stop why;
  size_t n = sfu_backtrace(&regs, &cfg, pcs, 8, &why);
  EXPECT_EQ(why, SFU_STOP_END);
  return std::vector<uint64_t>(pcs, pcs + n);
}

const std::vector<uint64_t> kPcs = {kF + 0x10, kG + 0x20, kOuter + 0x30};

TEST(RowCacheCounts, AColdWalkMissesEveryLookupAWarmOneHitsEvery) {
  Registered chain(chain_table(), kText, kText + 0x300, "chain");
  ASSERT_EQ(chain.error(), SFU_OK);
  FakeMemory mem(false);
  put_chain(mem);
  const sfu_walk_config cfg = mem.config(SFU_ABI_AMD64_LE);
  empty_cache();
  Counts cold = during([&] { EXPECT_EQ(backtrace(cfg), kPcs); });
  EXPECT_EQ(cold.hits, 0u);
  EXPECT_EQ(cold.misses, 3u);
  // The runs of plain steps take f's and g's rows; outer's, not plain, goes to the step.
  Counts warm = during([&] { EXPECT_EQ(backtrace(cfg), kPcs); });
  EXPECT_EQ(warm.hits, 3u);
  EXPECT_EQ(warm.misses, 0u);
}

TEST(RowCacheCounts, AWalkOneFrameAtATimeCountsAsARunDoes) {
  Registered chain(chain_table(), kText, kText + 0x300, "chain");
  FakeMemory mem(false);
  put_chain(mem);
  const sfu_walk_config cfg = mem.config(SFU_ABI_AMD64_LE);
  empty_cache();
  Counts cold = during([&] { EXPECT_EQ(walk(start(), cfg).pcs(), kPcs); });
  EXPECT_EQ(cold.hits, 0u);
  EXPECT_EQ(cold.misses, 3u);
  Counts warm = during([&] { EXPECT_EQ(walk(start(), cfg).pcs(), kPcs); });
  EXPECT_EQ(warm.hits, 3u);
  EXPECT_EQ(warm.misses, 0u);
  // With the cache emptied before every step, every lookup misses again.
  Counts uncached = during([&] { EXPECT_EQ(walk_uncached(start(), cfg).pcs(), kPcs); });
  EXPECT_EQ(uncached.hits, 0u);
  EXPECT_EQ(uncached.misses, 3u);
}

TEST(RowCacheCounts, AStepThatStopsAfterItsRowWasFoundCountsIt) {
  // g's return address overwritten with 0 (g's frame far from the stack's top): the walk stops at
  // g's step, which found g's row as f's step found f's.
  Registered chain(chain_table(), kText, kText + 0x300, "chain");
  FakeMemory mem(false);
  mem.add_stack(0x7000, 0x8000);
  mem.put(kSp + 8, kG + 0x20);
  mem.put(kSp + 24, 0);
  const sfu_walk_config cfg = mem.config(SFU_ABI_AMD64_LE);
  empty_cache();
  auto walk_once = [&] {
    sfu_regs regs = start();
    uint64_t pcs[8];
    sfu_stop why;
    EXPECT_EQ(sfu_backtrace(&regs, &cfg, pcs, 8, &why), 2u);
    EXPECT_EQ(why, SFU_STOP_ZERO_RETURN_ADDRESS);
  };
  Counts cold = during(walk_once);
  EXPECT_EQ(cold.hits, 0u);
  EXPECT_EQ(cold.misses, 2u);
  Counts warm = during(walk_once);  // both steps in the run of plain steps
  EXPECT_EQ(warm.hits, 2u);
  EXPECT_EQ(warm.misses, 0u);
}

TEST(RowCacheCounts, APcInNoModuleIsNoLookup) {
  // f's frame outside every registered text: the walk shows it and stops, looking nothing up.
  FakeMemory mem(false);
  put_chain(mem);
  const sfu_walk_config cfg = mem.config(SFU_ABI_AMD64_LE);
  Counts none = during([&] { EXPECT_EQ(walk(start(), cfg).pcs(), std::vector<uint64_t>{kF + 0x10}); });
  EXPECT_EQ(none.hits, 0u);
  EXPECT_EQ(none.misses, 0u);
}

}  // namespace
