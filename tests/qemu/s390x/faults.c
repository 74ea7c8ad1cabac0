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

static const struct {
  const char *name;
  void (*fn)(void);
  const char *expect;
} faults[] = {
    {"1-faults/operation", fault_operation, "fault_operation " CHAIN " | end-of-stack"},
    {"1-faults/specification", fault_specification, "fault_specification " CHAIN " | end-of-stack"},
    {"1-faults/addressing", fault_addressing, "fault_addressing " CHAIN " | end-of-stack"},
};

__attribute__((noinline)) int scenario_faults(void) {
  int failed = 0;
  for (unsigned i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
    expect_fault(faults[i].name, faults[i].expect);
    run_chain(faults[i].fn);
    failed += !fault_taken();
  }
  return failed;
}
