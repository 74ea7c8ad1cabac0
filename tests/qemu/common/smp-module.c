/* The SMP kernels' loadable module (arch-neutral C): functions of the shapes workload.c has (leaves, frames with
 * saved registers, a variable-length array, recursion, calls through a pointer table), linked
 * at MODULE_BASE with its own table. Built with -fno-optimize-sibling-calls: every caller frame
 * is a call the kernel's sample check can decode. */
#include "smp-module.h"

#define WORK __attribute__((noipa))

extern char _stext[], _etext[], __module_end[];
extern const unsigned char __sfu_sframe_start[], __sfu_sframe_end[];
extern const unsigned char __sfu_symbols_start[], __sfu_symbols_end[];
extern const unsigned char __sfu_build_id_start[], __sfu_build_id_end[];

WORK static uint64_t mod_mix(uint64_t x) {
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  return x ^ (x >> 32);
}

WORK static uint64_t mod_add(uint64_t a, uint64_t b) { return ((a << 7) | (a >> 57)) + b; }

WORK static uint64_t mod_loop(uint64_t seed, unsigned count) {
  uint64_t h = seed;
  for (unsigned i = 0; i < count; i++) h = mod_add(mod_mix(h + i), h);
  return h;
}

WORK static uint64_t mod_array(uint64_t seed) {
  volatile uint64_t a[16];
  for (unsigned i = 0; i < 16; i++) a[i] = mod_mix(seed + i);
  uint64_t s = 0;
  for (unsigned i = 0; i < 16; i += 2) s += a[i] ^ a[(i * 5) % 16];
  return s;
}

WORK static uint64_t mod_vla(uint64_t seed, unsigned n) {
  volatile uint64_t buf[n];
  for (unsigned i = 0; i < n; i++) buf[i] = seed * (i + 3);
  uint64_t s = 0;
  for (unsigned i = 0; i < n; i++) s = mod_add(s, buf[i]);
  return s;
}

WORK static uint64_t mod_recurse(uint64_t seed, unsigned depth) {
  if (depth == 0) return mod_mix(seed);
  return mod_add(mod_recurse(seed + depth, depth - 1), depth);
}

typedef uint64_t (*mod_step)(uint64_t seed);
WORK static uint64_t step_array(uint64_t seed) { return mod_array(seed); }
WORK static uint64_t step_vla(uint64_t seed) { return mod_vla(seed, 2 + (seed & 7)); }
WORK static uint64_t step_recurse(uint64_t seed) { return mod_recurse(seed, 1 + (seed & 3)); }
WORK static uint64_t step_loop(uint64_t seed) { return mod_loop(seed, 4); }
static const mod_step steps[] = {step_array, step_vla, step_recurse, step_loop};

WORK uint64_t module_entry(uint64_t seed) {
  uint64_t h = seed;
  for (unsigned i = 0; i < 4; i++) h = mod_add(h, steps[(h >> 3) % 4](h + i));
  return h;
}

static const char module_name[] = "module";

__attribute__((section(".module_header"), used)) const struct module_header module_header = {
    .magic = MODULE_MAGIC,
    .text_start = (uint64_t)_stext,
    .text_end = (uint64_t)_etext,
    .sframe_start = (uint64_t)__sfu_sframe_start,
    .sframe_end = (uint64_t)__sfu_sframe_end,
    .symbols_start = (uint64_t)__sfu_symbols_start,
    .symbols_end = (uint64_t)__sfu_symbols_end,
    .build_id_start = (uint64_t)__sfu_build_id_start,
    .build_id_end = (uint64_t)__sfu_build_id_end,
    .name = (uint64_t)module_name,
    .entry = module_entry,
    .end = (uint64_t)__module_end,
};
