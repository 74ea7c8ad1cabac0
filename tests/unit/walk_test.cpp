// The walker on synthetic stacks: exact frames and exact stop reasons for each architecture's
// rules and for every guard. Memory is the fake machine's, read through the no-fault hook, which
// records every read outside the declared stacks (tests that cross stacks check it: expect_clean).
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <string>

#include "arm64/frame_rules.h"
#include "config.h"
#include "support/fake_machine.h"
#include "support/test_names.h"
#include "support/x86_chain.h"

using namespace sfu::test;

namespace {

void expect_clean(const FakeMemory &m) { EXPECT_TRUE(m.stray_reads().empty()) << "read outside the stacks"; }

// Whether every frame of the walk is vouched for: with end-of-stack, what makes the printed stop
// line say "(reliable)" (sfu/print.h).
bool all_reliable(const Walked &w) {
  for (const sfu_frame &f : w.frames)
    if (!f.reliable) return false;
  return !w.frames.empty();
}

// ---- x86_64 -----------------------------------------------------------------------------------

TEST(WalkX86_64, TableFramesToTheOutermostRow) {
  X86Chain x;
  ASSERT_EQ(x.reg.error(), SFU_OK);
  Walked w = walk_checked(x.start(), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{x.C + 0x10, x.B + 0x20, x.A + 0x30}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
  ASSERT_EQ(w.frames.size(), 3u);
  EXPECT_EQ(w.frames[0].source, SFU_SOURCE_REGISTERS);
  EXPECT_EQ(w.frames[1].source, SFU_SOURCE_TABLE);
  EXPECT_EQ(w.frames[1].sp, 0x7f10u);  // caller SP = CFA
  EXPECT_EQ(w.frames[2].sp, 0x7fb0u);
  EXPECT_EQ(w.frames[2].cfa, 0x7fb0u);
  EXPECT_TRUE(w.frames[2].reliable);
  EXPECT_STREQ(w.frames[1].module->name, "test");
  expect_clean(x.mem);
}

TEST(WalkX86_64, EpilogueSaveSlotBelowSpIsDead) {
  // At C+0x18 rbp was popped, but gcc's row still says "saved at CFA - 16", now below SP and
  // overwritten (by an interrupt frame, say): the live rbp is the caller's.
  X86Chain x;
  x.mem.put(0x7f00, x.B + 0x20);  // C: CFA = rsp + 8 = 0x7f08, RA at rsp
  x.mem.put(0x7ef8, 0xdead0000);  // the dead slot
  Walked w = walk_checked(regs_with(x.C + 0x18, {{SFU_X86_64_RSP, 0x7f00}, {SFU_X86_64_RBP, 0x7fa0}}),
                  x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{x.C + 0x18, x.B + 0x20, x.A + 0x30}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
}

TEST(WalkX86_64, FrameCap) {
  X86Chain x;
  Walked w = walk_checked(x.start(), x.mem.config(SFU_ABI_AMD64_LE, 2));
  EXPECT_EQ(w.frames.size(), 2u);
  EXPECT_EQ(w.stop, SFU_STOP_FRAME_CAP);
}

TEST(WalkX86_64, ReturnAddressZeroEndsCleanly) {
  // At the top of the stack (B's CFA 0x7fb0, the stack ending at 0x7fc0): where a kernel's first
  // code pushes a zero return address before its first call. Another stack above does not make
  // the top any less a top: one apart, or (declared first) one starting exactly at the top, which
  // an address there would otherwise belong to (a switch back to it: stack-switch-backwards).
  X86Chain x;
  struct Layout {
    uint64_t task_hi, other_lo, other_hi;
    bool other_first;
  };
  for (Layout l : {Layout{0x7fc0, 0, 0, false}, Layout{0x7fc0, 0x8000, 0x9000, false},
                   Layout{0x7fb0, 0x7fb0, 0x9000, true}}) {
    FakeMemory m(false);
    if (l.other_first) m.add_stack(l.other_lo, l.other_hi, SFU_STACK_IRQ);
    m.add_stack(kStackLo, l.task_hi);
    if (l.other_hi && !l.other_first) m.add_stack(l.other_lo, l.other_hi, SFU_STACK_IRQ);
    m.put(0x7f08, x.B + 0x20);
    m.put(0x7f00, 0x7fa0);
    m.put(0x7fa8, 0);
    Walked w = walk_checked(x.start(), m.config(SFU_ABI_AMD64_LE));
    EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{x.C + 0x10, x.B + 0x20})) << l.task_hi << " " << l.other_lo;
    EXPECT_TRUE(all_reliable(w));
    EXPECT_EQ(w.stop, SFU_STOP_END) << l.task_hi << " " << l.other_lo;
  }
}

TEST(WalkX86_64, ReturnAddressZeroInTheMiddleOfTheStackIsADamagedStack) {
  // The same zero with 0x50 bytes of stack above B's CFA: a saved return address overwritten,
  // not the end. The frames so far are shown; the trace is not vouched for.
  X86Chain x;
  x.mem.put(0x7fa8, 0);
  Walked w = walk_checked(x.start(), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.frames.size(), 2u);
  EXPECT_EQ(w.stop, SFU_STOP_ZERO_RETURN_ADDRESS);
  EXPECT_STREQ(sfu_stop_name(w.stop), "zero-return-address");
  // Within 32 bytes of the top it is an end: the outermost frame's own slots.
  for (uint64_t above : {32, 40}) {
    FakeMemory m(false);
    m.add_stack(kStackLo, 0x7fb0 + above);
    m.put(0x7f08, x.B + 0x20);
    m.put(0x7f00, 0x7fa0);
    m.put(0x7fa8, 0);
    EXPECT_EQ(walk_checked(x.start(), m.config(SFU_ABI_AMD64_LE)).stop,
              above <= 32 ? SFU_STOP_END : SFU_STOP_ZERO_RETURN_ADDRESS) << above;
  }
}

// The return address is shown (it may be a caller without a table, or a corrupted slot), the
// walk ends there, and nothing from it on is vouched for.
TEST(WalkX86_64, ReturnAddressOutsideKnownTextIsTheLastFrameUnreliable) {
  X86Chain x;
  x.mem.put(0x7fa8, 0x500000);
  Walked w = walk_checked(x.start(), x.mem.config(SFU_ABI_AMD64_LE));
  ASSERT_EQ(w.frames.size(), 3u);
  EXPECT_EQ(w.frames[2].pc, 0x500000u);
  EXPECT_EQ(w.frames[2].module, nullptr);
  EXPECT_EQ(w.frames[2].reliable, 0);
  EXPECT_EQ(w.frames[1].reliable, 1);
  EXPECT_EQ(w.stop, SFU_STOP_END);
}

TEST(WalkX86_64, StartOutsideKnownTextIsUnreliable) {
  X86Chain x;
  Walked w = walk_checked(regs_with(0x500000, {{SFU_X86_64_RSP, 0x7f00}}), x.mem.config(SFU_ABI_AMD64_LE));
  ASSERT_EQ(w.frames.size(), 1u);
  EXPECT_EQ(w.frames[0].reliable, 0);
  EXPECT_EQ(w.stop, SFU_STOP_END);
}

TEST(WalkX86_64, CfaOutsideTheStacks) {
  X86Chain x;
  Walked w = walk_checked(regs_with(x.C + 0x10, {{SFU_X86_64_RSP, kStackHi - 8}, {SFU_X86_64_RBP, 0}}),
                  x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.frames.size(), 1u);
  EXPECT_EQ(w.stop, SFU_STOP_CFA_OUTSIDE_STACK);
  expect_clean(x.mem);
}

TEST(WalkX86_64, StackGoingTheWrongWay) {
  X86Chain x;
  x.mem.put(0x7f00, 0x7e00);  // B's saved rbp below C's frame: B's CFA would fall
  Walked w = walk_checked(x.start(), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.frames.size(), 2u);
  EXPECT_EQ(w.stop, SFU_STOP_WRONG_DIRECTION);
}

TEST(WalkX86_64, RepeatedFrame) {
  // B's frame points at itself: rbp-based CFA and a saved rbp equal to rbp.
  X86Chain x;
  Walked first = walk_checked(regs_with(x.B + 0x20, {{SFU_X86_64_RSP, 0x7f80}, {SFU_X86_64_RBP, 0x7fa0}}),
                      x.mem.config(SFU_ABI_AMD64_LE));
  ASSERT_EQ(first.frames.size(), 2u);  // B, then A's outermost row
  x.mem.put(0x7fa8, x.B + 0x20);
  x.mem.put(0x7fa0, 0x7fa0);
  Walked w = walk_checked(regs_with(x.B + 0x20, {{SFU_X86_64_RSP, 0x7f80}, {SFU_X86_64_RBP, 0x7fa0}}),
                  x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.stop, SFU_STOP_REPEATED_FRAME);
  EXPECT_EQ(w.frames.size(), 2u);
}

TEST(WalkX86_64, ReadRefused) {
  X86Chain x;
  x.mem.poison(0x7fa8);
  Walked w = walk_checked(x.start(), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.frames.size(), 2u);
  EXPECT_EQ(w.stop, SFU_STOP_READ_REFUSED);
}

TEST(WalkX86_64, BadStart) {
  X86Chain x;
  sfu_walk_config c = x.mem.config(SFU_ABI_AMD64_LE);
  EXPECT_EQ(walk_checked(regs_with(x.C, {{SFU_X86_64_RSP, 0x100}}), c).stop, SFU_STOP_BAD_START);
  EXPECT_EQ(walk_checked(regs_with(x.C, {{SFU_X86_64_RBP, 0x7f00}}), c).stop, SFU_STOP_BAD_START);
  c.abi = 9;
  EXPECT_EQ(walk_checked(x.start(), c).stop, SFU_STOP_BAD_START);
  EXPECT_TRUE(walk_checked(x.start(), c).frames.empty());
}

TEST(WalkX86_64, ACountWithoutItsArrayIsNeverIndexed) {
  // The cursor refers to the caller's configuration: a stack count without the stacks is a bad
  // start (no SP can be in a stack then), a trap count without the traps names no entry code.
  X86Chain x;
  sfu_walk_config c = x.mem.config(SFU_ABI_AMD64_LE);
  c.stacks = nullptr;
  c.num_stacks = 3;
  EXPECT_EQ(walk_checked(x.start(), c).stop, SFU_STOP_BAD_START);
  EXPECT_TRUE(x.mem.reads().empty());
  c = x.mem.config(SFU_ABI_AMD64_LE);
  c.traps = nullptr;
  c.num_traps = 2;
  Walked w = walk_checked(x.start(), c);
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{x.C + 0x10, x.B + 0x20, x.A + 0x30}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
}

TEST(WalkX86_64, FramePointerFallbackIsMarkedUnreliable) {
  // The PC is in registered text that no function covers: one frame-record step.
  X86Chain x;
  x.mem.put(0x7f00, 0x7fa0);  // [rbp] = caller's rbp
  x.mem.put(0x7f08, x.B + 0x20);
  Walked w = walk_checked(regs_with(kText + 0x800, {{SFU_X86_64_RSP, 0x7ef0}, {SFU_X86_64_RBP, 0x7f00}}),
                  x.mem.config(SFU_ABI_AMD64_LE));
  ASSERT_EQ(w.pcs(), (std::vector<uint64_t>{kText + 0x800, x.B + 0x20, x.A + 0x30}));
  EXPECT_EQ(w.frames[1].source, SFU_SOURCE_FRAME_POINTER);
  EXPECT_TRUE(w.frames[0].reliable);
  EXPECT_FALSE(w.frames[1].reliable);
  EXPECT_FALSE(w.frames[2].reliable);  // everything after a guess is a guess
  EXPECT_EQ(w.stop, SFU_STOP_END);
}

TEST(WalkX86_64, FramePointerFallbackKnowsTheOutermostRecord) {
  // No row covers the PC. RBP 0 (no frame record) ends the walk cleanly only in a frame where the
  // stack ends, its SP within 32 bytes of the top; in the middle of the stack RBP 0 says nothing of
  // the caller (code that keeps no frame pointer, entry code that cleared RBP with frames above):
  // the walk cannot go on, no-unwind-info.
  X86Chain x;
  Walked w = walk_checked(regs_with(kText + 0x800, {{SFU_X86_64_RSP, 0x7ef0}, {SFU_X86_64_RBP, 0}}),
                          x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.frames.size(), 1u);
  EXPECT_EQ(w.stop, SFU_STOP_NO_UNWIND_INFO);
  for (uint64_t sp : {kStackHi, kStackHi - 32, kStackHi - 40}) {
    w = walk_checked(regs_with(kText + 0x800, {{SFU_X86_64_RSP, sp}, {SFU_X86_64_RBP, 0}}), x.mem.config(SFU_ABI_AMD64_LE));
    ASSERT_EQ(w.frames.size(), 1u) << sp;
    EXPECT_TRUE(w.frames[0].reliable);
    EXPECT_EQ(w.stop, sp >= kStackHi - 32 ? SFU_STOP_END : SFU_STOP_NO_UNWIND_INFO) << sp;
  }
  // A record of zeros (saved RBP 0, return address 0): AAPCS64's final record, and what x86_64
  // boot code may push. The caller's CFA is the record's end: in the middle of the stack, a
  // damaged stack like any return address of 0 there.
  x.mem.put(0x7e00, 0);
  x.mem.put(0x7e08, 0);
  w = walk_checked(regs_with(kText + 0x800, {{SFU_X86_64_RSP, 0x7df0}, {SFU_X86_64_RBP, 0x7e00}}), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.frames.size(), 1u);
  EXPECT_EQ(w.stop, SFU_STOP_ZERO_RETURN_ADDRESS);
  // Ending within 32 bytes of the top: the clean end.
  for (uint64_t record : {kStackHi - 16, kStackHi - 48, kStackHi - 56}) {
    x.mem.put(record, 0);
    x.mem.put(record + 8, 0);
    w = walk_checked(regs_with(kText + 0x800, {{SFU_X86_64_RSP, record - 0x10}, {SFU_X86_64_RBP, record}}),
                     x.mem.config(SFU_ABI_AMD64_LE));
    EXPECT_EQ(w.frames.size(), 1u) << record;
    EXPECT_EQ(w.stop, record + 16 >= kStackHi - 32 ? SFU_STOP_END : SFU_STOP_ZERO_RETURN_ADDRESS) << record;
  }
  // A live saved RBP with a zeroed return address in the middle of the stack: damaged.
  x.mem.put(0x7e00, 0x7fa0);
  w = walk_checked(regs_with(kText + 0x800, {{SFU_X86_64_RSP, 0x7df0}, {SFU_X86_64_RBP, 0x7e00}}), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.frames.size(), 1u);
  EXPECT_EQ(w.stop, SFU_STOP_ZERO_RETURN_ADDRESS);
}

TEST(WalkX86_64, NoUnwindInfoWithoutAFramePointer) {
  X86Chain x;
  Walked w = walk_checked(regs_with(kText + 0x800, {{SFU_X86_64_RSP, 0x7ef0}}), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.frames.size(), 1u);
  EXPECT_EQ(w.stop, SFU_STOP_NO_UNWIND_INFO);
}

// An interrupt handler H runs on the IRQ stack; its rbp-based CFA leads back to the task stack.
struct X86Switch {
  const uint64_t A = kText, B = kText + 0x100, H = kText + 0x200;
  Registered reg{table_spec(3, SFU_ABI_AMD64_LE,
                       {fde_spec(A, 0x40, {{0, {}}}), fde_spec(B, 0x40, {{0, {16}}}), fde_spec(H, 0x20, {{0, {16, -16}, false}})}),
                 kText, kText + 0x1000};
  FakeMemory mem{false};
  X86Switch(bool irq_first) {
    if (irq_first) mem.add_stack(0x3000, 0x4000, SFU_STACK_IRQ);
    mem.add_stack(kStackLo, kStackHi, SFU_STACK_TASK);
    if (!irq_first) mem.add_stack(0x3000, 0x4000, SFU_STACK_IRQ);
    mem.put(0x7f08, B + 0x10);  // H: CFA = rbp + 16 = 0x7f10
    mem.put(0x7f00, 0);
    mem.put(0x7f18, A + 0x10);  // B: CFA = 0x7f10 + 16
  }
  sfu_regs start() { return regs_with(H + 4, {{SFU_X86_64_RSP, 0x3f00}, {SFU_X86_64_RBP, 0x7f00}}); }
};

TEST(WalkX86_64, StackSwitchToALaterDeclaredStack) {
  X86Switch x(true);
  Walked w = walk_checked(x.start(), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{x.H + 4, x.B + 0x10, x.A + 0x10}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
  ASSERT_EQ(w.frames.size(), 3u);
  EXPECT_EQ(w.frames[0].stack_kind, SFU_STACK_IRQ);
  EXPECT_EQ(w.frames[1].stack_kind, SFU_STACK_TASK);
  expect_clean(x.mem);
}

TEST(WalkX86_64, StackSwitchBackwardsIsRefused) {
  X86Switch x(false);  // the task stack declared before the IRQ stack: no way back to it
  Walked w = walk_checked(x.start(), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.frames.size(), 1u);
  EXPECT_EQ(w.stop, SFU_STOP_STACK_ORDER);
}

// Boot code without CFI that enters its first C function K with a jump (`jmp`, no call) after
// zeroing RBP: K's entry row still says "return address at CFA - 8", so what ends the walk is the
// word above K's first push, and where RSP stood at the jump. With RSP at the very top, K's CFA
// lies 8 bytes past the stack: cfa-outside-stacks (unreliable). With a 0 pushed first (`pushq $0`,
// then `jmp`), K's CFA is the top and its return address 0: end-of-stack (docs/porting.md, the
// clean-end table).
TEST(WalkX86_64, JumpedToFromBootCodeEndsWhereItsReturnSlotSays) {
  const uint64_t K = kText, L = kText + 0x100;
  Registered reg(table_spec(3, SFU_ABI_AMD64_LE,
                            {fde_spec(K, 0x40, {{0, {8}}, {1, {16, -16}}}), fde_spec(L, 0x10, {{0, {8}}})}),
                 kText, kText + 0x1000);
  ASSERT_EQ(reg.error(), SFU_OK);
  for (uint64_t entry_rsp : {kStackHi, kStackHi - 8}) {
    FakeMemory m(false);
    m.add_stack(kStackLo, kStackHi);
    if (entry_rsp < kStackHi) m.put(entry_rsp, 0);  // the pushed 0
    m.put(entry_rsp - 8, 0);                        // K: push %rbp (zeroed)
    m.put(entry_rsp - 16, K + 0x10);                // K: call L
    Walked w = walk_checked(regs_with(L + 4, {{SFU_X86_64_RSP, entry_rsp - 16}, {SFU_X86_64_RBP, entry_rsp - 8}}),
                            m.config(SFU_ABI_AMD64_LE));
    EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{L + 4, K + 0x10})) << entry_rsp;
    if (entry_rsp == kStackHi) {
      EXPECT_EQ(w.stop, SFU_STOP_CFA_OUTSIDE_STACK);
    } else {
      EXPECT_EQ(w.stop, SFU_STOP_END);
      ASSERT_EQ(w.frames.size(), 2u);
      EXPECT_TRUE(w.frames[1].reliable);
    }
    expect_clean(m);
  }
}

}  // namespace

