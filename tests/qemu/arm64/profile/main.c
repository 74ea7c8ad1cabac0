/* The arm64 profile kernel (scenario 12, common/profile.c): the virtual timer samples the workload
 * into the profile, each tick one-shot and armed at a random interval by the last. */
#include "arm64.h"
#include "profile.h"

/* A sampling timer interrupt, as a kernel adds one: the interrupted registers from the trap frame,
 * the sample (profile_tick: sfu_profile_sample, and the scenario's own count), the next tick. */
/* porting.md: profile-tick begin */
static void on_tick(struct trap_frame *frame) {
  struct sfu_regs regs;
  trap_regs(frame, &regs); /* what the entry code saved: the walk starts where the tick came */
  if (profile_tick(&regs))
    timer_arm(profile_next_interval() * timer_freq() / 1000000000u, on_tick);
  else
    timer_stop();
}
/* porting.md: profile-tick end */

void arch_profile_start(void) {
  timer_arm(profile_next_interval() * timer_freq() / 1000000000u, on_tick);
  irq_enable();
}

void arch_profile_stop(void) { irq_disable(); }

void kernel_main(void) {
  kernel_register_table();
  kputs("sfunwind arm64 profile kernel\n");
  timer_init();
  kernel_done(scenario_profile());
}
