/* s390x test kernel, scenario 3: single-stepping with PER instruction-fetch events, a walk
 * before every instruction of the .text.step functions here (kernel.ld keeps them together).
 *
 * CR9 asks for an event at each instruction fetched in [CR10, CR11] and the PSW's PER bit turns
 * it on. The events are the nullifying kind: raised before the instruction runs, the old PSW at
 * the instruction itself. To let the instruction run, each event narrows the range to every
 * address but its own (CR10 > CR11 wraps around), so the next event is the next instruction,
 * wherever the code went; the first one outside the chain (its return) turns PER off again.
 *
 * Two QEMU 7.2 (TCG) faults shape this. Events raised after the instruction get a wrong old PSW
 * for branches (the address after the branch, not its target: returning skips the call), hence
 * the nullifying kind. And a nullifying event loses the condition code that the instruction
 * before it set when both sit in one translation block (the next conditional branch goes the
 * wrong way), hence -singlestep in kernel.mk: one instruction per block.
 *
 * Built with -fno-optimize-sibling-calls (kernel.mk): every caller frame sits at a call. */
#include <stdint.h>

#include "scenarios.h"
#include "traps.h"

#define STEPPED __attribute__((noinline, section(".text.step")))

extern char __step_start[], __step_end[]; /* kernel.ld */

static volatile uint64_t sink;

STEPPED static uint64_t step_leaf(uint64_t x) { return x * 3 + 1; }

STEPPED static uint64_t step_recurse(unsigned depth, uint64_t x) {
  if (depth == 0) return step_leaf(x);
  return step_recurse(depth - 1, x + depth) ^ depth;
}

STEPPED static uint64_t step_vla(unsigned n) {
  volatile uint64_t v[n];
  for (unsigned i = 0; i < n; i++) v[i] = i;
  return step_recurse(2, v[n - 1]) + v[0];
}

STEPPED static uint64_t step_frame(uint64_t a, uint64_t b) {
  uint64_t x = step_leaf(a);
  uint64_t y = step_vla(2 + (unsigned)(b & 1));
  return x + y + a * b;
}

STEPPED static void step_chain(uint64_t seed) { sink = step_frame(seed, seed + 1); }

static unsigned steps;

struct per_controls {
  uint64_t cr9, cr10, cr11;
};

static void load_per(const struct per_controls *c) {
  __asm__ volatile("lctlg %%c9,%%c11,%0" ::"Q"(*c) : "memory");
}

/* The event before the instruction at the old PSW: walk, then let that one instruction run. */
static void step_event(struct trap_frame *tf) {
  uint64_t pc = tf->psw_addr;
  if (pc < (uintptr_t)__step_start || pc >= (uintptr_t)__step_end) {
    tf->psw_mask &= ~PSW_MASK_PER; /* back in the caller: done */
    return;
  }
  struct sfu_regs regs;
  trap_regs(tf, &regs);
  kernel_trace_numbered("3-single-step/", steps++, "@callers _start | end-of-stack", &regs);
  const struct per_controls all_but_this = {CR9_IFETCH | CR9_IFETCH_NULLIFY, pc + 1, pc - 1};
  load_per(&all_but_this);
}

int scenario_single_step(void) {
  const struct per_controls chain = {CR9_IFETCH | CR9_IFETCH_NULLIFY, (uintptr_t)__step_start,
                                     (uintptr_t)__step_end - 1};
  const struct per_controls off = {0, 0, 0};
  uint8_t old_mask;
  step_chain(7); /* once as is, for the result stepping must not change */
  uint64_t want = sink;
  sink = 0;
  steps = 0;
  per_event_hook = step_event;
  load_per(&chain);
  __asm__ volatile("stosm %0,%1" : "=Q"(old_mask) : "i"(PSW_MASK_PER >> 56) : "memory");
  step_chain(7);
  __asm__ volatile("stnsm %0,%1" : "=Q"(old_mask) : "i"(~(PSW_MASK_PER >> 56) & 0xff) : "memory");
  load_per(&off);
  per_event_hook = 0;
  if (steps == 0 || sink != want) {
    kputs(steps ? "sfu-error 3-single-step: stepping changed what the chain computed\n"
                : "sfu-error 3-single-step: no PER event came\n");
    return 1;
  }
  return 0;
}
