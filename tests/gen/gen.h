/* Shared declarations of the sfu gen / sfu verify corpus (tests/gen/README.md).
 * Freestanding: only <stddef.h> and <stdint.h>, no libc. */
#ifndef SFU_GEN_CORPUS_H
#define SFU_GEN_CORPUS_H

#include <stddef.h>
#include <stdint.h>

/* noclone keeps gcc from replacing a frame shape by a .constprop/.isra clone; clang has no such
 * attribute (and never clones under noinline). */
#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif
#define NORETURN __attribute__((noreturn))

/* Sinks and sources the optimizer cannot see through: gen_zero is always 0, gen_one 1. */
extern volatile long gen_sink;
extern volatile int gen_zero;
extern volatile int gen_one;

/* support.c: what gcc and clang may call even with -ffreestanding. */
void *memset(void *dst, int c, size_t n);
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
int memcmp(const void *a, const void *b, size_t n);
long opaque(long x);
void consume(volatile void *p, size_t n);

/* frames.c: frame shapes. */
long leaf_add(long a, long b);
long leaf_locals(int i);
long leaf_many_regs(const long *p);
long chain_a(long x);
long fib(long n);
long many_saved(long a, long b, long c, long d, long e);
long big_frame_2k(int i);
long big_frame_80k(int i);
long use_alloca(int n);
long use_vla(int n);
long aligned_local(int i);
long aligned_vla(int n);
long aligned_alloca(int n);
long frame_address_user(long x);

/* control.c: control-flow shapes. */
long tail_caller(long x);
long tail_with_frame(long a, long b);
long tail_indirect(int which, long x);
NORETURN void die(long code);
void must_fail(long x);
long check_or_die(long x);
long sum_va(int n, ...);
long call_sum_va(long x);
long dispatch(int op, long a);
long early_exits(long a, long b);
long many_args(long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8,
               long a9, long a10, long a11, long a12);
long call_many_args(long x);
long interp(const unsigned char *code, long acc);
long hot_cold(long x);

/* asm_cases.c: the hand-written <arch>/cases.S functions. */
long run_asm_cases(long x);

#endif
