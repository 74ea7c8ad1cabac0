/* tinyk s390x traps: the program-check handler that prints the backtrace. */
#include "kernel.h"

struct trap_frame {   /* as pgm_entry (boot.S) saves it */
  uint64_t gprs[16];  /* r0..r15 at the program check; r15 is the interrupted SP */
  uint64_t psw_mask, psw_addr;
  uint16_t ilc, code; /* instruction length in bytes (bits 13-14), interruption code */
};

extern char kstack_lo[], kstack_hi[], exc_stack_lo[], exc_stack_hi[]; /* boot.S */

#define PGM_OPERATION 0x01

/* porting.md: s390x-trap-regs begin */
/* sfunwind's s390x registers are r0..r15 by number: r15 the SP, r14 the return address (a leaf
 * keeps it there), r11 the frame pointer. The old PSW's address is past the faulting
 * instruction for a suppressing exception (operation, specification) and at it for a
 * nullifying one (page faults): step back by the ILC where the CPU moved on, so that frame 0
 * is the instruction that faulted. */
static void trap_frame_to_sfu_regs(const struct trap_frame *tf, struct sfu_regs *regs) {
  regs->pc = tf->psw_addr;
  if (tf->code == PGM_OPERATION) regs->pc -= tf->ilc & 6;
  for (int i = 0; i < 16; i++) regs->r[i] = tf->gprs[i];
  regs->valid = 0xffffu;
}

/* The stacks, innermost first: the program-check handler's own, then the kernel's. */
static void s390x_walk_config(struct sfu_stack stacks[2], struct sfu_walk_config *config) {
  stacks[0] = (struct sfu_stack){(uint64_t)exc_stack_lo, (uint64_t)exc_stack_hi,
                                 SFU_STACK_EXCEPTION};
  stacks[1] = (struct sfu_stack){(uint64_t)kstack_lo, (uint64_t)kstack_hi, SFU_STACK_TASK};
  *config = (struct sfu_walk_config){.stacks = stacks, .num_stacks = 2};
}
/* porting.md: s390x-trap-regs end */

void s390x_program_check(struct trap_frame *tf) {
  struct sfu_regs regs;
  struct sfu_stack stacks[2];
  struct sfu_walk_config config;
  trap_frame_to_sfu_regs(tf, &regs);
  s390x_walk_config(stacks, &config);
  if (tf->code == PGM_OPERATION) panic_with_backtrace("operation exception", &regs, &config);
  console_puts("\nunexpected program check, code ");
  console_hex(tf->code);
  panic_expected = 0;
  panic_with_backtrace("program check", &regs, &config);
}
