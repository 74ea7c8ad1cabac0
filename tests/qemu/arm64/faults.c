/* Scenario 1: synchronous faults at the bottom of run_chain's six frames, each traced from the
 * exception's registers, then resumed after the faulting instruction (a call through NULL: at the
 * return address, in x30). */
#include "arm64.h"

/* Above every physical address QEMU's CPUs have (52 bits at most): with the MMU off, a load
 * from it is an address-size fault, a data abort. */
#define UNMAPPED_ADDRESS (1ull << 54)

__attribute__((noinline)) void fault_brk(void) { __asm__ volatile("brk #0" ::: "memory"); }

__attribute__((noinline)) void fault_udf(void) { __asm__ volatile("udf #0" ::: "memory"); }

__attribute__((noinline)) void fault_load(void) {
  uint64_t v;
  __asm__ volatile("ldr %0, [%1]" : "=r"(v) : "r"(UNMAPPED_ADDRESS) : "memory");
}

/* run_chain(fault) calls chain_1 as a tail call: its frame is gone, and chain_1's return
 * address is in fault_case. */
#define CHAIN RUN_CHAIN_FRAMES " fault_case scenario_faults kernel_main _start"

__attribute__((noipa)) static int fault_case(unsigned ec, const char *name, const char *expect,
                                             void (*fault)(void)) {
  trace_next_fault(ec, name, expect);
  run_chain(fault);
  if (fault_traced()) return 0;
  kputs("sfu-error ");
  kputs(name);
  kputs(": no fault taken\n");
  return 1;
}

/* run_chain(0): chain_6 calls through a NULL function pointer (blr to 0). The flash QEMU's virt
 * board maps at 0 is empty without -bios and reads as zeros, udf #0: an undefined instruction
 * with ELR 0 and the return address into chain_6 still in x30. The walk shows the PC-0 frame and
 * goes on from x30, never vouching for the trace; the handler resumes in chain_6, as if the call
 * had returned. */
#define NULL_CALL_EXPECT "? " CHAIN " | end-of-stack unreliable"

/* The same from inside the handler (trace_fault_in_handler): the walk crosses el1t_sync's trap
 * frame, whose saved PC is 0, into the PC-0 frame and goes on (it used to end there,
 * end-of-stack reliable). */
#define NULL_CALL_HANDLER_EXPECT "handle_sync el1t_sync " NULL_CALL_EXPECT

int scenario_faults(void) {
  int failed = 0;
  failed += fault_case(EC_BRK, "1-faults/brk", "fault_brk " CHAIN " | end-of-stack", fault_brk);
  failed += fault_case(EC_UNKNOWN, "1-faults/udf", "fault_udf " CHAIN " | end-of-stack", fault_udf);
  failed += fault_case(EC_DABT_CUR, "1-faults/data-abort", "fault_load " CHAIN " | end-of-stack",
                       fault_load);
  trace_fault_in_handler("1-faults/null-call-handler", NULL_CALL_HANDLER_EXPECT);
  failed += fault_case(EC_UNKNOWN, "1-faults/null-call", NULL_CALL_EXPECT, 0);
  return failed;
}
