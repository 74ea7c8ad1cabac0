/* The s390x profile kernel (scenario 12, common/profile.c): the CPU timer samples the workload into
 * the profile, each tick at a random interval (timer_set_interval_ns) from the end of the last. */
#include "kernel.h"
#include "profile.h"
#include "timer.h"
#include "traps.h"

static void on_tick(struct trap_frame *tf) {
  struct sfu_regs regs;
  trap_regs(tf, &regs);
  /* The last tick: none more before arch_profile_stop, a round at most later. */
  timer_set_interval_ns(profile_tick(&regs) ? profile_next_interval() : 1000000000u);
}

void arch_profile_start(void) {
  timer_start(PROFILE_INTERVAL_MIN / 1000, on_tick);
}

void arch_profile_stop(void) { timer_stop(); }

__attribute__((noreturn)) void kernel_main(void);
void kernel_main(void) {
  kputs("sfunwind s390x profile kernel\n");
  kernel_register_table();
  kernel_done(scenario_profile());
}
