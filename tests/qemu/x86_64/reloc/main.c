/* The x86_64 reloc kernel's main (scenario 11, common/reloc.h): crash.c's, but without
 * stacks_init. Its guard pages are 4 KiB mappings cut out of the first 2 MiB (boot.S's page
 * tables, cpu.c), and the copy runs above that, on reloc/boot.S's 2 MiB pages; the crash scenario
 * never runs off a stack. */
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
  trap_set_handler(VEC_UD, on_invalid_opcode);
  kernel_done(crash_main());
}
