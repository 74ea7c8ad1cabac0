/* Scenario 12, the profiler (tests/qemu/README.md, "The profile kernels"): a workload whose time
 * shares are known by construction, sampled by the timer through sfu_profile_sample, and a second,
 * independent count of the same samples that the runner folds itself. Built into the profile
 * kernels only (build/qemu/<arch>/profile.elf, against build/profile/<arch>/libsfu.a). */
#ifndef SFU_QEMU_PROFILE_H
#define SFU_QEMU_PROFILE_H

#include <stdint.h>

#include "kernel.h"

/* Samples the scenario takes (the issue asks for at least 10,000). */
#define PROFILE_SAMPLES 10000

/* Each tick comes PROFILE_INTERVAL_MIN to twice that many instructions of the workload after the
 * last one ended (-icount shift=0: one instruction is one nanosecond of virtual time). The
 * interval is random so that ticks fall on every instruction of a round, not in step with it. */
#define PROFILE_INTERVAL_MIN 20000u

/* ---- Each architecture's profile glue provides (<arch>/profile/) -------------------------- */

/* Starts the ticks and enables interrupts: the first tick profile_next_interval() nanoseconds
 * from now. Each tick calls profile_tick with the interrupted registers and, while it returns 1,
 * arms the next one profile_next_interval() nanoseconds after its own end; then no more. */
void arch_profile_start(void);
/* Disables interrupts again, once the workload saw the last tick. */
void arch_profile_stop(void);

/* ---- Common ------------------------------------------------------------------------------- */

/* The next interval, in nanoseconds (instructions): PROFILE_INTERVAL_MIN to twice that. */
uint64_t profile_next_interval(void);

/* One tick, from the timer interrupt with the interrupted registers: the profiler's sample and the
 * independent count's. Returns 1 while more samples are wanted. */
int profile_tick(const struct sfu_regs *regs);

/* Runs the scenario: sets the profile up, starts the ticks, runs the workload until
 * PROFILE_SAMPLES were taken, prints the profile, the independent count and the known shares.
 * Returns its on-device failures. */
int scenario_profile(void);

#endif /* SFU_QEMU_PROFILE_H */
