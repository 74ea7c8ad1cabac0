/* The s390x crash kernels (scenario 8, common/crash.c): an operation exception at the bottom of
 * run_chain, and a program-check hook that hands the registers the entry code saved to the
 * capture, with the interruption code. */
#include "crash.h"
#include "traps.h"

__attribute__((noreturn)) void kernel_main(void);

/* Opcode 0x00 is never assigned. */
__attribute__((noinline)) void crash_fault(void) { __asm__ volatile(".short 0x0000" ::: "memory"); }

static int on_program_check(struct trap_frame *tf) {
  struct sfu_regs regs;
  trap_regs(tf, &regs);
  /* An operation exception is suppressed: the old PSW points past the instruction, by the
   * instruction length the interruption gave. */
  regs.pc = tf->psw_addr - ((tf->int_code >> 16) & 6);
  crash_fault_taken(&regs, tf->int_code & 0xffff, 0);
}

void kernel_main(void) {
  program_check_hook = on_program_check;
  kernel_done(crash_main());
}
