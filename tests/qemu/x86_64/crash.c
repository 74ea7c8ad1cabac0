/* The x86_64 crash kernels (scenario 8, common/crash.c): the machine set up as for the other
 * kernels, and an invalid opcode at the bottom of run_chain whose handler hands the registers
 * the CPU saved to the capture. The reloc kernel (scenario 11, RELOC_LINK_BASE defined) sets up
 * no guard pages: they are 4 KiB mappings cut out of the first 2 MiB (boot.S's page tables,
 * cpu.c), and its copy runs above that, on reloc/boot.S's 2 MiB pages; the crash scenario never
 * runs off a stack. */
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
#ifndef RELOC_LINK_BASE
  stacks_init();
#endif
  trap_set_handler(VEC_UD, on_invalid_opcode);
  kernel_done(crash_main());
}
