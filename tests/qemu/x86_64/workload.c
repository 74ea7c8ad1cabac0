/* The code the sampling timer interrupts and the single-step scenario steps through: many
 * small functions with the frame shapes gcc makes, so samples land in prologues, epilogues,
 * leaf functions, variable-size frames, realigned frames and recursion. Built with
 * -fno-optimize-sibling-calls (kernel.mk): every caller relation is a call instruction, which
 * is what the runner's @callers check follows. noipa keeps each function whole and named. */
#include "x86.h"

static volatile uint64_t sink;

/* A leaf: no frame at all, the return address at RSP throughout. */
static noipa uint64_t wl_leaf(uint64_t x) {
  x ^= x >> 13;
  x *= 0x9e3779b97f4a7c15ull;
  return x ^ (x >> 29);
}

/* Six values live across calls: pushes and pops of the callee-saved registers. */
static noipa uint64_t wl_saves(uint64_t a, uint64_t b) {
  uint64_t x0 = a, x1 = b, x2 = a ^ b, x3 = a + b, x4 = a * 3, x5 = b * 5;
  for (int i = 0; i < 3; i++) {
    x0 = wl_leaf(x0 + x5);
    x1 = wl_leaf(x1 ^ x4);
    x2 = wl_leaf(x2 - x3);
    x3 += x0;
    x4 ^= x1;
    x5 -= x2;
  }
  return x0 ^ x1 ^ x2 ^ x3 ^ x4 ^ x5;
}

/* A variable-length array: the frame is addressed from RBP, the CFA too. */
static noipa uint64_t wl_vla(unsigned n) {
  uint8_t buf[n];
  for (unsigned i = 0; i < n; i++) buf[i] = (uint8_t)wl_leaf(i);
  uint64_t sum = 0;
  for (unsigned i = 0; i < n; i++) sum += buf[i];
  return sum;
}

/* alloca, its size only known at run time. */
static noipa uint64_t wl_alloca(unsigned n) {
  volatile uint64_t *p = __builtin_alloca(n * sizeof(uint64_t));
  for (unsigned i = 0; i < n; i++) p[i] = wl_leaf(i + n);
  return p[n / 2];
}

/* A local aligned beyond the ABI's 16 bytes: the frame is realigned (and $-64, %rsp). */
static noipa uint64_t wl_aligned(uint64_t x) {
  volatile uint64_t buf[8] __attribute__((aligned(64)));
  for (unsigned i = 0; i < 8; i++) buf[i] = wl_leaf(x + i);
  return buf[3] ^ buf[5];
}

/* A larger fixed frame. */
static noipa uint64_t wl_big_frame(uint64_t x) {
  volatile uint64_t buf[96];
  for (unsigned i = 0; i < 96; i++) buf[i] = x + i;
  return wl_leaf(buf[17] + buf[90]);
}

static noipa uint64_t wl_recurse(unsigned depth, uint64_t x) {
  if (depth == 0) return wl_leaf(x);
  uint64_t r = wl_recurse(depth - 1, x + depth);
  return r ^ depth;
}

/* Called through a pointer: an indirect call. */
static uint64_t (*const wl_indirect[])(uint64_t) = {wl_leaf, wl_aligned, wl_big_frame};

void workload_run(unsigned rounds) {
  for (unsigned r = 0; r < rounds; r++) {
    uint64_t acc = r;
    acc += wl_saves(r, acc);
    acc += wl_vla(8 + (r & 15));
    acc += wl_alloca(4 + (r & 7));
    acc += wl_recurse(1 + (r & 7), acc);
    acc += wl_aligned(acc);
    acc += wl_big_frame(acc);
    acc += wl_indirect[r % 3](acc);
    sink = acc;
  }
}