namespace {

// ---- arm64 -------------------------------------------------------------------------------------

constexpr uint64_t kPac = 0x002a000000000000;  // signature bits above a 48-bit address

// L (leaf: RA still in x30, signed) <- M (frame record, signed RA) <- N (outermost row).
struct Arm64Chain {
  const uint64_t N = kText, M = kText + 0x100, L = kText + 0x300;
  Registered reg;
  FakeMemory mem{false};
  explicit Arm64Chain(std::vector<FreSpec> m_rows = {{0, {0}}, {4, {32, -24, -32}, true, true}})
      : reg(table_spec(3, SFU_ABI_AARCH64_LE,
                  {fde_spec(N, 0x40, {{0, {0}}, {4, {16, -8, -16}}, {0x20, {}}}), fde_spec(M, 0x40, m_rows),
                   fde_spec(L, 0x10, {{0, {0}}})}),
            kText, kText + 0x1000) {
    mem.add_stack(kStackLo, kStackHi);
    mem.put(0x7f08, kPac | (N + 0x24));  // M: CFA = sp + 32 = 0x7f20; RA at CFA - 24
    mem.put(0x7f00, 0x7f40);             // M: FP at CFA - 32
  }
  sfu_regs start(uint64_t lr) {
    return regs_with(L + 4, {{SFU_ARM64_SP, 0x7f00}, {SFU_ARM64_FP, 0x7f00}, {SFU_ARM64_LR, lr}});
  }
};

TEST(WalkArm64, LinkRegisterAtTheTopAndPacStripped) {
  Arm64Chain a;
  ASSERT_EQ(a.reg.error(), SFU_OK);
  Walked w = walk_checked(a.start(kPac | (a.M + 0x14)), a.mem.config(SFU_ABI_AARCH64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{a.L + 4, a.M + 0x14, a.N + 0x24}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
  ASSERT_EQ(w.frames.size(), 3u);
  EXPECT_EQ(w.frames[2].sp, 0x7f20u);
  expect_clean(a.mem);
}

TEST(WalkArm64, LinkRegisterRuleBelowTheTopIsRefused) {
  // M's return point lies in its first row (CFA only: RA "in x30"), which only the topmost
  // frame may rely on: x30 was overwritten by M's own call.
  Arm64Chain a;
  Walked w = walk_checked(a.start(a.M + 0x2), a.mem.config(SFU_ABI_AARCH64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{a.L + 4, a.M + 0x2}));
  EXPECT_EQ(w.stop, SFU_STOP_RA_NOT_RECOVERABLE);
}

TEST(WalkArm64, LinkRegisterNotGiven) {
  Arm64Chain a;
  sfu_regs r = a.start(0);
  r.valid &= ~(1u << SFU_ARM64_LR);
  Walked w = walk_checked(r, a.mem.config(SFU_ABI_AARCH64_LE));
  EXPECT_EQ(w.frames.size(), 1u);
  EXPECT_EQ(w.stop, SFU_STOP_REGISTER_UNKNOWN);
}

TEST(WalkArm64, StripsSignaturesForBothAddressHalves) {
  using sfu::arch::Arm64;
  EXPECT_EQ(Arm64::strip_pac_bits(0x002a000000401234, 48, false), 0x0000000000401234u);
  EXPECT_EQ(Arm64::strip_pac_bits(0x2aaaffff80401234, 48, false), 0xffffffff80401234u);  // bit 55 set
  EXPECT_EQ(Arm64::strip_pac_bits(0x0000000000401234, 48, false), 0x0000000000401234u);
  EXPECT_EQ(Arm64::strip_pac_bits(0x0070000000401234, 52, false), 0x0000000000401234u);
}

TEST(WalkArm64, TopByteIgnoreKeepsTheTag) {
  using sfu::arch::Arm64;
  // With TBI the signature stops at bit 55; the top byte is a tag and stays.
  EXPECT_EQ(Arm64::strip_pac_bits(0x5a2a000000401234, 48, true), 0x5a00000000401234u);
  EXPECT_EQ(Arm64::strip_pac_bits(0x5aaaffff80401234, 48, true), 0x5affffff80401234u);
}

TEST(WalkArm64, ConfiguredAddressSize) {
  Arm64Chain a;
  sfu_walk_config c = a.mem.config(SFU_ABI_AARCH64_LE);
  c.arm64_va_bits = 40;  // 0x002a... is above 40 bits too; M + 0x14 is below
  Walked w = walk_checked(a.start(0x0000ab0000000000 | (a.M + 0x14)), c);
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{a.L + 4, a.M + 0x14, a.N + 0x24}));
}

TEST(WalkArm64, AnAddressSizeArm64DoesNotHaveIsABadStart) {
  // 64 would make the strip mask a shift by 64 (every return address stripped to 0: a walk
  // that "ends cleanly" after one frame); 35 and 53 are outside what the architecture has.
  Arm64Chain a;
  sfu_walk_config c = a.mem.config(SFU_ABI_AARCH64_LE);
  for (uint8_t bits : {1, 35, 53, 63, 64, 255}) {
    c.arm64_va_bits = bits;
    Walked w = walk_checked(a.start(kPac | (a.M + 0x14)), c);
    EXPECT_EQ(w.stop, SFU_STOP_BAD_START) << int(bits);
    EXPECT_TRUE(w.frames.empty()) << int(bits);
  }
  for (uint8_t bits : {36, 52}) {
    c.arm64_va_bits = bits;
    EXPECT_EQ(walk_checked(a.start(kPac | (a.M + 0x14)), c).stop, SFU_STOP_END) << int(bits);
  }
  // Other architectures do not read the field.
  X86Chain x;
  sfu_walk_config xc = x.mem.config(SFU_ABI_AMD64_LE);
  xc.arm64_va_bits = 64;
  EXPECT_EQ(walk_checked(x.start(), xc).stop, SFU_STOP_END);
}

// A C function K entered from boot assembly by a plain branch (`b`, no link) after the firmware
// zeroed x29 and x30, the boot code having no CFI: K's prologue (stp x29, x30, [sp, #-32]!) saves
// the zeros as its frame record, and the walk reads a return address of 0 at K's CFA, the SP of
// the branch. Branched with SP at the top of the stack (K's CFA within 32 bytes of it): the clean
// end, end-of-stack (reliable). Further down, a saved return address of 0 is a damaged stack:
// zero-return-address (docs/porting.md, the clean-end table).
struct Arm64BranchedTo {
  const uint64_t K = kText + 0x100, L = kText + 0x200;  // the boot code, at kText, has no row
  Registered reg{table_spec(3, SFU_ABI_AARCH64_LE,
                            {fde_spec(K, 0x40, {{0, {0}}, {4, {32, -24, -32}}}), fde_spec(L, 0x10, {{0, {0}}})}),
                 kText, kText + 0x1000};
  FakeMemory mem{false};
  const uint64_t entry_sp;  // SP at the branch: K's CFA
  Arm64BranchedTo(uint64_t sp, uint64_t x29, uint64_t x30) : entry_sp(sp) {
    mem.add_stack(kStackLo, kStackHi);
    mem.put(sp - 32, x29);  // K's frame record: the x29 and x30 of the branch
    mem.put(sp - 24, x30);
  }
  // A fault in L, a leaf K called (its return address still in x30).
  sfu_regs in_leaf() const {
    return regs_with(L + 4, {{SFU_ARM64_SP, entry_sp - 32}, {SFU_ARM64_FP, entry_sp - 32}, {SFU_ARM64_LR, K + 0x14}});
  }
};

TEST(WalkArm64, BranchedToWithZeroedX29X30EndsCleanlyAtTheTopOfTheStack) {
  for (uint64_t below_top : {0, 16, 32}) {
    Arm64BranchedTo a(kStackHi - below_top, 0, 0);
    ASSERT_EQ(a.reg.error(), SFU_OK);
    Walked w = walk_checked(a.in_leaf(), a.mem.config(SFU_ABI_AARCH64_LE));
    EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{a.L + 4, a.K + 0x14})) << below_top;
    EXPECT_EQ(w.stop, SFU_STOP_END) << below_top;
    ASSERT_EQ(w.frames.size(), 2u);
    EXPECT_TRUE(w.frames[1].reliable);
    expect_clean(a.mem);
  }
  // A fault in K before its prologue: the zeroed x30 itself is the return address.
  Arm64BranchedTo a(kStackHi, 0, 0);
  Walked w = walk_checked(regs_with(a.K, {{SFU_ARM64_SP, kStackHi}, {SFU_ARM64_FP, 0}, {SFU_ARM64_LR, 0}}),
                          a.mem.config(SFU_ABI_AARCH64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{a.K}));
  EXPECT_TRUE(all_reliable(w));
  EXPECT_EQ(w.stop, SFU_STOP_END);
}

