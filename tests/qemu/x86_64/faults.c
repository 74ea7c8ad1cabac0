/* Scenario 1: synchronous faults at the bottom of the common six-function chain. Each fault
 * function raises one exception; its handler walks from the faulting registers, then resumes
 * after the faulting instruction (the fixup table) and the next case runs. */
#include "x86.h"

static noipa void fault_ud2(void) { __asm__ volatile("1: ud2\n2:\n" FIXUP(1b, 2b)); }

/* A trap, not a fault: the CPU saves the address after int3, which is where it resumes. */
static noipa void fault_int3(void) { __asm__ volatile("int3"); }

/* Page 0 is not mapped (boot.S). */
static noipa void fault_null_read(void) {
  uint64_t value;
  __asm__ volatile("1: movq (%1), %0\n2:\n" FIXUP(1b, 2b) : "=r"(value) : "r"(0ul) : "memory");
}

static noipa void fault_divide(void) {
  uint64_t lo = 1, hi = 0;
  __asm__ volatile("1: divq %2\n2:\n" FIXUP(1b, 2b) : "+a"(lo), "+d"(hi) : "r"(0ul));
}

/* run_chain tail-calls chain_1, so chain_1 returns straight into scenario_faults. */
#define CALLERS " " RUN_CHAIN_FRAMES " scenario_faults kernel_main _start"

/* run_chain(0): chain_6 calls through a NULL function pointer. Page 0 is not mapped: the fetch
 * faults with RIP 0 (CR2 0) and the return address into chain_6 at RSP. The walk shows the PC-0
 * frame and goes on from that return address, never vouching for the trace; the handler pops it
 * into RIP, as if the call had returned. */
#define NULL_CALL_EXPECT "?" CALLERS " | end-of-stack unreliable"
/* The same from inside the handler: the walk crosses trap_common's trap frame, whose saved RIP is
 * 0, into the PC-0 frame and goes on (it used to end there, end-of-stack reliable). */
#define NULL_CALL_HANDLER_EXPECT \
  "null_call_in_handler on_fault trap_dispatch trap_common ?" CALLERS " | end-of-stack unreliable"

static noipa void null_call_in_handler(void) {
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  kernel_trace("1-faults/null-call-handler", NULL_CALL_HANDLER_EXPECT, &regs);
}

static const struct fault_case {
  const char *name;
  void (*fn)(void);
  unsigned vector;
  const char *expect;
} cases[] = {
    {"1-faults/ud2", fault_ud2, VEC_UD, "fault_ud2" CALLERS " | end-of-stack"},
    {"1-faults/int3", fault_int3, VEC_BP, "fault_int3" CALLERS " | end-of-stack"},
    {"1-faults/page-fault", fault_null_read, VEC_PF, "fault_null_read" CALLERS " | end-of-stack"},
    {"1-faults/divide-error", fault_divide, VEC_DE, "fault_divide" CALLERS " | end-of-stack"},
    {"1-faults/null-call", 0, VEC_PF, NULL_CALL_EXPECT},
};

static const struct fault_case *current;
static int failures, taken;

static void on_fault(struct trap_frame *f) {
  taken = 1;
  struct sfu_regs regs;
  trap_regs(f, &regs);
  kernel_trace(current->name, current->expect, &regs);
  if (f->vector == VEC_PF && read_cr2() != 0) {
    kputs("sfu-error 1-faults: page fault at ");
    kput_hex(read_cr2());
    kputs(", expected 0\n");
    failures++;
  }
  if (f->vector == VEC_BP) return; /* already past the int3 */
  if (f->rip == 0) {                /* a call through NULL: return to its caller */
    null_call_in_handler();
    f->rip = *(const uint64_t *)f->rsp;
    f->rsp += 8;
    return;
  }
  if (!trap_fixup(f)) {
    kputs("sfu-error 1-faults: no fixup for the fault\n");
    kernel_done(1);
  }
}

int scenario_faults(void) {
  for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    current = &cases[i];
    taken = 0;
    trap_set_handler(current->vector, on_fault);
    run_chain(current->fn);
    trap_set_handler(current->vector, 0);
    if (!taken) { /* no trace to check would look like no case at all */
      kputs("sfu-error ");
      kputs(current->name);
      kputs(": the fault did not happen\n");
      failures++;
    }
  }
  return failures;
}
