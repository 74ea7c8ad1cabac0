/* s390x test kernel, scenario 1: synchronous faults at the bottom of run_chain's six calls.
 * Each fault function raises one program exception; the program-check handler (traps.c) traces
 * from the faulting registers and resumes after the instruction. */
#include "scenarios.h"
#include "traps.h"

/* Opcode 0x00 is never assigned: an operation exception. */
__attribute__((noinline)) void fault_operation(void) {
  __asm__ volatile("0: .short 0x0000\n1:\n\t" EXTABLE("0b", "1b")::: "memory");
}

/* LOAD PAIR FROM QUADWORD needs a quadword-aligned operand: a specification exception. */
static uint64_t quad[4] __attribute__((aligned(16)));
__attribute__((noinline)) void fault_specification(void) {
  __asm__ volatile("0: lpq %%r0,0(%0)\n1:\n\t" EXTABLE("0b", "1b")
                   :
                   : "a"(&quad[1])
                   : "r0", "r1", "memory");
}

/* Real address 0x7fff0000000 is far beyond the 128 MiB QEMU gives: an addressing exception. */
__attribute__((noinline)) void fault_addressing(void) {
  __asm__ volatile("0: lg %%r1,0(%0)\n1:\n\t" EXTABLE("0b", "1b")
                   :
                   : "a"(0x7fff0000000ul)
                   : "r1", "memory");
}

#define CHAIN RUN_CHAIN_FRAMES " scenario_faults kernel_main _start"

/* run_chain(0): chain_6 calls through a NULL function pointer (basr %r14 to 0). Nothing runs at
 * 0: the kernel keeps an invalid opcode there (below), so the CPU stops at once with an operation
 * exception and the return address into chain_6 still in r14. The walk shows the PC-0 frame and
 * goes on from r14, never vouching for the trace; the handler (traps.c) resumes at r14. */
#define NULL_CALL_EXPECT "? " CHAIN " | end-of-stack unreliable"
/* The same from inside the handler: the walk crosses pgm_entry's trap frame, whose saved PSW
 * address is 0, into the PC-0 frame and goes on (it used to end there, end-of-stack reliable). */
#define NULL_CALL_HANDLER_EXPECT "program_check_handler pgm_entry " NULL_CALL_EXPECT

static const struct {
  const char *name;
  void (*fn)(void);
  const char *expect;
} faults[] = {
    {"1-faults/operation", fault_operation, "fault_operation " CHAIN " | end-of-stack"},
    {"1-faults/specification", fault_specification, "fault_specification " CHAIN " | end-of-stack"},
    {"1-faults/addressing", fault_addressing, "fault_addressing " CHAIN " | end-of-stack"},
    {"1-faults/null-call", 0, NULL_CALL_EXPECT},
};

__attribute__((noinline)) int scenario_faults(void) {
  int failed = 0;
  /* Real address 0 (the IPL PSW, used only at IPL) gets opcode 0x00 for the null-call case. */
  __asm__ volatile("xc 0(2,%%r0),0(%%r0)" ::: "memory");
  for (unsigned i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
    expect_fault(faults[i].name, faults[i].expect);
    if (!faults[i].fn) expect_handler_trace("1-faults/null-call-handler", NULL_CALL_HANDLER_EXPECT);
    run_chain(faults[i].fn);
    failed += !fault_taken();
  }
  return failed;
}
