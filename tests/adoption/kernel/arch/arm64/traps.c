/* tinyk arm64 trap handling: what vectors.S saved, turned into what sfunwind walks from. */
#include "kernel.h"

struct trap_frame {     /* as vectors.S saves it */
  uint64_t x[31];       /* x0..x30 */
  uint64_t sp;          /* the interrupted SP */
  uint64_t elr, esr;    /* the interrupted PC, the syndrome */
};

extern char kstack_lo[], kstack_hi[], exc_stack_lo[], exc_stack_hi[]; /* boot.S */

#define ESR_EC(esr) (((esr) >> 26) & 0x3f)
#define EC_UNKNOWN 0x00 /* an undefined instruction */

/* porting.md: arm64-trap-regs begin */
/* The registers the CPU and the entry code saved, as sfunwind numbers them (DWARF: x0..x30,
 * then sp as 31). It needs the PC, the SP and x29/x30: a leaf function keeps its return
 * address in x30, and many functions keep their caller's frame in x29. */
static void trap_frame_to_sfu_regs(const struct trap_frame *tf, struct sfu_regs *regs) {
  regs->pc = tf->elr;
  for (int i = 0; i <= 30; i++) regs->r[i] = tf->x[i];
  regs->r[SFU_ARM64_SP] = tf->sp;
  regs->valid = 0xffffffffu; /* x0..x30 and sp */
}

/* The stacks a walk may read, innermost first: the exception stack (EL1t's SP_EL1), then the
 * kernel's. In EL1h everything is on the kernel stack and the first is simply never used. */
static void arm64_walk_config(struct sfu_stack stacks[2], struct sfu_walk_config *config) {
  stacks[0] = (struct sfu_stack){(uint64_t)exc_stack_lo, (uint64_t)exc_stack_hi,
                                 SFU_STACK_EXCEPTION};
  stacks[1] = (struct sfu_stack){(uint64_t)kstack_lo, (uint64_t)kstack_hi, SFU_STACK_TASK};
  *config = (struct sfu_walk_config){.stacks = stacks, .num_stacks = 2};
}
/* porting.md: arm64-trap-regs end */

void arm64_sync_trap(struct trap_frame *tf) {
  struct sfu_regs regs;
  struct sfu_stack stacks[2];
  struct sfu_walk_config config;
  trap_frame_to_sfu_regs(tf, &regs);
  arm64_walk_config(stacks, &config);
  if (ESR_EC(tf->esr) == EC_UNKNOWN) {
    panic_with_backtrace("undefined instruction", &regs, &config);
  }
  console_puts("\nunexpected synchronous exception, ESR ");
  console_hex(tf->esr);
  panic_expected = 0;
  panic_with_backtrace("unexpected exception", &regs, &config);
}
