/* s390x test kernel: the scenarios kernel_main runs, each returning its on-device failures. */
#ifndef S390X_SCENARIOS_H
#define S390X_SCENARIOS_H

int scenario_faults(void);      /* 1: faults at the bottom of a call chain (faults.c) */
int scenario_sampling(void);    /* 2: timer-interrupt sampling (sampling.c) */
int scenario_single_step(void); /* 3: PER instruction-fetch single-step (stepping.c) */
int scenario_irq_fault(void);   /* 4: a fault on the interrupt stack (irq_fault.c) */
int scenario_fpr_ra(void);      /* 6: return address in a floating-point register (fpr_ra.c) */
int scenario_corrupt(void);     /* 7: corrupted stacks (corrupt.c) */
int scenario_reentry(void);     /* 10: a walk inside a walk, a faulting read (reentry.c) */

/* One round of scenario 2's workload (sampling.c), which the every-instruction kernels step. */
void workload_round(unsigned i);

#endif /* S390X_SCENARIOS_H */
