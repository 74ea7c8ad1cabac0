/* The arm64 test kernel: every scenario in turn, then the verdict. */
#include "arm64.h"

#ifndef VARIANT
#define VARIANT "?"
#endif

void kernel_main(void) {
  kernel_register_table();
  kputs("sfunwind arm64 test kernel, " VARIANT "\n");
  timer_init();
  int failed = pac_check();
  failed += scenario_faults();
#ifdef KERNEL_WALK_ONLY /* walk-only.elf: scenario 1 against the walk-only core */
  kernel_done(failed);
#endif
  failed += scenario_nofault(); /* early: nofault-nofixup.elf (kernel.mk) ends here, and fast */
  failed += scenario_corrupt();
  failed += scenario_single_step();
  failed += scenario_sampling();
  failed += scenario_stack_switch();
  kernel_done(failed);
}
