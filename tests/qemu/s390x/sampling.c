/* s390x test kernel, scenario 2: a CPU-timer tick samples a busy workload, and each tick walks
 * from the interrupted registers. The workload has every shape gcc gives a function: leaves with
 * no frame, frames saving a few or all call-saved registers, a large frame, stack-passed
 * arguments, alloca and VLA frames (r11 as frame pointer), and recursion. Built with
 * -fno-optimize-sibling-calls (kernel.mk): each caller frame then sits at a call instruction. */
#include <stdint.h>

#include "kernel.h"
#include "scenarios.h"
#include "timer.h"
#include "traps.h"

#define SAMPLES 10000
#define TICK_US 20

static volatile uint64_t sink;

__attribute__((noinline)) static uint64_t leaf_mix(uint64_t x) {
  x ^= x >> 13;
  x *= 0x9e3779b97f4a7c15ull;
  return x ^ (x >> 29);
}

__attribute__((noinline)) static uint64_t leaf_loop(uint64_t x, unsigned n) {
  for (unsigned i = 0; i < n; i++) x = x * 31 + i;
  return x;
}

__attribute__((noinline)) static uint64_t small_frame(uint64_t a, uint64_t b) {
  uint64_t x = leaf_mix(a);
  uint64_t y = leaf_mix(b ^ x);
  return leaf_loop(x + y, 8) ^ a;
}

__attribute__((noinline)) static uint64_t big_frame(uint64_t seed) {
  volatile uint64_t buf[96];
  for (unsigned i = 0; i < 96; i++) buf[i] = seed + i;
  uint64_t acc = small_frame(buf[3], buf[90]);
  for (unsigned i = 0; i < 96; i += 7) acc += leaf_mix(buf[i]);
  return acc;
}

/* More arguments than registers (r2-r6): the last ones go on the caller's stack. */
__attribute__((noinline)) static uint64_t many_args(uint64_t a, uint64_t b, uint64_t c, uint64_t d,
                                                    uint64_t e, uint64_t f, uint64_t g,
                                                    uint64_t h) {
  return small_frame(a + b + c, d + e) ^ leaf_mix(f + g + h);
}

__attribute__((noinline)) static uint64_t with_vla(unsigned n) {
  volatile uint64_t v[n];
  for (unsigned i = 0; i < n; i++) v[i] = leaf_mix(i);
  return v[n / 2] + big_frame(v[0]);
}

__attribute__((noinline)) static uint64_t with_alloca(unsigned n) {
  volatile uint64_t *p = __builtin_alloca(n * sizeof(uint64_t));
  for (unsigned i = 0; i < n; i++) p[i] = leaf_loop(i, 4);
  return p[n - 1] + many_args(p[0], p[1], 3, 4, 5, 6, 7, 8);
}

__attribute__((noinline)) static uint64_t recurse(unsigned depth, uint64_t x) {
  if (depth == 0) return with_alloca(5 + (unsigned)(x & 7));
  uint64_t r = recurse(depth - 1, leaf_mix(x));
  return r + (depth & 1 ? small_frame(r, x) : leaf_loop(r, depth));
}

__attribute__((noinline)) void workload_round(unsigned i) {
  sink += recurse(1 + i % 6, i);
  sink += with_vla(3 + i % 13);
  sink += many_args(i, 2, 3, 4, 5, 6, 7, 8);
}

static volatile unsigned samples;

/* Each tick: a walk from the interrupted registers. */
static void sample(struct trap_frame *tf) {
  struct sfu_regs regs;
  trap_regs(tf, &regs);
  kernel_trace_numbered("2-sampling/", samples, "@callers _start | end-of-stack", &regs);
  samples++;
}

int scenario_sampling(void) {
  samples = 0;
  timer_start(TICK_US, sample);
  for (unsigned i = 0; samples < SAMPLES; i++) workload_round(i);
  timer_stop();
  return 0;
}
