// Test helper: the x86_64 call chain the walker and printer tests share, laid out in fake memory.
// C (a leaf after push %rbp; its epilogue row at 0x18 still names the popped slot) is called by
// B (an rbp-based frame), called by A, whose return point lies in an outermost row.
#pragma once

#include "support/fake_machine.h"

namespace sfu::test {

constexpr uint64_t kText = 0x100000;
constexpr uint64_t kStackLo = 0x7000, kStackHi = 0x8000;

struct X86Chain {
  const uint64_t A = kText, B = kText + 0x100, C = kText + 0x200;
  Registered reg;
  FakeMemory mem{false};

  explicit X86Chain(const char *name = "test", ModuleExtras extras = {})
      : reg(table_spec(3, SFU_ABI_AMD64_LE,
                       {fde_spec(A, 0x40, {{0, {8}}, {4, {40}}, {0x20, {}}}),
                        fde_spec(B, 0x40, {{0, {8}}, {1, {16, -16}}, {4, {16, -16}, false}, {0x3f, {8, -16}}}),
                        fde_spec(C, 0x20, {{0, {8}}, {1, {16, -16}}, {0x18, {8, -16}}})}),
            kText, kText + 0x1000, name, std::move(extras)) {
    mem.add_stack(kStackLo, kStackHi);
    mem.put(0x7f08, B + 0x20);  // C at C+0x10: CFA = rsp + 16; RA at CFA - 8
    mem.put(0x7f00, 0x7fa0);    // C: saved rbp (B's) at CFA - 16
    mem.put(0x7fa8, A + 0x30);  // B at B+0x20: CFA = rbp + 16 = 0x7fb0; RA at 0x7fa8
    mem.put(0x7fa0, 0);
  }
  sfu_regs start() { return regs_with(C + 0x10, {{SFU_X86_64_RSP, 0x7f00}, {SFU_X86_64_RBP, 0x7fa0}}); }
};

}  // namespace sfu::test