TEST(WalkArm64, BranchedToBelowTheTopOfTheStackIsADamagedStack) {
  Arm64BranchedTo a(kStackHi - 64, 0, 0);
  Walked w = walk_checked(a.in_leaf(), a.mem.config(SFU_ABI_AARCH64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{a.L + 4, a.K + 0x14}));
  EXPECT_EQ(w.stop, SFU_STOP_ZERO_RETURN_ADDRESS);
}

TEST(WalkArm64, BranchedToWithoutZeroingX30ShowsWhatX30Held) {
  // x30 left as the boot code had it: the walk takes it for K's return address. An address in no
  // registered text is shown as the last frame, unreliable (end-of-stack).
  Arm64BranchedTo a(kStackHi, 0, 0x500000);
  Walked w = walk_checked(a.in_leaf(), a.mem.config(SFU_ABI_AARCH64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{a.L + 4, a.K + 0x14, 0x500000}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
  ASSERT_EQ(w.frames.size(), 3u);
  EXPECT_FALSE(w.frames[2].reliable);
}

// ---- s390x -------------------------------------------------------------------------------------

// F (leaf: RA in f8, DWARF 24) <- P (RA and FP saved; CFA = sp + 320) <- Q (outermost row).
struct S390xChain {
  const uint64_t Q = kText, P = kText + 0x100, F = kText + 0x300;
  Registered reg;
  FakeMemory mem{true};
  explicit S390xChain(std::vector<FreSpec> p_rows = {{0, {0}}, {6, {20, -48, -72}}},
                      std::vector<FreSpec> f_rows = {{0, {0, (24 << 1) | 1}}})
      : reg(table_spec(2, SFU_ABI_S390X_BE,
                  {fde_spec(Q, 0x40, {{0, {0}}, {0x20, {}}}), fde_spec(P, 0x40, p_rows), fde_spec(F, 0x10, f_rows)}),
            kText, kText + 0x1000) {
    mem.add_stack(kStackLo, kStackHi);
    mem.put(0x7d10, Q + 0x24);  // P: CFA = 0x7c00 + 320 = 0x7d40; RA at CFA - 48
    mem.put(0x7cf8, 0x7e00);    // P: FP at CFA - 72
  }
  sfu_regs start() {
    return regs_with(F + 4, {{SFU_S390X_SP, 0x7c00}, {SFU_S390X_FP, 0x7c80}, {24, P + 0x10},
                             {SFU_S390X_RA, P + 0x12}});
  }
};

TEST(WalkS390x, ReturnAddressInAFloatingPointRegisterAtTheTop) {
  S390xChain s;
  ASSERT_EQ(s.reg.error(), SFU_OK);
  Walked w = walk_checked(s.start(), s.mem.config(SFU_ABI_S390X_BE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{s.F + 4, s.P + 0x10, s.Q + 0x24}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
  ASSERT_EQ(w.frames.size(), 3u);
  EXPECT_EQ(w.frames[1].sp, 0x7c00u);  // caller SP = CFA - 160
  EXPECT_EQ(w.frames[1].cfa, 0x7ca0u);
  EXPECT_EQ(w.frames[2].sp, 0x7ca0u);
  expect_clean(s.mem);
}

TEST(WalkS390x, RegisterRuleBelowTheTopIsRefused) {
  S390xChain s({{0, {0}}, {6, {20, (24 << 1) | 1, -72}}});
  Walked w = walk_checked(s.start(), s.mem.config(SFU_ABI_S390X_BE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{s.F + 4, s.P + 0x10}));
  EXPECT_EQ(w.stop, SFU_STOP_RA_NOT_RECOVERABLE);
}

TEST(WalkS390x, RaNotSavedMeansR14AtTheTop) {
  // Padding RA word: the leaf saved only FP; its RA is still in r14.
  S390xChain s({{0, {0}}, {6, {20, -48, -72}}}, {{0, {0, 0, -8}}});
  Walked w = walk_checked(s.start(), s.mem.config(SFU_ABI_S390X_BE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{s.F + 4, s.P + 0x12, s.Q + 0x24}));
}

TEST(WalkS390x, BranchedToWithR14ZeroedEndsCleanlyAtTheTopOfTheStack) {
  // Boot code without CFI that zeroes r14 and enters its first C function K with a plain branch
  // (`j`), r15 160 bytes below the top: K's prologue saves the zero at CFA - 48, and K's CFA is
  // the top: end-of-stack (reliable), as on arm64.
  const uint64_t K = kText + 0x100, L = kText + 0x200;
  Registered reg(table_spec(2, SFU_ABI_S390X_BE,
                            {fde_spec(K, 0x40, {{0, {0}}, {6, {20, -48, -72}}}), fde_spec(L, 0x10, {{0, {0}}})}),
                 kText, kText + 0x1000);
  ASSERT_EQ(reg.error(), SFU_OK);
  FakeMemory m(true);
  m.add_stack(kStackLo, kStackHi);
  m.put(kStackHi - 48, 0);  // K: stmg saved r14 (0) and r11 (0) in the boot frame's save area
  m.put(kStackHi - 72, 0);
  Walked w = walk_checked(regs_with(L + 4, {{SFU_S390X_SP, kStackHi - 320}, {SFU_S390X_FP, 0}, {SFU_S390X_RA, K + 0x10}}),
                          m.config(SFU_ABI_S390X_BE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{L + 4, K + 0x10}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
  ASSERT_EQ(w.frames.size(), 2u);
  EXPECT_TRUE(w.frames[1].reliable);
  expect_clean(m);
  // A fault in K before its prologue: the zeroed r14 itself is the return address, K's CFA
  // (r15 + 160) the top.
  w = walk_checked(regs_with(K, {{SFU_S390X_SP, kStackHi - 160}, {SFU_S390X_FP, 0}, {SFU_S390X_RA, 0}}),
                   m.config(SFU_ABI_S390X_BE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{K}));
  EXPECT_TRUE(all_reliable(w));
  EXPECT_EQ(w.stop, SFU_STOP_END);
  // 64 bytes lower: a return address of 0 away from the top.
  w = walk_checked(regs_with(K, {{SFU_S390X_SP, kStackHi - 224}, {SFU_S390X_FP, 0}, {SFU_S390X_RA, 0}}),
                   m.config(SFU_ABI_S390X_BE));
  EXPECT_EQ(w.stop, SFU_STOP_ZERO_RETURN_ADDRESS);
}

TEST(WalkS390x, BackChainIsOffByDefault) {
  S390xChain s;
  Walked w = walk_checked(regs_with(kText + 0x800, {{SFU_S390X_SP, 0x7c00}}), s.mem.config(SFU_ABI_S390X_BE));
  EXPECT_EQ(w.stop, SFU_STOP_NO_UNWIND_INFO);
}

// ---- every architecture ------------------------------------------------------------------------

TEST(Walk, SignalFrameCallerIsLookedUpAtItsExactPc) {
  // T is a signal trampoline; the frame it returns to was interrupted at F's first instruction,
  // so F must be looked up at F, not F - 1 (which no function covers).
  const uint64_t T = kText + 0x500, F = kText + 0x600, G = kText + 0x700;
  Registered reg{table_spec(3, SFU_ABI_AMD64_LE,
                       {fde_spec(T, 0x10, {{0, {16}}}, true), fde_spec(F, 0x10, {{0, {8}}}), fde_spec(G, 0x20, {{0, {8}}, {0x10, {}}})}),
                 kText, kText + 0x1000};
  FakeMemory mem(false);
  mem.add_stack(kStackLo, kStackHi);
  mem.put(0x7f08, F);
  mem.put(0x7f10, G + 0x14);
  Walked w = walk_checked(regs_with(T + 4, {{SFU_X86_64_RSP, 0x7f00}}), mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{T + 4, F, G + 0x14}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
  // F was found through the trampoline's row: a table step, so still reliable, but labelled
  // so that printers and the host look it up at its PC too; G returns normally again.
  EXPECT_EQ(w.frames[1].source, SFU_SOURCE_SIGNAL_FRAME);
  EXPECT_EQ(w.frames[1].reliable, 1);
  EXPECT_EQ(sfu_frame_lookup_pc(&w.frames[1]), F);
  EXPECT_EQ(w.frames[2].source, SFU_SOURCE_TABLE);
  EXPECT_EQ(w.frames[2].reliable, 1);
  EXPECT_EQ(sfu_frame_lookup_pc(&w.frames[2]), G + 0x13);
}

TEST(Walk, AV1RepeatingBlockGivesNoReliableCaller) {
  // gas 2.40's .plt: 16-byte entries, rows at 0 (CFA sp+8) and 0xb (CFA sp+16). V1 records no
  // block size; rows are matched on the low byte of the offset, so at offset 4 of the second
  // entry (0x14) the row at 0xb is taken and the caller read one slot too high. V2 says 16.
  const uint64_t P = kText + 0x400, G = kText + 0x100;
  for (uint8_t version : {1, 2}) {
    FdeSpec plt = fde_spec(P, 0x40, {{0, {8}}, {0xb, {16}}});
    plt.pcmask = true;
    plt.rep_size = version == 1 ? 0 : 16;
    Registered reg{table_spec(version, SFU_ABI_AMD64_LE, {fde_spec(G, 0x40, {{0, {8}}}), plt}), kText, kText + 0x1000};
    ASSERT_EQ(reg.error(), SFU_OK);
    FakeMemory mem(false);
    mem.add_stack(kStackLo, kStackHi);
    mem.put(0x7f00, G + 4);  // the return address the call into the stub pushed
    mem.put(0x7f08, G + 8);  // one slot higher
    Walked w = walk_checked(regs_with(P + 0x14, {{SFU_X86_64_RSP, 0x7f00}}), mem.config(SFU_ABI_AMD64_LE));
    ASSERT_GE(w.frames.size(), 2u) << int(version);
    EXPECT_EQ(w.frames[1].pc, version == 1 ? G + 8 : G + 4) << int(version);
    EXPECT_EQ(w.frames[1].reliable, version == 1 ? 0 : 1) << int(version);
    if (version == 1) {
      EXPECT_NE(w.stop, SFU_STOP_END);  // never a reliable trace through it
    }
  }
}

TEST(Walk, BacktraceFillsAnArray) {
  X86Chain x;
  sfu_regs r = x.start();
  sfu_walk_config c = x.mem.config(SFU_ABI_AMD64_LE);
  uint64_t pcs[8];
  sfu_stop why;
  EXPECT_EQ(sfu_backtrace(&r, &c, pcs, 8, &why), 3u);
  EXPECT_EQ(why, SFU_STOP_END);
  EXPECT_EQ(pcs[1], x.B + 0x20);
  EXPECT_EQ(sfu_backtrace(&r, &c, pcs, 2, &why), 2u);
  EXPECT_EQ(why, SFU_STOP_NONE);  // the array filled first
}

TEST(Walk, EveryStopHasADistinctName) {
  std::set<std::string> names;
  for (int s = 0; s < SFU_STOP_COUNT; s++) {
    std::string n = sfu_stop_name(sfu_stop(s));
    EXPECT_NE(n, "unknown-stop");
    EXPECT_TRUE(names.insert(n).second) << n;
  }
  EXPECT_STREQ(sfu_stop_name(SFU_STOP_COUNT), "unknown-stop");
}

// ---- registry ----------------------------------------------------------------------------------

TEST(Registry, FindsTheModuleByText) {
  Registered a{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kText, 0x10, {{0, {8}}})}), kText, kText + 0x100, "a"};
  Registered b{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kText + 0x100, 0x10, {{0, {8}}})}), kText + 0x100, kText + 0x200, "b"};
  ASSERT_EQ(a.error(), SFU_OK);
  ASSERT_EQ(b.error(), SFU_OK);
  EXPECT_STREQ(sfu_module_for_pc(kText + 0xff)->name, "a");
  EXPECT_STREQ(sfu_module_for_pc(kText + 0x100)->name, "b");
  EXPECT_EQ(sfu_module_for_pc(kText + 0x200), nullptr);
}

TEST(Registry, NeedsATextRange) {
  Registered r{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kText, 0x10, {{0, {8}}})}), 0, 0};
  EXPECT_EQ(r.error(), SFU_E_NO_TEXT_RANGE);
}

