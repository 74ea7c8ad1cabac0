/* The x86_64 test kernel: sets the machine up, then runs every scenario in turn (the numbers
 * are tests/qemu/README.md's scenario names); sampling, by far the longest, comes last. */
#include "x86.h"

/* Called by _start (boot.S) on the task stack. */
void kernel_main(void);
void kernel_main(void) {
  serial_init();
  kputs("sfunwind x86_64 test kernel\n");
  cpu_init();
  stacks_init();
  apic_init();
  kernel_register_table();
  int failed = 0;
  failed += scenario_faults();
#ifdef KERNEL_WALK_ONLY /* walk-only.elf: scenario 1 against the walk-only core */
  kernel_done(failed);
#endif
  failed += scenario_corrupt();
  failed += scenario_stacks();
  failed += scenario_step();
  failed += scenario_reentry();
  failed += scenario_sampling();
  kernel_done(failed);
}
