/* Scenario 10's shared half, 10-reentry: a walk interrupted by a walk. A timer tick's handler
 * walks the interrupted code (reentry_tick_walk); at a chosen stack read of that walk the kernel's
 * sfu_hook_read_nofault (reentry_before_read) raises the architecture's highest-priority
 * interrupt on this CPU and waits; that interrupt's handler walks from itself (reentry_nested_walk)
 * across its own trap frame, the hook, the walker inside the tick's walk, the tick handler and the
 * tick's trap frame to _start, into a buffer, printed after the tick's trace (reentry_finish).
 * Both are @callers traces.
 *
 * Included by each architecture's reentry.c (x86_64/reentry.c, arm64/smp/reentry.c,
 * s390x/reentry.c), which defines reentry_raise and is built with -fno-optimize-sibling-calls:
 * every frame of the nested walk must follow a call, so these functions are compiled there, not
 * into a common object. */
#ifndef QEMU_COMMON_REENTRY_H
#define QEMU_COMMON_REENTRY_H

#include "kernel.h"

/* The architecture's: sends this CPU the interrupt whose handler calls reentry_nested_walk. */
static void reentry_raise(void);

static volatile unsigned reentry_at_read, reentry_reads, reentry_taken;
static char reentry_text[8192];
static unsigned reentry_len;

static void reentry_putc(void *ctx, char c) {
  (void)ctx;
  if (reentry_len < sizeof(reentry_text) - 1) reentry_text[reentry_len++] = c;
}
static const struct sfu_sink reentry_buffer = {reentry_putc, 0};

/* From sfu_hook_read_nofault, before each read: at the armed read, the interrupt, and a bounded
 * wait for its handler's walk. */
static __attribute__((noipa)) void reentry_before_read(void) {
  unsigned at = reentry_at_read;
  if (!at || ++reentry_reads != at) return;
  reentry_at_read = 0; /* the nested walk reads through the hook too */
  reentry_raise();
  for (unsigned spins = 0; spins < 100000000 && !reentry_taken; spins++) {
  }
}

/* From the interrupt's handler: the walk from here, as trace 10-reentry/NAME, into the buffer
 * (the tick's trace is being printed). */
static __attribute__((noipa)) void reentry_nested_walk(const char *name) {
  struct sfu_regs regs;
  sfu_capture_here(&regs); /* from here: across the entry code's frame, then the walk */
  struct sfu_walk_config config = {0};
  arch_walk_config(&config);
  sfu_print_str(&reentry_buffer, "sfu-trace 10-reentry/");
  sfu_print_str(&reentry_buffer, name);
  sfu_print_str(&reentry_buffer, "\nsfu-expect @callers _start | end-of-stack\n");
  sfu_print_backtrace(&reentry_buffer, &regs, &config);
  sfu_print_str(&reentry_buffer, "sfu-end\n");
  reentry_taken = 1;
}

/* From the tick's handler: the interrupted code's walk, trace 10-reentry/tick, with the
 * interrupt armed at its READth stack read. Printed as kernel_trace prints, without its tail
 * call: every frame of the nested walk follows a call. */
static __attribute__((noipa)) void reentry_tick_walk(const struct sfu_regs *regs, unsigned read) {
  struct sfu_walk_config config = {0};
  arch_walk_config(&config);
  reentry_reads = 0;
  reentry_at_read = read;
  kputs("sfu-trace 10-reentry/tick\nsfu-expect @callers _start | end-of-stack\n");
  sfu_print_backtrace(&console, regs, &config);
  kputs("sfu-end\n");
  reentry_at_read = 0;
}

/* Once the tick is over: the nested trace, or 1 and an sfu-error if INTERRUPT never came. */
static int reentry_finish(const char *interrupt) {
  reentry_text[reentry_len] = 0;
  kputs(reentry_text);
  if (reentry_taken) return 0;
  kputs("sfu-error 10-reentry: no ");
  kputs(interrupt);
  kputs(" inside the walk\n");
  return 1;
}

#endif