TEST(Registry, RefusesOverlappingText) {
  Registered a{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kText, 0x10, {{0, {8}}})}), kText, kText + 0x100};
  Registered b{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kText + 0xf0, 0x10, {{0, {8}}})}), kText + 0xf0, kText + 0x200};
  EXPECT_EQ(b.error(), SFU_E_TEXT_OVERLAP);
}

TEST(Registry, RefusesABadTable) {
  TableSpec t = table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kText, 0x10, {{0, {8}}})});
  t.fixed_ra = 0;
  Registered r{t, kText, kText + 0x100};
  EXPECT_EQ(r.error(), SFU_E_BAD_FIXED_RA_OFFSET);
  EXPECT_EQ(sfu_module_for_pc(kText), nullptr);
}

TEST(Registry, FullRegistryIsRefused) {
  std::vector<std::unique_ptr<Registered>> all;
  for (int i = 0; i < CONFIG_SFU_MAX_MODULES; i++) {
    uint64_t at = kText + uint64_t(i) * 0x100;
    all.push_back(std::make_unique<Registered>(table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(at, 0x10, {{0, {8}}})}), at, at + 0x100));
    ASSERT_EQ(all.back()->error(), SFU_OK) << i;
  }
  uint64_t at = kText + 0x100000;
  Registered extra{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(at, 0x10, {{0, {8}}})}), at, at + 0x100};
  EXPECT_EQ(extra.error(), SFU_E_REGISTRY_FULL);
  all.pop_back();  // a free slot again
  Registered again{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(at, 0x10, {{0, {8}}})}), at, at + 0x100};
  EXPECT_EQ(again.error(), SFU_OK);
}

