/* Scenario 7: walks over corrupted frames must stop with the reason the walker gives for that
 * corruption, and the kernel goes on. Built with frame pointers (kernel.mk), so each function
 * finds its own return-address and saved-RBP slots at RBP + 8 and RBP; each corrupts a slot,
 * has a callee take the trace, and puts the slot back before it returns. */
#include "x86.h"

static const char *trace_name, *trace_expect;

/* The callee that walks: up through its caller's corrupted frame. */
static noipa void corrupt_probe(void) {
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  kernel_trace(trace_name, trace_expect, &regs);
}

/* (a) The return address overwritten with `bad`. A return address in no registered text is
 * shown as the last frame and the walk ends there, unreliable (docs/errors.md). The slot is
 * volatile: gcc would otherwise drop the restore of a slot it believes nothing else reads. */
static noipa void ra_victim(uint64_t bad) {
  volatile uint64_t *slot = (volatile uint64_t *)__builtin_frame_address(0) + 1;
  uint64_t saved = *slot;
  *slot = bad;
  corrupt_probe();
  *slot = saved;
}

/* (b) The saved RBP of fp_victim, which fp_middle's frame holds, overwritten: fp_victim's CFA
 * (RBP + 16) is computed from it. */
enum bad_fp { FP_OUTSIDE_STACKS, FP_BELOW_SP };

static noipa void fp_middle(enum bad_fp how) {
  volatile uint64_t *slot = (volatile uint64_t *)__builtin_frame_address(0);
  uint64_t saved = *slot;
  if (how == FP_OUTSIDE_STACKS)
    *slot = (uint64_t)(uintptr_t)&trace_name; /* .bss: in no declared stack */
  else
    *slot = (uint64_t)(uintptr_t)slot - 0x200; /* on the task stack, below this frame */
  corrupt_probe();
  *slot = saved;
}

static noipa void fp_victim(enum bad_fp how) {
  fp_middle(how);
  __asm__ volatile("" ::: "memory");
}

int scenario_corrupt(void) {
  /* A return address in no known text is shown as the last frame ('?': in no function), the
   * walk ends there, and the trace is not vouched for. */
  trace_name = "7-corrupt/ra-outside-text";
  trace_expect = "corrupt_probe ra_victim ? | end-of-stack unreliable";
  ra_victim(0xdead0000); /* mapped memory, but no code */

  trace_name = "7-corrupt/ra-non-canonical";
  trace_expect = "corrupt_probe ra_victim ? | end-of-stack unreliable";
  ra_victim(0xdeadbeefdeadbeefull);

  trace_name = "7-corrupt/fp-outside-stacks";
  trace_expect = "corrupt_probe fp_middle fp_victim | cfa-outside-stacks";
  fp_victim(FP_OUTSIDE_STACKS);

  trace_name = "7-corrupt/fp-below-sp";
  trace_expect = "corrupt_probe fp_middle fp_victim | stack-going-wrong-way";
  fp_victim(FP_BELOW_SP);
  return 0;
}
