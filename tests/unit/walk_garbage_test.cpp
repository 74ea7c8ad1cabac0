// Garbage in, a named stop out: random valid tables for every ABI and version, stacks full of
// random words (some of them plausible return addresses and stack pointers), random start
// registers. Every walk must end within its frame cap with a named reason, and the fake memory
// behind the no-fault hook proves no read left the declared stacks.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "sframe/format.h"
#include "support/fake_machine.h"
#include "support/random_tables.h"

using namespace sfu::test;

namespace {

struct Census {
  std::map<std::string, int> stops;
  int walks = 0, frames = 0, stepped = 0;  // stepped: walks that got past their first frame
};

void walk_garbage(uint64_t seed, Census &census) {
  Rng rng(seed);
  GenTable gen = generate(rng);
  if (gen.funcs.empty()) return;
  std::vector<uint8_t> bytes = encode(gen, rng);
  sfu_table_desc d = describe(gen, bytes);
  sfu_module module{};
  ASSERT_EQ(sfu_register(&module, &d, "garbage"), SFU_OK) << "seed " << seed;

  FakeMemory mem(gen.big());
  uint64_t base = 0x10000 + rng.below(0x100) * 0x1000;
  int nstacks = 1 + int(rng.below(3));
  for (int i = 0; i < nstacks; i++) {
    uint64_t size = 0x100 + rng.below(0x40) * 0x40;
    mem.add_stack(base, base + size, uint32_t(rng.below(4)));
    base += size + rng.below(2) * 0x1000;  // adjacent or apart
  }
  for (const sfu_stack &s : mem.stacks())
    for (uint64_t a = s.lo; a + 8 <= s.hi; a += 8) mem.put(a, plausible_word(rng, gen, mem.stacks()));

  for (int w = 0; w < 8; w++) {
    sfu_regs regs = random_registers(rng, [&] { return plausible_word(rng, gen, mem.stacks()); });
    // Mostly a start a kernel would give: a PC in a function, an SP on a stack.
    const GenFunc &f = gen.funcs[rng.below(gen.funcs.size())];
    regs.pc = rng.one_in(8) ? rng.next() : f.start + rng.below(uint64_t(f.size) + 1);
    uint8_t sp = sfu::sframe::abi_sp_reg(gen.abi);
    if (!rng.one_in(16)) {
      const sfu_stack &s = mem.stacks()[rng.below(mem.stacks().size())];
      regs.r[sp] = (s.lo + rng.below(s.hi - s.lo)) & ~uint64_t(7);
      regs.valid |= 1u << sp;
    }
    uint32_t cap = 1 + uint32_t(rng.below(64));
    Walked walked = walk_checked(regs, mem.config(gen.abi, cap));
    census.walks++;
    census.frames += int(walked.frames.size());
    census.stepped += walked.frames.size() >= 2;
    census.stops[sfu_stop_name(walked.stop)]++;
    std::string where = "seed " + std::to_string(seed) + " walk " + std::to_string(w);
    EXPECT_LE(walked.frames.size(), cap) << where;
    EXPECT_NE(walked.stop, SFU_STOP_NONE) << where;
    EXPECT_LT(int(walked.stop), int(SFU_STOP_COUNT)) << where;
    if (walked.frames.size() == cap) {
      EXPECT_EQ(walked.stop, SFU_STOP_FRAME_CAP) << where;
    }
    for (size_t i = 1; i < walked.frames.size(); i++) {
      // Every frame after the first came from a step that checked its stack.
      const sfu_frame &f = walked.frames[i];
      bool on_a_stack = false;
      for (const sfu_stack &s : mem.stacks()) on_a_stack |= f.sp >= s.lo && f.sp <= s.hi;
      EXPECT_TRUE(on_a_stack) << where << " frame " << i;
    }
  }
  EXPECT_TRUE(mem.stray_reads().empty()) << "seed " << seed << ": read outside the stacks";
  sfu_unregister(&module);
}

TEST(WalkGarbage, EveryWalkEndsNamedAndReadsOnlyTheStacks) {
  Census census;
  for (uint64_t seed = 1; seed <= 1500; seed++) walk_garbage(seed, census);
  // The garbage must reach past the first frame often enough, and stop for many reasons, or
  // this test proves little.
  EXPECT_GT(census.walks, 5000);
  EXPECT_GT(census.stepped, census.walks / 40);
  EXPECT_GE(census.stops.size(), 9u);
  std::string seen;
  for (auto &[name, n] : census.stops) seen += " " + name + "=" + std::to_string(n);
  std::printf("garbage: %d walks (%d past their first frame), %d frames;%s\n", census.walks, census.stepped,
              census.frames, seen.c_str());
}

}  // namespace
