/* s390x test kernel, scenario 7: corrupted stacks. The victims (corrupt.S) break their own frame
 * and call corrupt_probe, which walks from its own registers: the walk must stop at the broken
 * frame with the guard's named reason, and the kernel carries on. */
#include <stdint.h>

#include "kernel.h"
#include "scenarios.h"

void corrupt_ra_victim(const char *name, const char *expect, uint64_t garbage);
void corrupt_cfa_victim(const char *name, const char *expect, uint64_t garbage);
void corrupt_leaf(void);

__attribute__((noinline)) void corrupt_probe(const char *name, const char *expect) {
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  kernel_trace(name, expect, &regs);
}

int scenario_corrupt(void) {
  /* A return address in no code: shown as the last frame ('?': in no function); the walk ends
   * there, as at any PC outside every registered text, and the trace is unreliable. */
  corrupt_ra_victim("7-corrupt/ra-outside-code", "corrupt_probe corrupt_ra_victim ? | end-of-stack unreliable",
                    0x0badc0de);
  /* A return address inside a leaf function: the frame is taken (its PC is known text), but a
   * leaf's return address is in r14, which only the topmost frame may use. */
  corrupt_ra_victim("7-corrupt/ra-into-leaf",
                    "corrupt_probe corrupt_ra_victim corrupt_leaf | ra-not-recoverable",
                    (uint64_t)(uintptr_t)corrupt_leaf + 4);
  /* A frame pointer (and so a CFA) at 0x10000, in memory that is no declared stack. */
  corrupt_cfa_victim("7-corrupt/cfa-outside-stacks",
                     "corrupt_probe corrupt_cfa_victim | cfa-outside-stacks", 0x10000);
  return 0;
}
