/* Scenario 3: software step (MDSCR_EL1.SS) through a call chain. After every instruction a step
 * exception stops the code; the handler walks from its registers and prints the trace for the
 * runner's @callers check, which also requires each walk to end cleanly in _start. (The
 * stepped chain is this file's own: run_chain makes a tail call, which @callers cannot follow.) */
#include "arm64.h"

#define MDSCR_SS (1u << 0)
#define MDSCR_KDE (1u << 13) /* debug exceptions at EL1 itself: software step needs them */
#define BRK_STEP_BEGIN 0x100
#define BRK_STEP_END 0x101

static unsigned steps;

/* The stepped chain: a leaf, a frame with locals, a variable-length array (x29-based CFA), and
 * recursion. No tail calls (the file is built with -fno-optimize-sibling-calls), so every return
 * address follows a call into the frame below it. */
__attribute__((noipa)) static uint64_t step_leaf(uint64_t x) { return x * 3 + 1; }

__attribute__((noipa)) static uint64_t step_vla(uint64_t n) {
  volatile uint64_t v[n];
  v[0] = n;
  return step_leaf(v[0]);
}

__attribute__((noipa)) static uint64_t step_recurse(uint64_t depth) {
  if (depth == 0) return step_vla(2);
  return step_recurse(depth - 1) + depth;
}

__attribute__((noipa)) static uint64_t step_frame(uint64_t seed) {
  volatile uint64_t local[4] = {seed, seed + 1, seed + 2, seed + 3};
  return step_recurse(2) + local[3];
}

__attribute__((noipa)) static void stepped(void) {
  volatile uint64_t sink = step_frame(7);
  (void)sink;
}

static int on_step(struct trap_frame *frame, uint64_t esr) {
  unsigned ec = ESR_EC(esr);
  if (ec == EC_BRK && ESR_BRK_IMM(esr) == BRK_STEP_BEGIN) {
    write_sysreg(mdscr_el1, MDSCR_KDE | MDSCR_SS);
    isb();
    frame->elr += 4;
    frame->spsr = (frame->spsr | SPSR_SS) & ~(uint64_t)SPSR_D;
    return 1;
  }
  if (ec == EC_SSTEP_CUR) {
    struct sfu_regs regs;
    trap_regs(frame, &regs);
    kernel_trace_numbered("3-single-step/", steps, "@callers _start | end-of-stack", &regs);
    steps++;
    frame->spsr |= SPSR_SS; /* one more instruction */
    return 1;
  }
  if (ec == EC_BRK && ESR_BRK_IMM(esr) == BRK_STEP_END) {
    write_sysreg(mdscr_el1, 0);
    isb();
    frame->elr += 4;
    frame->spsr = (frame->spsr & ~(uint64_t)SPSR_SS) | SPSR_D;
    return 1;
  }
  return 0;
}

int scenario_single_step(void) {
  write_sysreg(oslar_el1, 0); /* the OS lock, if set, keeps debug exceptions off */
  isb();
  set_sync_hook(on_step);
  __asm__ volatile("brk %0" ::"i"(BRK_STEP_BEGIN) : "memory");
  stepped();
  __asm__ volatile("brk %0" ::"i"(BRK_STEP_END) : "memory");
  set_sync_hook(0);
  return steps == 0; /* no step taken: no trace to check */
}
