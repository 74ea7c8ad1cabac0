// Walks over stacks in real memory, read by the walker itself: this binary defines no
// sfu_hook_read_nofault (the unit tests' fake memory does), so the walk's own bounds are all that
// keeps its reads inside the declared stacks, as in a kernel without the hook. Each stack is a
// mapping of whole pages between two inaccessible ones: a read outside the stacks ends the test
// with a fault. Random valid tables of every ABI and version, half of them with a block index
// (whose buckets a step prefetches from the words it scans above SP), stacks full of plausible
// words, start registers mostly near a stack's top; every walk step by step and twice through
// the row cache (the walker's runs of plain steps) must give the same frames (walk_checked).
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "sframe/format.h"
#include "support/random_tables.h"
#include "support/walks.h"

using namespace sfu::test;

namespace {

// Pages [lo, hi) readable and writable, the page below and the page above inaccessible.
class GuardedStack {
 public:
  GuardedStack(size_t pages, uint32_t kind) : page_(size_t(sysconf(_SC_PAGESIZE))), pages_(pages) {
    void *p = mmap(nullptr, (pages + 2) * page_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::runtime_error("mmap");
    base_ = static_cast<uint8_t *>(p);
    if (mprotect(base_ + page_, pages * page_, PROT_READ | PROT_WRITE) != 0) throw std::runtime_error("mprotect");
    stack_ = {uint64_t(uintptr_t(base_ + page_)), uint64_t(uintptr_t(base_ + page_ + pages * page_)), kind};
  }
  ~GuardedStack() { munmap(base_, (pages_ + 2) * page_); }
  GuardedStack(const GuardedStack &) = delete;
  GuardedStack &operator=(const GuardedStack &) = delete;

  const sfu_stack &stack() const { return stack_; }
  void put(uint64_t addr, uint64_t value, bool big) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++) b[big ? 7 - i : i] = uint8_t(value >> (8 * i));
    memcpy(reinterpret_cast<void *>(uintptr_t(addr)), b, 8);
  }

 private:
  size_t page_, pages_;
  uint8_t *base_;
  sfu_stack stack_;
};

// random_tables' plausible word, or (one time in four) an address just below a stack's top, now
// and then misaligned: the slots a run reads last before the inaccessible page above.
uint64_t word_near_tops(Rng &rng, const GenTable &t, const std::vector<sfu_stack> &stacks) {
  if (!rng.one_in(4)) return plausible_word(rng, t, stacks);
  const sfu_stack &s = stacks[rng.below(stacks.size())];
  return (s.hi - rng.below(64)) & ~uint64_t(rng.one_in(8) ? 3 : 7);
}

struct Census {
  int walks = 0, stepped = 0, frames = 0;  // stepped: walks that got past their first frame
};

void walk_direct(uint64_t seed, Census &census) {
  Rng rng(seed);
  GenTable gen = generate(rng);
  if (gen.funcs.empty()) return;
  std::vector<uint8_t> bytes = encode(gen, rng);
  sfu_table_desc d = describe(gen, bytes);
  // Every other table with a block index: a step then scans the stack for buckets to prefetch
  // (CONFIG_SFU_INDEX_PREFETCH), reading it directly too.
  sfu_module_desc md{};
  md.table = d;
  md.name = "direct";
  std::vector<uint64_t> index;
  if (seed % 2) {
    index.resize((sfu_index_size(&d) + 7) / 8);
    md.index = index.data();
    md.index_size = index.size() * 8;
  }
  sfu_module module{};
  ASSERT_EQ(sfu_register_module(&module, &md), SFU_OK) << "seed " << seed;

  std::vector<std::unique_ptr<GuardedStack>> mapped;
  std::vector<sfu_stack> stacks;
  for (int i = 0, n = 1 + int(rng.below(3)); i < n; i++) {
    mapped.push_back(std::make_unique<GuardedStack>(1 + rng.below(2), uint32_t(rng.below(4))));
    stacks.push_back(mapped.back()->stack());
  }
  for (auto &m : mapped)
    for (uint64_t a = m->stack().lo; a + 8 <= m->stack().hi; a += 8) m->put(a, word_near_tops(rng, gen, stacks), gen.big());

  for (int w = 0; w < 8; w++) {
    sfu_regs regs = random_registers(rng, [&] { return word_near_tops(rng, gen, stacks); });
    const GenFunc &f = gen.funcs[rng.below(gen.funcs.size())];
    regs.pc = f.start + rng.below(uint64_t(f.size) + 1);
    const sfu_stack &s = stacks[rng.below(stacks.size())];
    uint8_t sp = sfu::sframe::abi_sp_reg(gen.abi);
    regs.r[sp] = (s.hi - rng.below(std::min<uint64_t>(s.hi - s.lo, 512) + 1)) & ~uint64_t(7);
    regs.valid |= 1u << sp;
    sfu_walk_config config{};
    config.stacks = stacks.data();
    config.num_stacks = uint32_t(stacks.size());
    config.max_frames = 1 + uint32_t(rng.below(64));
    config.abi = gen.abi;
    Walked walked;
    ASSERT_NO_THROW(walked = walk_checked(regs, config)) << "seed " << seed << " walk " << w;
    census.walks++;
    census.frames += int(walked.frames.size());
    census.stepped += walked.frames.size() >= 2;
  }
  sfu_unregister(&module);
}

TEST(WalkDirect, CachedWalksEqualStepByStepAndReadOnlyTheStacks) {
  Census census;
  for (uint64_t seed = 1; seed <= 3000; seed++) walk_direct(seed, census);
  // The garbage must carry walks past their first frame often enough, or this proves little.
  EXPECT_GT(census.stepped, census.walks / 20) << census.walks << " walks, " << census.stepped << " stepped, "
                                               << census.frames << " frames";
}

}  // namespace
