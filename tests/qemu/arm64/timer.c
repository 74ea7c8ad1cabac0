/* The EL1 virtual timer (CNTV_*), one-shot: each tick is armed by the last. */
#include "arm64.h"

#define CNTV_CTL_ENABLE 1u
#define CNTV_CTL_IMASK 2u

static tick_fn on_tick;

void timer_init(void) {
  write_sysreg(cntv_ctl_el0, 0);
  gic_init();
  gic_enable_ppi(TIMER_INTID);
}

uint64_t timer_freq(void) { return read_sysreg(cntfrq_el0); }

void timer_arm(uint64_t ticks, tick_fn fn) {
  on_tick = fn;
  write_sysreg(cntv_tval_el0, ticks);
  write_sysreg(cntv_ctl_el0, CNTV_CTL_ENABLE);
  isb();
}

void timer_stop(void) {
  write_sysreg(cntv_ctl_el0, 0);
  isb();
}

void timer_irq(struct trap_frame *frame) {
  /* The interrupt is level-triggered: mask it until the handler arms the next tick. */
  write_sysreg(cntv_ctl_el0, CNTV_CTL_ENABLE | CNTV_CTL_IMASK);
  tick_fn fn = on_tick;
  if (fn) fn(frame);
  __asm__ volatile("" ::: "memory"); /* not a tail call: timer_irq stays in the trace */
}