TEST(Registry, UnregisterTwice) {
  std::vector<uint8_t> bytes = build_section(table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kText, 0x10, {{0, {8}}})}));
  sfu_table_desc d{};
  d.section = bytes.data();
  d.size = bytes.size();
  d.section_addr = 0x200000;
  d.text_start = kText;
  d.text_end = kText + 0x100;
  sfu_module m{};
  ASSERT_EQ(sfu_register(&m, &d, "m"), SFU_OK);
  sfu_table_desc other = d;
  other.text_end = kText + 0x80;  // a second registration must not touch the published table
  EXPECT_EQ(sfu_register(&m, &other, "m"), SFU_E_TEXT_OVERLAP);
  EXPECT_EQ(m.table.text_end, kText + 0x100);
  EXPECT_EQ(sfu_unregister(&m), SFU_OK);
  EXPECT_EQ(sfu_module_for_pc(kText), nullptr);
  EXPECT_EQ(sfu_unregister(&m), SFU_E_NOT_REGISTERED);
  EXPECT_EQ(sfu_unregister(nullptr), SFU_E_NOT_REGISTERED);
}

}  // namespace

namespace {

// ---- trap frames -------------------------------------------------------------------------------

// H (a C fault handler, on the exception stack) was called by entry code E, which saved the
// interrupted registers at its SP: the walk goes on in I, interrupted at its first instruction on
// the task stack, then I's caller J.
struct X86Trap {
  const uint64_t J = kText, I = kText + 0x100, H = kText + 0x200, E = kText + 0x900;
  Registered reg{table_spec(3, SFU_ABI_AMD64_LE,
                       {fde_spec(J, 0x40, {{0, {8}}, {0x10, {}}}), fde_spec(I, 0x20, {{0, {8}}}), fde_spec(H, 0x20, {{0, {16}}})}),
                 kText, kText + 0x1000};
  FakeMemory mem{false};
  sfu_trap_layout layout{};
  sfu_trap_entry entry{E, E + 0x40, &layout};

  X86Trap() {
    mem.add_stack(0x3000, 0x4000, SFU_STACK_EXCEPTION);
    mem.add_stack(kStackLo, kStackHi, SFU_STACK_TASK);
    layout.pc = 0x80;  // like pt_regs: ..., rbp at 0x20, rip at 0x80, rsp at 0x98
    layout.reg[SFU_X86_64_RBP] = 0x20;
    layout.reg[SFU_X86_64_RSP] = 0x98;
    layout.saved = (1u << SFU_X86_64_RBP) | (1u << SFU_X86_64_RSP);
    mem.put(0x3f08, E + 0x20);  // H: CFA = 0x3f00 + 16; RA into the entry code
    const uint64_t regs_at = 0x3f10;  // the entry code's SP when it called H
    mem.put(regs_at + 0x80, I);
    mem.put(regs_at + 0x20, 0x7fc0);
    mem.put(regs_at + 0x98, 0x7f00);
    mem.put(0x7f00, J + 0x14);  // I, just entered: CFA = rsp + 8, RA at rsp
  }
  sfu_walk_config config() {
    sfu_walk_config c = mem.config(SFU_ABI_AMD64_LE);
    c.traps = &entry;
    c.num_traps = 1;
    return c;
  }
  sfu_regs start() { return regs_with(H + 4, {{SFU_X86_64_RSP, 0x3f00}}); }
};

TEST(WalkTrapFrames, CrossesIntoTheInterruptedContext) {
  X86Trap x;
  Walked w = walk_checked(x.start(), x.config());
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{x.H + 4, x.E + 0x20, x.I, x.J + 0x14}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
  ASSERT_EQ(w.frames.size(), 4u);
  EXPECT_EQ(w.frames[1].stack_kind, SFU_STACK_EXCEPTION);
  EXPECT_EQ(w.frames[2].source, SFU_SOURCE_TRAP_FRAME);  // the boundary
  EXPECT_EQ(w.frames[2].sp, 0x7f00u);
  EXPECT_EQ(w.frames[2].stack_kind, SFU_STACK_TASK);
  EXPECT_EQ(w.frames[3].source, SFU_SOURCE_TABLE);
  EXPECT_TRUE(w.frames[3].reliable);
  expect_clean(x.mem);
}

// Interrupted in no registered text: shown, the walk ends there, and the trace is not vouched
// for, as for a return address outside the known text.
TEST(WalkTrapFrames, InterruptedOutsideKnownTextIsTheLastFrameUnreliable) {
  X86Trap x;
  x.mem.put(0x3f10 + 0x80, 0x500000);
  Walked w = walk_checked(x.start(), x.config());
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{x.H + 4, x.E + 0x20, 0x500000}));
  ASSERT_EQ(w.frames.size(), 3u);
  EXPECT_EQ(w.frames[2].source, SFU_SOURCE_TRAP_FRAME);
  EXPECT_EQ(w.frames[2].module, nullptr);
  EXPECT_EQ(w.frames[2].reliable, 0);
  EXPECT_EQ(w.frames[1].reliable, 1);
  EXPECT_EQ(w.stop, SFU_STOP_END);
}

TEST(WalkTrapFrames, WithoutTheEntryDescribedTheWalkStops) {
  X86Trap x;
  sfu_walk_config c = x.config();
  c.num_traps = 0;  // E is registered text without rows, and there is no frame pointer
  Walked w = walk_checked(x.start(), c);
  EXPECT_EQ(w.frames.size(), 2u);
  EXPECT_EQ(w.stop, SFU_STOP_NO_UNWIND_INFO);
}

// The layout says where the registers are when the entry code calls C: only a return address
// into the entry code (its call) vouches that the frame is built. Stopped inside the entry code
// (the start registers, or an interrupted context a trap frame restores: an NMI over the entry),
// the frame may be half built or already popped, so the code is stepped by its rows like any
// other; E has none here and no frame pointer is given, so the walk stops there.
TEST(WalkTrapFrames, StoppedInsideTheEntryCodeIsNotCrossedByItsLayout) {
  X86Trap x;
  // SP where the layout would find the whole frame: the walk must still not read it.
  Walked w = walk_checked(regs_with(x.E + 0x10, {{SFU_X86_64_RSP, 0x3f10}}), x.config());
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{x.E + 0x10}));
  EXPECT_EQ(w.stop, SFU_STOP_NO_UNWIND_INFO);
}

TEST(WalkTrapFrames, AnInterruptedContextInsideTheEntryCodeIsNotCrossedAgain) {
  X86Trap x;
  x.mem.put(0x3f10 + 0x80, x.E + 0x8);  // the trap frame restores a PC inside the entry code
  x.mem.put(0x3f10 + 0x20, 0);          // and no frame pointer: only the layout could go on
  Walked w = walk_checked(x.start(), x.config());
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{x.H + 4, x.E + 0x20, x.E + 0x8}));
  ASSERT_EQ(w.frames.size(), 3u);
  EXPECT_EQ(w.frames[2].source, SFU_SOURCE_TRAP_FRAME);
  EXPECT_EQ(w.stop, SFU_STOP_NO_UNWIND_INFO);
}

TEST(WalkTrapFrames, SavedStackPointerMustBeSaved) {
  X86Trap x;
  x.layout.saved &= ~(1u << SFU_X86_64_RSP);
  Walked w = walk_checked(x.start(), x.config());
  EXPECT_EQ(w.frames.size(), 2u);
  EXPECT_EQ(w.stop, SFU_STOP_REGISTER_UNKNOWN);
}

TEST(WalkTrapFrames, SavedStackPointerBelowTheEntryFrame) {
  X86Trap x;
  x.mem.put(0x3f10 + 0x98, 0x3e00);  // "interrupted" on the same stack, below the handler
  Walked w = walk_checked(x.start(), x.config());
  EXPECT_EQ(w.stop, SFU_STOP_WRONG_DIRECTION);
}

TEST(WalkTrapFrames, SavedStackPointerEqualToTheEntryFrame) {
  X86Trap x;
  x.mem.put(0x3f10 + 0x98, 0x3f10);  // entry code pushes: the interrupted SP cannot be its own
  Walked w = walk_checked(x.start(), x.config());
  EXPECT_EQ(w.frames.size(), 2u);
  EXPECT_EQ(w.stop, SFU_STOP_WRONG_DIRECTION);
}

TEST(WalkTrapFrames, ASavedRegisterIsReadOnlyWhenARuleNeedsIt) {
  // The cursor keeps PC, SP and FP of the interrupted context; rbx's slot (here, a word no
  // declared stack holds) is never read, since no row of I names rbx.
  X86Trap x;
  x.layout.reg[3] = 0x10000;
  x.layout.saved |= 1u << 3;
  Walked w = walk_checked(x.start(), x.config());
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{x.H + 4, x.E + 0x20, x.I, x.J + 0x14}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
  expect_clean(x.mem);
}

TEST(WalkTrapFrames, InterruptedLeafMayKeepItsReturnAddressInTheLinkRegister) {
  // arm64: the interrupted function is a leaf whose RA is still in x30, saved by the entry code.
  const uint64_t N = kText, L = kText + 0x300, H = kText + 0x200, E = kText + 0x900;
  Registered reg{table_spec(3, SFU_ABI_AARCH64_LE,
                       {fde_spec(N, 0x40, {{0, {0}}, {0x20, {}}}), fde_spec(H, 0x20, {{0, {16, -8, -16}}}), fde_spec(L, 0x10, {{0, {0}}})}),
                 kText, kText + 0x1000};
  FakeMemory mem(false);
  mem.add_stack(kStackLo, kStackHi);
  sfu_trap_layout layout{};
  layout.pc = 0x100;
  layout.reg[SFU_ARM64_LR] = 0xf0;
  layout.reg[SFU_ARM64_SP] = 0xf8;
  layout.saved = (1u << SFU_ARM64_LR) | (1u << SFU_ARM64_SP);
  sfu_trap_entry entry{E, E + 0x40, &layout};
  mem.put(0x7e08, E + 0x10);  // H: CFA = 0x7e00 + 16, RA at CFA - 8
  const uint64_t regs_at = 0x7e10;
  mem.put(regs_at + 0x100, L + 4);
  mem.put(regs_at + 0xf0, kPac | (N + 0x24));
  mem.put(regs_at + 0xf8, 0x7f00);
  sfu_walk_config c = mem.config(SFU_ABI_AARCH64_LE);
  c.traps = &entry;
  c.num_traps = 1;
  Walked w = walk_checked(regs_with(H + 4, {{SFU_ARM64_SP, 0x7e00}}), c);
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{H + 4, E + 0x10, L + 4, N + 0x24}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
  // x30 is read from its slot when L's row needs it: an unreadable slot stops the walk there.
  mem.poison(regs_at + 0xf0);
  w = walk_checked(regs_with(H + 4, {{SFU_ARM64_SP, 0x7e00}}), c);
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{H + 4, E + 0x10, L + 4}));
  EXPECT_EQ(w.stop, SFU_STOP_READ_REFUSED);
}

}  // namespace

