// sfu_capture_here (arch/x86_64/capture.S on the host): the caller's registers at its return
// point. The target versions are assembled by `make ARCH=arm64|s390x` and run in the QEMU tests.
#include <gtest/gtest.h>

#include "sfu/unwind.h"

namespace {

struct Captured {
  sfu_regs regs;
  uint64_t frame;  // this function's frame address, for comparison
  uint64_t self;
};

__attribute__((noinline)) Captured capture_in_a_known_function() {
  Captured c{};
  sfu_capture_here(&c.regs);
  c.frame = reinterpret_cast<uint64_t>(__builtin_frame_address(0));
  c.self = reinterpret_cast<uint64_t>(&capture_in_a_known_function);
  return c;
}

TEST(Capture, CallersRegistersAtItsReturnPoint) {
  Captured c = capture_in_a_known_function();
  // The PC is inside the calling function, just after the call.
  EXPECT_GT(c.regs.pc, c.self);
  EXPECT_LT(c.regs.pc, c.self + 256);
  // SP, RBP and the callee-saved registers are marked; nothing else.
  uint32_t want = (1u << 3) | (1u << SFU_X86_64_RBP) | (1u << SFU_X86_64_RSP) | (0xfu << 12);
  EXPECT_EQ(c.regs.valid, want);
  // The SP is the caller's own, below its frame address (tests are built with frame pointers).
  EXPECT_LT(c.regs.r[SFU_X86_64_RSP], c.frame);
  EXPECT_GT(c.regs.r[SFU_X86_64_RSP] + 4096, c.frame);
  EXPECT_EQ(c.regs.r[SFU_X86_64_RBP], c.frame);
}

}  // namespace
