/* make demo ARCH=arm64: a kernel that faults on purpose six calls deep, walks its stack from the
 * exception's registers, prints the backtrace, and exits. */
#include "arm64.h"

void kernel_main(void) {
  kernel_register_table();
  kputs(
      "\nsfunwind on arm64: QEMU virt, EL1, a freestanding kernel with an SFrame table.\n"
      "Loading from an address no CPU has, six calls deep. The data abort's backtrace:\n\n");
  trace_next_fault(EC_DABT_CUR, "demo/data-abort",
                   "fault_load " RUN_CHAIN_FRAMES " kernel_main _start | end-of-stack");
  run_chain(fault_load);
  if (!fault_traced()) {
    kputs("sfu-error the load did not fault\n");
    kernel_done(1);
  }
  kputs(
      "\nEach line is one frame, innermost first; [table] frames came from SFrame rows.\n"
      "The handler skipped the faulting load and the kernel carried on to exit.\n");
  kernel_done(0);
}