namespace {

// ---- the outermost frame: docs/porting.md's clean-end table, row by row -------------------------

// x86_64 boot code B without CFI (no row covers [kText, kText + 0x100)) calls its first C
// function K with RSP at `entry_sp` (K's CFA, and the SP of B's frame); K pushes RBP (B's) and
// calls the leaf L, where the walk starts. B's frame is the fallback's: what ends the walk is the
// RBP K saved, and where B's frame is.
struct X86Boot {
  const uint64_t B = kText, K = kText + 0x100, L = kText + 0x200;
  Registered reg{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(K, 0x40, {{0, {8}}, {1, {16, -16}}}), fde_spec(L, 0x10, {{0, {8}}})}),
                 kText, kText + 0x1000};
  FakeMemory mem{false};
  const uint64_t entry_sp;
  X86Boot(uint64_t sp, uint64_t rbp) : entry_sp(sp) {
    mem.add_stack(kStackLo, kStackHi);
    mem.put(sp - 8, B + 5);      // B: call K
    mem.put(sp - 16, rbp);       // K: push %rbp
    mem.put(sp - 24, K + 0x10);  // K: call L
  }
  sfu_regs in_leaf() const {
    return regs_with(L + 4, {{SFU_X86_64_RSP, entry_sp - 24}, {SFU_X86_64_RBP, entry_sp - 16}});
  }
  std::vector<uint64_t> chain() const { return {L + 4, K + 0x10, B + 5}; }
};

// Boot code without CFI that zeroed its frame pointer and called the first C function with SP
// `below_top` bytes under the top: end-of-stack (reliable) within 32 bytes of it, no-unwind-info
// (unreliable) further down. Boot: X86Boot or Arm64Boot.
template <class Boot>
void expect_zeroed_fp_call_ends_at_top(sfu_abi abi, std::initializer_list<uint64_t> below_tops) {
  for (uint64_t below_top : below_tops) {
    Boot b(kStackHi - below_top, 0);
    ASSERT_EQ(b.reg.error(), SFU_OK);
    Walked w = walk_checked(b.in_leaf(), b.mem.config(abi));
    EXPECT_EQ(w.pcs(), b.chain()) << below_top;
    ASSERT_EQ(w.frames.size(), 3u);
    EXPECT_EQ(w.frames[2].source, SFU_SOURCE_TABLE);
    EXPECT_EQ(w.frames[2].sp, kStackHi - below_top);
    EXPECT_TRUE(all_reliable(w));
    EXPECT_EQ(w.stop, below_top <= 32 ? SFU_STOP_END : SFU_STOP_NO_UNWIND_INFO) << below_top;
    expect_clean(b.mem);
  }
}

// The same boot code with a frame record of zeros pushed and pointed at before the call: a clean
// end where the record ends within 32 bytes of the top, a return address of 0 (zero-return-address)
// in the middle of the stack.
template <class Boot>
void expect_zero_record_ends_at_top(sfu_abi abi) {
  for (uint64_t record_end_below_top : {0, 32, 48}) {
    uint64_t record = kStackHi - record_end_below_top - 16;
    Boot b(record, record);
    b.mem.put(record, 0);
    b.mem.put(record + 8, 0);
    Walked w = walk_checked(b.in_leaf(), b.mem.config(abi));
    EXPECT_EQ(w.pcs(), b.chain()) << record_end_below_top;
    EXPECT_TRUE(all_reliable(w));
    EXPECT_EQ(w.stop, record_end_below_top <= 32 ? SFU_STOP_END : SFU_STOP_ZERO_RETURN_ADDRESS)
        << record_end_below_top;
    expect_clean(b.mem);
  }
}

TEST(CleanEnd, X86_64BootCodeWithoutCfiZeroedRbpAndCalledAtTheTop) {
  // `xor %ebp, %ebp; call K` with RSP within 32 bytes of the top: end-of-stack (reliable). Further
  // down, RBP 0 says nothing: no-unwind-info (unreliable). RBP left as it was: whatever it points
  // at is taken for a frame record (here no stack: cfa-outside-stacks).
  expect_zeroed_fp_call_ends_at_top<X86Boot>(SFU_ABI_AMD64_LE, {0, 16, 32, 40, 0x100});
  X86Boot b(kStackHi, 0x12340);
  Walked w = walk_checked(b.in_leaf(), b.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), b.chain());
  EXPECT_EQ(w.stop, SFU_STOP_CFA_OUTSIDE_STACK);
}

TEST(CleanEnd, X86_64BootCodeWithoutCfiEndsItsFrameChainWithAZeroRecord) {
  // `pushq $0; pushq $0; mov %rsp, %rbp; call K`: a frame record of zeros, which ends the walk
  // where it ends at the top (the caller's CFA, the record's end, within 32 bytes of it); further
  // down it is a return address of 0 in the middle of the stack: zero-return-address.
  expect_zero_record_ends_at_top<X86Boot>(SFU_ABI_AMD64_LE);
}

TEST(CleanEnd, X86_64CalledWithRspAtTheTopFromBootCodeWithCfi) {
  // The same call from boot code that has CFI (gas's default row for B: CFA = RSP + 8, return
  // address at CFA - 8): B's CFA lies 8 bytes past the stack. Push a 0 first (the gas path's
  // clean end, ReturnAddressZeroEndsCleanly) or give B an outermost row (sfu gen's).
  const uint64_t B = kText, K = kText + 0x100, L = kText + 0x200;
  Registered reg(table_spec(3, SFU_ABI_AMD64_LE,
                            {fde_spec(B, 0x40, {{0, {8}}}), fde_spec(K, 0x40, {{0, {8}}, {1, {16, -16}}}),
                             fde_spec(L, 0x10, {{0, {8}}})}),
                 kText, kText + 0x1000);
  ASSERT_EQ(reg.error(), SFU_OK);
  FakeMemory m(false);
  m.add_stack(kStackLo, kStackHi);
  m.put(kStackHi - 8, B + 5);
  m.put(kStackHi - 24, K + 0x10);
  Walked w = walk_checked(regs_with(L + 4, {{SFU_X86_64_RSP, kStackHi - 24}, {SFU_X86_64_RBP, kStackHi - 16}}),
                          m.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{L + 4, K + 0x10, B + 5}));
  EXPECT_EQ(w.stop, SFU_STOP_CFA_OUTSIDE_STACK);
  expect_clean(m);
}

// The same on arm64: B without CFI does `bl K` with SP at `entry_sp`; K's prologue
// (stp x29, x30, [sp, #-32]!) saves B's x29 and the return address into B.
struct Arm64Boot {
  const uint64_t B = kText, K = kText + 0x100, L = kText + 0x200;
  Registered reg{table_spec(3, SFU_ABI_AARCH64_LE,
                            {fde_spec(K, 0x40, {{0, {0}}, {4, {32, -24, -32}}}), fde_spec(L, 0x10, {{0, {0}}})}),
                 kText, kText + 0x1000};
  FakeMemory mem{false};
  const uint64_t entry_sp;
  Arm64Boot(uint64_t sp, uint64_t x29) : entry_sp(sp) {
    mem.add_stack(kStackLo, kStackHi);
    mem.put(sp - 32, x29);
    mem.put(sp - 24, B + 8);
  }
  sfu_regs in_leaf() const {
    return regs_with(L + 4, {{SFU_ARM64_SP, entry_sp - 32}, {SFU_ARM64_FP, entry_sp - 32}, {SFU_ARM64_LR, K + 0x14}});
  }
  std::vector<uint64_t> chain() const { return {L + 4, K + 0x14, B + 8}; }
};

TEST(CleanEnd, Arm64BootCodeWithoutCfiZeroedX29AndCalledAtTheTop) {
  // `mov x29, #0; bl K` with SP within 32 bytes of the top:
  // end-of-stack (reliable); further down: no-unwind-info.
  expect_zeroed_fp_call_ends_at_top<Arm64Boot>(SFU_ABI_AARCH64_LE, {0, 32, 48});
}

TEST(CleanEnd, Arm64BootCodeWithoutCfiEndsItsFrameChainWithAZeroRecord) {
  // `stp xzr, xzr, [sp, #-16]!; mov x29, sp; bl K` without CFI: AAPCS64's final frame record,
  // a clean end where it ends at the top, a damaged stack below.
  expect_zero_record_ends_at_top<Arm64Boot>(SFU_ABI_AARCH64_LE);
}

TEST(CleanEnd, Arm64ZeroRecordDescribedByCfiOnTheGasPath) {
  // gas 2.40's V1 table: _start N pushes a zero frame record at the very top and describes it
  // (CFA = SP + 16, x30 at CFA - 8, x29 at CFA - 16), then calls K: the return address read at
  // N's CFA, the top, is 0: end-of-stack (reliable). Zeroing x30 instead leaves N's row saying
  // "return address in x30", which no frame below the first may use: ra-not-recoverable.
  const uint64_t N = kText, K = kText + 0x100;
  for (bool record : {true, false}) {
    std::vector<FreSpec> n_rows = {{0, {0}}};
    if (record) n_rows.push_back({4, {16, -8, -16}});
    Registered reg(table_spec(1, SFU_ABI_AARCH64_LE, {fde_spec(N, 0x40, n_rows), fde_spec(K, 0x40, {{0, {0}}, {4, {32, -24, -32}}})}),
                   kText, kText + 0x1000);
    ASSERT_EQ(reg.error(), SFU_OK);
    FakeMemory m(false);
    m.add_stack(kStackLo, kStackHi);
    uint64_t n_sp = record ? kStackHi - 16 : kStackHi;  // N's SP at its call
    m.put(n_sp - 32, n_sp);                              // K's record: N's x29, the return into N
    m.put(n_sp - 24, N + 0xc);
    Walked w = walk_checked(regs_with(K + 0x10, {{SFU_ARM64_SP, n_sp - 32}, {SFU_ARM64_FP, n_sp - 32}, {SFU_ARM64_LR, 0}}),
                            m.config(SFU_ABI_AARCH64_LE));
    EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{K + 0x10, N + 0xc})) << record;
    EXPECT_TRUE(all_reliable(w));
    EXPECT_EQ(w.stop, record ? SFU_STOP_END : SFU_STOP_RA_NOT_RECOVERABLE) << record;
  }
}

