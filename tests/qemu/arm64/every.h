/* The every-instruction kernels (every.c, every-work.c; README.md, "Every instruction"): what the
 * stepped work and the stepping code share. */
#ifndef ARM64_EVERY_H
#define ARM64_EVERY_H

#include "arm64.h"

/* BRK immediates: stepping starts after the first and stops at the second; the third is the
 * synchronous exception the stepped work takes, whose handler is stepped too. */
#define BRK_EVERY_BEGIN 0x110
#define BRK_EVERY_END 0x111
#define BRK_EVERY_EXCEPTION 0x112

/* ---- every-work.c: the stepped work beyond workload.c ---------------------------------------- */

/* Tail calls (b and br, one a chain of two), two synchronous exceptions (in a function with a
 * frame and in a leaf), and walks by the library itself (sfu_backtrace, sfu_print_backtrace);
 * then the timer-interrupted workload (workload_run) until *stop. */
void every_work(volatile int *stop);

/* What the interrupt and exception handlers run stepped: a few calls, a tail call, and with
 * walk set a walk by the library from inside the handler (across the entry code's trap frame). */
uint64_t every_handler_work(uint64_t seed, int walk);

/* The functions every-work.c reaches by a tail call (b: direct, br: through a pointer): the
 * stepping code counts the branches into them. */
extern const uint64_t every_tail_b[], every_tail_br[];
#define EVERY_TAIL_B 2
#define EVERY_TAIL_BR 1

/* A walk by the library inside the stepped code, checked there: it must end end-of-stack, its
 * last frame the return address in _start; its print must end "(reliable)". */
void every_library_result(int ok);
/* Set while the stepped code is inside the library, and inside workload_run (every.c counts
 * those steps, and stops workload_run by theirs). */
extern volatile int every_in_library, every_in_workload;
/* The return address kernel_main leaves in _start (every.c finds it from _start's code). */
extern uint64_t every_start_ra;

#endif /* ARM64_EVERY_H */
