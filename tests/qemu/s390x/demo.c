/* make demo ARCH=s390x: the kernel_main of the demo kernel. One operation exception at the bottom
 * of a call chain, its backtrace from the program-check handler, and out. */
#include "kernel.h"
#include "traps.h"

__attribute__((noreturn)) void kernel_main(void);

/* Opcode 0x00 is never assigned: the CPU raises an operation exception. */
__attribute__((noinline)) void demo_bad_instruction(void) {
  __asm__ volatile("0: .short 0x0000\n1:\n\t" EXTABLE("0b", "1b")::: "memory");
}

void kernel_main(void) {
  kputs(
      "\nHello from sfunwind on s390x.\n"
      "This kernel calls six functions deep, executes an invalid instruction, and its\n"
      "program-check handler walks the stack from the faulting registers with the SFrame\n"
      "table `sfu gen` wrote into the image:\n\n");
  kernel_register_table();
  expect_fault("demo/operation-exception",
               "demo_bad_instruction " RUN_CHAIN_FRAMES " kernel_main _start | end-of-stack");
  run_chain(demo_bad_instruction);
  int ok = fault_taken();
  kputs(ok ? "\nThe handler resumed after the instruction; bye.\n" : "\nNo fault came.\n");
  kernel_done(!ok);
}
