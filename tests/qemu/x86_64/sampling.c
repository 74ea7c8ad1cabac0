/* Scenario 2: the local APIC timer interrupts the workload (on the task stack) over and over;
 * each interrupt, taken on the IRQ stack (IST2), walks from the interrupted registers and
 * prints the trace for the runner's @callers check. The timer is one-shot, re-armed at the end
 * of each handler with a pseudo-random delay: a periodic timer faster than the handler (which
 * prints over a serial line) would fire again on the instruction the handler returned to, and
 * one slower would sample in step with the workload's loop. */
#include "x86.h"

#define SAMPLES 10000

static volatile unsigned samples;
static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint32_t next_delay_ns(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return 1000 + (uint32_t)(rng % 20000);
}

static void on_tick(struct trap_frame *f) {
  struct sfu_regs regs;
  trap_regs(f, &regs);
  kernel_trace_numbered("2-sampling/", samples, "@callers _start | end-of-stack", &regs);
  if (++samples < SAMPLES) apic_timer_oneshot(next_delay_ns());
  apic_eoi();
}

int scenario_sampling(void) {
  trap_set_handler(VEC_TIMER, on_tick);
  apic_timer_oneshot(next_delay_ns());
  irq_enable();
  while (samples < SAMPLES) workload_run(1);
  irq_disable();
  trap_set_handler(VEC_TIMER, 0);
  return 0;
}
