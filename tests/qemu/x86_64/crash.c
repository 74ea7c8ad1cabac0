/* The x86_64 crash kernels (scenario 8, common/crash.c): the machine set up as for the other
 * kernels, and an invalid opcode at the bottom of run_chain whose handler hands the registers
 * the CPU saved to the capture. */
#include "crash.h"
#include "x86.h"

noipa void crash_fault(void) { __asm__ volatile("ud2"); }

static void on_invalid_opcode(struct trap_frame *f) {
  struct sfu_regs regs;
  trap_regs(f, &regs);
  crash_fault_taken(&regs, VEC_UD, 0);
}

void kernel_main(void);
void kernel_main(void) {
  serial_init();
  cpu_init();
  stacks_init();
  trap_set_handler(VEC_UD, on_invalid_opcode);
  kernel_done(crash_main());
}
