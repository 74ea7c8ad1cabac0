/* Scenario 2's workload: what the timer interrupts. Many small functions of every shape gcc gives
 * a kernel: leaves without a frame, frames with saved registers, frame-pointer frames for
 * variable-length arrays and alloca, recursion, calls through pointers, and long loops, so a tick
 * lands in prologues, bodies and epilogues alike. Built with -fno-optimize-sibling-calls: every
 * caller frame is a call instruction the runner can check. */
#include "arm64.h"

#define WORK __attribute__((noipa))

/* Leaves: no frame, the return address stays in x30. */
WORK static uint64_t mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  return x ^ (x >> 27);
}

WORK static uint64_t rotate_sum(uint64_t a, uint64_t b) { return ((a << 13) | (a >> 51)) + b; }

/* A frame with callee-saved registers and a loop around calls. */
WORK static uint64_t hash_range(uint64_t seed, unsigned count) {
  uint64_t h = seed;
  for (unsigned i = 0; i < count; i++) h = rotate_sum(mix(h + i), h);
  return h;
}

/* A fixed array on the stack: a larger frame, stores and loads through SP. */
WORK static uint64_t table_walk(uint64_t seed) {
  volatile uint64_t table[24];
  for (unsigned i = 0; i < 24; i++) table[i] = mix(seed + i);
  uint64_t sum = 0;
  for (unsigned i = 0; i < 24; i += 3) sum += table[i] ^ table[(i * 7) % 24];
  return sum;
}

/* A variable-length array: the CFA is based on x29 while SP moves. */
WORK static uint64_t vla_frame(uint64_t seed, unsigned n) {
  volatile uint64_t buf[n];
  for (unsigned i = 0; i < n; i++) buf[i] = seed * (i + 1);
  uint64_t sum = 0;
  for (unsigned i = 0; i < n; i++) sum = rotate_sum(sum, buf[i]);
  return sum;
}

/* alloca, with a call while the allocation is live. */
WORK static uint64_t alloca_frame(uint64_t seed, unsigned n) {
  volatile uint64_t *p = __builtin_alloca(n * sizeof(uint64_t));
  for (unsigned i = 0; i < n; i++) p[i] = mix(seed ^ i);
  return p[n / 2] + hash_range(p[0], 3);
}

/* Recursion: the same function many frames deep. */
WORK static uint64_t recurse(uint64_t seed, unsigned depth) {
  if (depth == 0) return mix(seed);
  uint64_t below = recurse(seed + depth, depth - 1);
  return rotate_sum(below, depth);
}

/* Mutual recursion through two functions of different frame shapes. */
WORK static uint64_t ping(uint64_t seed, unsigned depth);
WORK static uint64_t pong(uint64_t seed, unsigned depth) {
  volatile uint64_t local[4] = {seed, depth, seed ^ depth, 0};
  return depth ? ping(local[2], depth - 1) + local[0] : local[1];
}
WORK static uint64_t ping(uint64_t seed, unsigned depth) {
  return depth ? pong(mix(seed), depth - 1) : seed;
}

/* Calls through a pointer (blr): the runner accepts any target for an indirect call. */
typedef uint64_t (*step_fn)(uint64_t seed);
WORK static uint64_t via_table(uint64_t seed) { return table_walk(seed); }
WORK static uint64_t via_vla(uint64_t seed) { return vla_frame(seed, 3 + (seed & 15)); }
WORK static uint64_t via_alloca(uint64_t seed) { return alloca_frame(seed, 2 + (seed & 7)); }
WORK static uint64_t via_recursion(uint64_t seed) { return recurse(seed, 2 + (seed & 3)); }
WORK static uint64_t via_ping(uint64_t seed) { return ping(seed, 2 + (seed & 1)); }
static const step_fn steps[] = {via_table, via_vla, via_alloca, via_recursion, via_ping};

WORK static uint64_t dispatch(uint64_t seed) {
  step_fn fn = steps[seed % (sizeof(steps) / sizeof(steps[0]))];
  return fn(seed) + hash_range(seed, 2);
}

static volatile uint64_t sink;

void workload_run(volatile int *stop) {
  uint64_t seed = 1;
  irq_enable();
  while (!*stop) {
    seed = mix(seed) + dispatch(seed);
    sink = seed;
  }
  irq_disable();
}
