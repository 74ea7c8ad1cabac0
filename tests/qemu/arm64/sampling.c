/* Scenario 2: the virtual timer interrupts workload.c at pseudo-random intervals; each tick walks
 * from the interrupted registers (on the task stack, while the handler runs on the IRQ stack) and
 * prints the trace for the runner's @callers check. */
#include "arm64.h"

#define SAMPLES 10000

static volatile int done;
static unsigned samples;
static uint64_t period, lcg = 1;

/* The next interval: period to 2 * period, so ticks drift over every instruction. */
static uint64_t next_interval(void) {
  lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
  return period + (lcg >> 33) % period;
}

static void on_sample(struct trap_frame *frame) {
  struct sfu_regs regs;
  trap_regs(frame, &regs);
  kernel_trace_numbered("2-sampling/", samples, "@callers _start | end-of-stack", &regs);
  if (++samples == SAMPLES) {
    timer_stop();
    done = 1;
    return;
  }
  timer_arm(next_interval(), on_sample); /* from now: the workload runs between two ticks */
}

int scenario_sampling(void) {
  period = timer_freq() / 50000; /* 20 us */
  if (period == 0) period = 1;
  timer_arm(period, on_sample);
  workload_run(&done);
  kputs("sampling: ");
  kput_dec(samples);
  kputs(" samples\n");
  return samples == SAMPLES ? 0 : 1;
}