TEST(CleanEnd, S390xBootCodeWithoutCfiNeedsTheBackChain) {
  // s390x boot code B without CFI: `brasl %r14, K` with r15 160 bytes below the top. K saves r14
  // (the return into B) and r11 in B's save area; B's frame has no row, and without
  // CONFIG_SFU_S390X_BACK_CHAIN (the default) nothing finds its caller: no-unwind-info, wherever
  // B's frame is. (With the back chain: MinimalConfig.S390xBackChainZeroEndsTheWalkOnlyAtTheTop.)
  const uint64_t B = kText, K = kText + 0x100, L = kText + 0x200;
  Registered reg(table_spec(2, SFU_ABI_S390X_BE,
                            {fde_spec(K, 0x40, {{0, {0}}, {6, {20, -48, -72}}}), fde_spec(L, 0x10, {{0, {0}}})}),
                 kText, kText + 0x1000);
  ASSERT_EQ(reg.error(), SFU_OK);
  FakeMemory m(true);
  m.add_stack(kStackLo, kStackHi);
  const uint64_t b_sp = kStackHi - 160;
  m.put(b_sp, 0);              // B's back chain
  m.put(b_sp + 112, B + 6);    // K: stmg saved r14 and r11 in B's save area
  m.put(b_sp + 88, 0);
  Walked w = walk_checked(regs_with(L + 4, {{SFU_S390X_SP, b_sp - 160}, {SFU_S390X_FP, 0}, {SFU_S390X_RA, K + 0x10}}),
                          m.config(SFU_ABI_S390X_BE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{L + 4, K + 0x10, B + 6}));
  ASSERT_EQ(w.frames.size(), 3u);
  EXPECT_EQ(w.frames[2].sp, b_sp);
  EXPECT_EQ(w.stop, sfu::config::kBackChainFallback ? SFU_STOP_END : SFU_STOP_NO_UNWIND_INFO);
  expect_clean(m);
}

}  // namespace

namespace {

// ---- a call through a NULL function pointer -----------------------------------------------------

// The frame stopped at PC 0 is shown ([regs] or [trap], no module, unreliable), and the rule of a
// function's first instruction finds its caller: x86_64 the return address at SP, arm64 x30,
// s390x r14. Everything from the PC-0 frame on is unreliable (a jump through NULL leaves no return
// address of its own: the rule would then give the caller's caller), whatever stops the walk.
void expect_null_frame(const sfu_frame &f, uint8_t source) {
  EXPECT_EQ(f.pc, 0u);
  EXPECT_EQ(f.module, nullptr);
  EXPECT_EQ(f.source, source);
  EXPECT_FALSE(f.reliable);
}

TEST(NullCall, X86_64FromTheStartRegisters) {
  // B called through NULL at B+0x1b: the return address B+0x20 at RSP, RBP still B's.
  X86Chain x;
  Walked w = walk_checked(regs_with(0, {{SFU_X86_64_RSP, 0x7f08}, {SFU_X86_64_RBP, 0x7fa0}}), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{0, x.B + 0x20, x.A + 0x30}));
  ASSERT_EQ(w.frames.size(), 3u);
  expect_null_frame(w.frames[0], SFU_SOURCE_REGISTERS);
  EXPECT_EQ(w.frames[0].sp, 0x7f08u);
  EXPECT_EQ(w.frames[1].source, SFU_SOURCE_TABLE);
  EXPECT_EQ(w.frames[1].sp, 0x7f10u);  // the call's return address popped
  EXPECT_EQ(w.frames[1].cfa, 0x7f10u);
  EXPECT_STREQ(w.frames[1].module->name, "test");
  EXPECT_FALSE(w.frames[1].reliable);
  EXPECT_FALSE(w.frames[2].reliable);
  EXPECT_EQ(w.stop, SFU_STOP_END);  // A's outermost row; the trace is not vouched for
  expect_clean(x.mem);
}

TEST(NullCall, X86_64AcrossATrapFrame) {
  // I called through NULL: the entry code saved RIP 0 and the RSP where the return address into
  // J lies. The walk crosses it into the PC-0 frame and goes on to J, as a walk from the same
  // registers does.
  X86Trap x;
  x.mem.put(0x3f10 + 0x80, 0);
  Walked w = walk_checked(x.start(), x.config());
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{x.H + 4, x.E + 0x20, 0, x.J + 0x14}));
  ASSERT_EQ(w.frames.size(), 4u);
  EXPECT_TRUE(w.frames[1].reliable);
  expect_null_frame(w.frames[2], SFU_SOURCE_TRAP_FRAME);
  EXPECT_EQ(w.frames[2].sp, 0x7f00u);
  EXPECT_EQ(w.frames[2].stack_kind, SFU_STACK_TASK);
  EXPECT_EQ(w.frames[3].source, SFU_SOURCE_TABLE);
  EXPECT_EQ(w.frames[3].sp, 0x7f08u);
  EXPECT_FALSE(w.frames[3].reliable);
  EXPECT_EQ(w.stop, SFU_STOP_END);
  expect_clean(x.mem);
  // The same registers as a start: the same frames from the PC-0 frame on, but its source.
  Walked r = walk_checked(regs_with(0, {{SFU_X86_64_RSP, 0x7f00}, {SFU_X86_64_RBP, 0x7fc0}}), x.config());
  ASSERT_EQ(r.frames.size(), 2u);
  expect_null_frame(r.frames[0], SFU_SOURCE_REGISTERS);
  for (size_t i = 0; i < 2; i++) {
    EXPECT_EQ(r.frames[i].pc, w.frames[i + 2].pc);
    EXPECT_EQ(r.frames[i].sp, w.frames[i + 2].sp);
    EXPECT_EQ(r.frames[i].cfa, w.frames[i + 2].cfa);
    EXPECT_EQ(r.frames[i].reliable, w.frames[i + 2].reliable);
  }
  EXPECT_EQ(r.stop, w.stop);
}

TEST(NullCall, X86_64WhatTheReturnAddressLeadsTo) {
  // The return address at SP is read as any other: outside the known text, the last frame; 0 in
  // the middle of the stack, a damaged stack; unreadable, read-refused.
  X86Chain x;
  x.mem.put(0x7e00, 0x500000);
  Walked w = walk_checked(regs_with(0, {{SFU_X86_64_RSP, 0x7e00}}), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{0, 0x500000}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
  x.mem.put(0x7e00, 0);
  w = walk_checked(regs_with(0, {{SFU_X86_64_RSP, 0x7e00}}), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{0}));
  EXPECT_EQ(w.stop, SFU_STOP_ZERO_RETURN_ADDRESS);
  x.mem.poison(0x7e00);
  w = walk_checked(regs_with(0, {{SFU_X86_64_RSP, 0x7e00}}), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{0}));
  EXPECT_EQ(w.stop, SFU_STOP_READ_REFUSED);
  // RSP in the stack's last word: the caller's SP would lie past it.
  w = walk_checked(regs_with(0, {{SFU_X86_64_RSP, kStackHi}}), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{0}));
  EXPECT_EQ(w.stop, SFU_STOP_CFA_OUTSIDE_STACK);
}

TEST(NullCall, PcZeroInRegisteredTextIsAnOrdinaryPc) {
  // An image linked at 0 (firmware, a test image): PC 0 is a function's first instruction, looked
  // up in its table and vouched for as any other.
  Registered reg{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(0, 0x20, {{0, {8}}}), fde_spec(0x100, 0x40, {{0, {8}}, {0x10, {}}})}),
                 0, 0x1000};
  ASSERT_EQ(reg.error(), SFU_OK);
  FakeMemory m(false);
  m.add_stack(kStackLo, kStackHi);
  m.put(0x7f00, 0x114);
  Walked w = walk_checked(regs_with(0, {{SFU_X86_64_RSP, 0x7f00}}), m.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{0, 0x114}));
  ASSERT_EQ(w.frames.size(), 2u);
  EXPECT_EQ(w.frames[0].module, &reg.module());
  EXPECT_TRUE(all_reliable(w));
  EXPECT_EQ(w.stop, SFU_STOP_END);
}

TEST(NullCall, Arm64FromTheStartRegisters) {
  // M called through NULL (blr) at M+0x10: the return address in x30, SP and x29 still M's.
  Arm64Chain a;
  Walked w = walk_checked(regs_with(0, {{SFU_ARM64_SP, 0x7f00}, {SFU_ARM64_FP, 0x7f00}, {SFU_ARM64_LR, a.M + 0x14}}),
                          a.mem.config(SFU_ABI_AARCH64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{0, a.M + 0x14, a.N + 0x24}));
  ASSERT_EQ(w.frames.size(), 3u);
  expect_null_frame(w.frames[0], SFU_SOURCE_REGISTERS);
  EXPECT_EQ(w.frames[1].sp, 0x7f00u);  // a call moves no SP on arm64
  EXPECT_EQ(w.frames[1].cfa, 0x7f00u);
  EXPECT_EQ(w.frames[1].source, SFU_SOURCE_TABLE);
  EXPECT_FALSE(w.frames[1].reliable);
  EXPECT_EQ(w.frames[2].sp, 0x7f20u);
  EXPECT_EQ(w.stop, SFU_STOP_END);
  expect_clean(a.mem);
  // Without x30 the caller cannot be found.
  sfu_regs r = regs_with(0, {{SFU_ARM64_SP, 0x7f00}, {SFU_ARM64_FP, 0x7f00}});
  w = walk_checked(r, a.mem.config(SFU_ABI_AARCH64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{0}));
  EXPECT_EQ(w.stop, SFU_STOP_REGISTER_UNKNOWN);
}

// arm64 entry code E saved the interrupted x30, SP and PC; H is the C handler it called.
struct Arm64Trap {
  const uint64_t N = kText, M = kText + 0x100, H = kText + 0x200, E = kText + 0x900;
  Registered reg{table_spec(3, SFU_ABI_AARCH64_LE,
                            {fde_spec(N, 0x40, {{0, {0}}, {0x20, {}}}), fde_spec(M, 0x40, {{0, {0}}, {4, {32, -24, -32}}}),
                             fde_spec(H, 0x20, {{0, {16, -8, -16}}})}),
                 kText, kText + 0x1000};
  FakeMemory mem{false};
  sfu_trap_layout layout{};
  sfu_trap_entry entry{E, E + 0x40, &layout};
  static constexpr uint64_t kRegsAt = 0x7e10;
  Arm64Trap() {
    mem.add_stack(kStackLo, kStackHi);
    layout.pc = 0x100;
    layout.reg[SFU_ARM64_FP] = 0xe8;
    layout.reg[SFU_ARM64_LR] = 0xf0;
    layout.reg[SFU_ARM64_SP] = 0xf8;
    layout.saved = (1u << SFU_ARM64_FP) | (1u << SFU_ARM64_LR) | (1u << SFU_ARM64_SP);
    mem.put(0x7e08, E + 0x10);  // H: CFA = 0x7e00 + 16, RA at CFA - 8
    mem.put(kRegsAt + 0x100, 0);
    mem.put(kRegsAt + 0xe8, 0x7f40);
    mem.put(kRegsAt + 0xf0, M + 0x14);  // M's blr through NULL
    mem.put(kRegsAt + 0xf8, 0x7f40);
    mem.put(0x7f48, N + 0x24);  // M's frame record
    mem.put(0x7f40, 0x7f80);
  }
  sfu_walk_config config() {
    sfu_walk_config c = mem.config(SFU_ABI_AARCH64_LE);
    c.traps = &entry;
    c.num_traps = 1;
    return c;
  }
  sfu_regs start() const { return regs_with(H + 4, {{SFU_ARM64_SP, 0x7e00}}); }
};

