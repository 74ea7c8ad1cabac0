/* The x86_64 profile kernel (scenario 12, common/profile.c): the local APIC timer samples the
 * workload into the profile, each tick one-shot and armed at a random interval by the last. The
 * interrupt runs on the IRQ stack (IST2); the walk starts from the registers its trap frame holds. */
#include "profile.h"
#include "x86.h"

static void on_tick(struct trap_frame *frame) {
  struct sfu_regs regs;
  trap_regs(frame, &regs);
  if (profile_tick(&regs)) apic_timer_oneshot((uint32_t)profile_next_interval());
  apic_eoi();
}

void arch_profile_start(void) {
  trap_set_handler(VEC_TIMER, on_tick);
  apic_timer_oneshot((uint32_t)profile_next_interval());
  irq_enable();
}

void arch_profile_stop(void) {
  irq_disable();
  trap_set_handler(VEC_TIMER, 0);
}

/* Called by _start (boot.S) on the task stack. */
void kernel_main(void);
void kernel_main(void) {
  serial_init();
  kputs("sfunwind x86_64 profile kernel\n");
  cpu_init();
  stacks_init();
  apic_init();
  kernel_register_table();
  kernel_done(scenario_profile());
}
