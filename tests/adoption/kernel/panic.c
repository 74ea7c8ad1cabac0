/* The panic path: a trap handler that cannot go on hands its saved registers here. */
#include <sfu/print.h>

#include "kernel.h"

/* Set by kernel_main just before the planted fault: the one trap this kernel expects. */
volatile int panic_expected;

/* porting.md: print-backtrace begin */
/* sfunwind prints through a sink: one call per character, nothing buffered or allocated, so
 * it is safe in a trap handler. */
static void sfu_console_putc(void *ctx, char c) {
  (void)ctx;
  if (c == '\n') console_putc('\r');
  console_putc(c);
}

static void print_backtrace(const struct sfu_regs *regs, const struct sfu_walk_config *config) {
  struct sfu_sink console = {sfu_console_putc, 0};
  sfu_print_backtrace(&console, regs, config); /* one line per frame, then "stop: ..." */
}
/* porting.md: print-backtrace end */

void panic_with_backtrace(const char *what, const struct sfu_regs *regs,
                          const struct sfu_walk_config *config) {
  console_puts("\nPANIC: ");
  console_puts(what);
  console_puts(" at pc ");
  console_hex(regs->pc);
  console_puts("\nBacktrace:\n");
  print_backtrace(regs, config);
  console_puts("tinyk: halting\n");
  machine_exit(panic_expected ? 0 : 1);
}