TEST(NullCall, Arm64AcrossATrapFrame) {
  Arm64Trap a;
  ASSERT_EQ(a.reg.error(), SFU_OK);
  Walked w = walk_checked(a.start(), a.config());
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{a.H + 4, a.E + 0x10, 0, a.M + 0x14, a.N + 0x24}));
  ASSERT_EQ(w.frames.size(), 5u);
  EXPECT_TRUE(w.frames[1].reliable);
  expect_null_frame(w.frames[2], SFU_SOURCE_TRAP_FRAME);
  EXPECT_EQ(w.frames[2].sp, 0x7f40u);
  EXPECT_EQ(w.frames[3].sp, 0x7f40u);
  EXPECT_EQ(w.frames[4].sp, 0x7f60u);
  EXPECT_FALSE(w.frames[4].reliable);
  EXPECT_EQ(w.stop, SFU_STOP_END);
  expect_clean(a.mem);
  // x30 not saved by the entry code: the PC-0 frame is the last.
  a.layout.saved &= ~(1u << SFU_ARM64_LR);
  w = walk_checked(a.start(), a.config());
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{a.H + 4, a.E + 0x10, 0}));
  EXPECT_EQ(w.stop, SFU_STOP_REGISTER_UNKNOWN);
}

TEST(NullCall, S390xFromTheStartRegisters) {
  // P called through NULL (basr %r14, %r1) at P+0x10: the return address in r14, r15 still P's.
  S390xChain s;
  Walked w = walk_checked(regs_with(0, {{SFU_S390X_SP, 0x7c00}, {SFU_S390X_FP, 0x7c80}, {SFU_S390X_RA, s.P + 0x12}}),
                          s.mem.config(SFU_ABI_S390X_BE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{0, s.P + 0x12, s.Q + 0x24}));
  ASSERT_EQ(w.frames.size(), 3u);
  expect_null_frame(w.frames[0], SFU_SOURCE_REGISTERS);
  EXPECT_EQ(w.frames[1].sp, 0x7c00u);  // a call moves no SP on s390x: CFA = SP + 160
  EXPECT_EQ(w.frames[1].cfa, 0x7ca0u);
  EXPECT_FALSE(w.frames[2].reliable);
  EXPECT_EQ(w.stop, SFU_STOP_END);
  expect_clean(s.mem);
}

TEST(NullCall, S390xAcrossATrapFrame) {
  // Q <- P, which called through NULL; the program-check entry E saved r11, r14, r15 and the PSW
  // address (0) on the exception stack and called H.
  const uint64_t Q = kText, P = kText + 0x100, H = kText + 0x200, E = kText + 0x900;
  Registered reg(table_spec(2, SFU_ABI_S390X_BE,
                            {fde_spec(Q, 0x40, {{0, {0}}, {0x20, {}}}), fde_spec(P, 0x40, {{0, {0}}, {6, {20, -48, -72}}}),
                             fde_spec(H, 0x20, {{0, {20, -48, -72}}})}),
                 kText, kText + 0x1000);
  ASSERT_EQ(reg.error(), SFU_OK);
  FakeMemory m(true);
  m.add_stack(0x3000, 0x4000, SFU_STACK_EXCEPTION);
  m.add_stack(kStackLo, kStackHi, SFU_STACK_TASK);
  sfu_trap_layout layout{};
  layout.pc = 0x120;  // the registers above the 160-byte save area H stores its own into
  layout.reg[SFU_S390X_FP] = 0xa0 + 0x58;
  layout.reg[SFU_S390X_RA] = 0xa0 + 0x70;
  layout.reg[SFU_S390X_SP] = 0xa0 + 0x78;
  layout.saved = (1u << SFU_S390X_FP) | (1u << SFU_S390X_RA) | (1u << SFU_S390X_SP);
  sfu_trap_entry entry{E, E + 0x40, &layout};
  m.put(0x3f10, E + 0x10);  // H: CFA = 0x3e00 + 320 = 0x3f40, RA at CFA - 48
  const uint64_t regs_at = 0x3ea0;  // E's SP when it called H: H's CFA - 160
  m.put(regs_at + 0x120, 0);
  m.put(regs_at + 0xa0 + 0x58, 0x7c80);
  m.put(regs_at + 0xa0 + 0x70, P + 0x12);
  m.put(regs_at + 0xa0 + 0x78, 0x7c00);
  m.put(0x7d10, Q + 0x24);  // P: CFA = 0x7c00 + 320 = 0x7d40; RA at CFA - 48
  sfu_walk_config c = m.config(SFU_ABI_S390X_BE);
  c.traps = &entry;
  c.num_traps = 1;
  // The old PSW holds 0 where the instruction at 0 was nullified, and the address after it (2, 4
  // or 6 bytes long) where it was suppressed: opcode 0x00, what most kernels' lowcore holds at 0,
  // is an operation exception with the PSW at 2. Each is the stop at address 0, shown as saved.
  for (uint64_t psw : {0, 2, 4, 6}) {
    m.put(regs_at + 0x120, psw);
    Walked w = walk_checked(regs_with(H + 4, {{SFU_S390X_SP, 0x3e00}}), c);
    EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{H + 4, E + 0x10, psw, P + 0x12, Q + 0x24})) << psw;
    ASSERT_EQ(w.frames.size(), 5u);
    EXPECT_TRUE(w.frames[1].reliable);
    EXPECT_EQ(w.frames[2].source, SFU_SOURCE_TRAP_FRAME);
    EXPECT_EQ(w.frames[2].module, nullptr);
    EXPECT_FALSE(w.frames[2].reliable);
    EXPECT_EQ(w.frames[2].sp, 0x7c00u);
    EXPECT_EQ(w.frames[3].sp, 0x7c00u);
    EXPECT_FALSE(w.frames[4].reliable);
    EXPECT_EQ(w.stop, SFU_STOP_END);
  }
  // Past a first instruction at 0 (8: no instruction is longer than 6 bytes), or odd: no stop at
  // address 0, the last frame.
  for (uint64_t psw : {8, 1}) {
    m.put(regs_at + 0x120, psw);
    Walked w = walk_checked(regs_with(H + 4, {{SFU_S390X_SP, 0x3e00}}), c);
    EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{H + 4, E + 0x10, psw})) << psw;
    EXPECT_EQ(w.stop, SFU_STOP_END);
  }
  EXPECT_TRUE(m.stray_reads().empty());
}

TEST(NullCall, OnlyAddressZeroItselfOnX86_64AndArm64) {
  // x86_64 and arm64 fault at the fetch from 0 with the PC 0; a PC of 2 in no text is some other
  // stop, shown as the last frame.
  {
    X86Chain x;
    Walked w = walk_checked(regs_with(2, {{SFU_X86_64_RSP, 0x7f08}, {SFU_X86_64_RBP, 0x7fa0}}), x.mem.config(SFU_ABI_AMD64_LE));
    EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{2}));
    EXPECT_EQ(w.stop, SFU_STOP_END);
  }
  Arm64Chain a;
  ASSERT_EQ(a.reg.error(), SFU_OK);
  Walked w = walk_checked(regs_with(4, {{SFU_ARM64_SP, 0x7f00}, {SFU_ARM64_FP, 0x7f00}, {SFU_ARM64_LR, a.M + 0x14}}),
                          a.mem.config(SFU_ABI_AARCH64_LE));
  EXPECT_EQ(w.pcs(), (std::vector<uint64_t>{4}));
  EXPECT_EQ(w.stop, SFU_STOP_END);
}

}  // namespace

namespace {

// ---- the documents' lists of reliable ends name their tests -------------------------------------

// The rows of the first table after the line that starts with `marker` in docs/FILE, each row's
// last column.
std::vector<std::string> last_column_of_table_after(const char *file, const std::string &marker) {
  std::ifstream in(std::string(SFU_SOURCE_DIR) + "/docs/" + file);
  std::vector<std::string> rows;
  std::string line;
  bool after = false, in_table = false;
  int header_lines = 0;
  while (std::getline(in, line)) {
    if (!after) {
      after = line.rfind(marker, 0) == 0;
      continue;
    }
    bool row = line.rfind("| ", 0) == 0;
    if (in_table && !row) break;
    if (!row) continue;
    in_table = true;
    if (header_lines < 2) {  // the header and its separator
      header_lines++;
      continue;
    }
    std::string cells = line.substr(0, line.find_last_of('|'));
    rows.push_back(cells.substr(cells.find_last_of('|') + 1));
  }
  return rows;
}

// Each row names at least one test, and each test it names exists (as "Suite.Test").
void expect_rows_name_tests(const std::vector<std::string> &rows, const char *where) {
  const std::set<std::string> tests = test_names_under(std::string(SFU_SOURCE_DIR) + "/tests");
  ASSERT_GT(tests.size(), 100u);
  const std::regex name_re(R"(`(\w+\.\w+)`)");
  for (const std::string &row : rows) {
    int named = 0;
    for (std::sregex_iterator it(row.begin(), row.end(), name_re), end; it != end; ++it, ++named)
      EXPECT_TRUE(tests.count((*it)[1].str())) << (*it)[1].str() << " (" << where << ") is no test in tests/";
    EXPECT_GT(named, 0) << where << ": a row without a test: " << row;
  }
}

TEST(Walk, EveryReliableEndNamesTestsThatExist) {
  std::vector<std::string> rows = last_column_of_table_after("errors.md", "## How a walk ends reliably");
  EXPECT_EQ(rows.size(), 7u);
  expect_rows_name_tests(rows, "docs/errors.md, How a walk ends reliably");
}

TEST(CleanEnd, EveryRowOfThePortingGuidesTableNamesTestsThatExist) {
  std::vector<std::string> rows = last_column_of_table_after("porting.md", "**A clean end.**");
  EXPECT_EQ(rows.size(), 5u);
  expect_rows_name_tests(rows, "docs/porting.md, the clean-end table");
}

}  // namespace
