/* s390x test kernel, scenario 6: a return address kept in a floating-point register
 * (fpr_ra.S). On top of the stack the walker reads it from f1; in a lower frame it must refuse,
 * since the registers of a frame below the top are not known. */
#include "kernel.h"
#include "scenarios.h"
#include "traps.h"

void fpr_leaf_fault(void);
void fpr_mid(void);

int scenario_fpr_ra(void) {
  int failed = 0;
  expect_fault("6-fpr-ra/top", "fpr_leaf_fault " RUN_CHAIN_FRAMES
                               " scenario_fpr_ra kernel_main _start | end-of-stack");
  run_chain(fpr_leaf_fault);
  failed += !fault_taken();
  expect_fault("6-fpr-ra/below-top", "fault_operation fpr_mid | ra-not-recoverable");
  run_chain(fpr_mid);
  failed += !fault_taken();
  return failed;
}
