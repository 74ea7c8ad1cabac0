/* Scenario 7: walks over a corrupted stack stop with a named reason, and the kernel goes on.
 *
 * Each corrupting function has a variable-length array, so it keeps a frame pointer: x29 points
 * at its frame record (saved x29, saved x30), the very slots its CFI names. It overwrites one of
 * them, takes a trace through fault_brk, and puts the slot back before it returns. */
#include "arm64.h"

static uint64_t *frame_record(void) {
  uint64_t *fp;
  __asm__ volatile("mov %0, x29" : "=r"(fp));
  return fp;
}

/* The trace taken from inside a corrupting function: fault_brk's registers, then its caller. */
static inline __attribute__((always_inline)) void corrupt_trace(const char *name,
                                                                const char *expect) {
  trace_next_fault(EC_BRK, name, expect);
  fault_brk();
}

/* One slot of its own frame record replaced by `value`: RECORD_RA, the walk takes it for its
 * caller's return address; RECORD_FP, its caller's frame pointer, from which the walk computes
 * that caller's CFA. */
enum record_slot { RECORD_FP = 0, RECORD_RA = 1 };

__attribute__((noipa)) static int corrupt_record(size_t n, enum record_slot slot, uint64_t value,
                                                 const char *name, const char *expect) {
  volatile uint8_t frame[n];
  frame[0] = 0;
  uint64_t *record = frame_record();
  uint64_t saved = record[slot];
  record[slot] = value;
  corrupt_trace(name, expect);
  record[slot] = saved;
  return !fault_traced() + frame[0];
}

/* A caller whose CFA is x29-based (it has a VLA too), for a corrupted RECORD_FP. */
__attribute__((noipa)) static int fp_victim(size_t n, uint64_t fp, const char *name,
                                            const char *expect) {
  volatile uint8_t frame[n];
  frame[0] = 1;
  int failed = corrupt_record(n, RECORD_FP, fp, name, expect);
  return failed + frame[0] - 1;
}

int scenario_corrupt(void) {
  int failed = 0;
  /* Not a canonical address, nor any code's: shown as the last frame ('?': in no function), the
   * walk ends there, as at any return address outside the known text, unvouched for. */
  failed += corrupt_record(16, RECORD_RA, 0xdead00000000beefull, "7-corrupt/ra-garbage",
                           "fault_brk corrupt_record ? | end-of-stack unreliable");
  /* Inside fault_brk, whose rows keep the return address in x30: a register no frame below
   * the topmost still has. */
  failed += corrupt_record(16, RECORD_RA, (uint64_t)fault_brk + 4, "7-corrupt/ra-into-leaf",
                           "fault_brk corrupt_record fault_brk | ra-not-recoverable");
  /* In no declared stack. */
  failed += fp_victim(16, 0x1000, "7-corrupt/fp-outside-stacks",
                      "fault_brk corrupt_record fp_victim | cfa-outside-stacks");
  /* In the task stack, but below the frames already walked. */
  failed += fp_victim(16, (uint64_t)task_stack_lo + 64, "7-corrupt/fp-below-sp",
                      "fault_brk corrupt_record fp_victim | stack-going-wrong-way");
  return failed;
}
