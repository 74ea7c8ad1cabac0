/* s390x test kernel: kernel_main, called by _start (boot.S) on the task stack. Runs every
 * scenario; each prints its traces for the host runner (tests/qemu/README.md). */
#include "kernel.h"
#include "scenarios.h"

__attribute__((noreturn)) void kernel_main(void);

void kernel_main(void) {
  kputs("sfunwind s390x test kernel\n");
  kernel_register_table();
  int failed = 0;
#ifdef REENTRY_WRONG /* reentry-wrong.elf: scenario 10 alone, built to fail */
  kernel_done(scenario_reentry());
#endif
  failed += scenario_faults();
#ifdef KERNEL_WALK_ONLY /* walk-only.elf: scenario 1 against the walk-only core */
  kernel_done(failed);
#endif
  failed += scenario_sampling();
  failed += scenario_single_step();
  failed += scenario_irq_fault();
  failed += scenario_reentry();
  failed += scenario_fpr_ra();
  failed += scenario_corrupt();
  kernel_done(failed);
}
