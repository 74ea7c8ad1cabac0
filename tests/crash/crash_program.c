/* A program that crashes the way a firmware would record it: linked with linker/sfunwind.ld,
 * sfunwind-symbols.ld and sfunwind-crash.ld (tests/crash/insert.ld), it registers its own table,
 * names and build-id, prints the backtrace from four calls deep (one of them inlined) and captures
 * a crash record there into its own crash area, then does what the next boot would: writes the
 * area's bytes to RECORD (a dump of the memory that survived), takes the record and prints it to
 * stdout (the serial log). Built -no-pie it runs at its link address; built -pie, wherever the
 * loader puts it (a moved image, as relocated firmware and KASLR kernels are).
 *   usage: crash_program RECORD > LOG */
#define _GNU_SOURCE
#include <stdio.h>

#include "sfu/crash.h"
#include "sfu/image.h"

extern char __executable_start[], etext[];
extern void *__libc_stack_end; /* glibc: the stack pointer the process started with */

static struct sfu_stack stack;
static enum sfu_error captured = SFU_E_CRASH_NO_RECORD;

static void out_putc(void *ctx, char c) {
  (void)ctx;
  putchar(c);
}

__attribute__((noinline)) void record_crash(unsigned depth) {
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  struct sfu_walk_config config = {0};
  config.stacks = &stack;
  config.num_stacks = 1;
  config.abi = SFU_ABI_AMD64_LE;  /* the host build of the core walks every ABI: say which */
  struct sfu_crash_info info = {SFU_CRASH_ASSERT, depth, 0, "assertion failed: queue->head != NULL"};
  struct sfu_sink console = {out_putc, 0};
  printf("Backtrace:\n");
  sfu_print_backtrace(&console, &regs, &config);
  captured = sfu_crash_capture_image(&info, &regs, &config);
  __asm__ volatile("" ::: "memory");  /* keep the call above from becoming a tail call */
}

static inline __attribute__((always_inline)) void drain_queue(unsigned depth) {
  record_crash(depth + 1);
  __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void handle_irq(unsigned depth) {
  drain_queue(depth + 1);
  __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void event_loop(void) {
  handle_irq(1);
  __asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s RECORD > LOG\n", argv[0]);
    return 2;
  }
  static struct sfu_module module;
  enum sfu_error err = sfu_register_image(&module, __executable_start, etext);
  if (err || module.build_id_error || module.symbols_error) {
    fprintf(stderr, "crash_program: registered: %s, build-id: %s, names: %s\n", sfu_error_name(err),
            sfu_error_name(module.build_id_error), sfu_error_name(module.symbols_error));
    return 1;
  }
  /* The stack: from well below this frame up to where the process started on it. */
  char here;
  stack.lo = (uint64_t)(uintptr_t)&here - (1u << 20);
  stack.hi = (uint64_t)(uintptr_t)__libc_stack_end;

  event_loop();
  if (captured != SFU_OK) {
    fprintf(stderr, "crash_program: capture: %s\n", sfu_error_name(captured));
    return 1;
  }
  FILE *f = fopen(argv[1], "wb");
  size_t area = (size_t)(__sfu_crash_end - __sfu_crash_start);
  if (!f || fwrite(__sfu_crash_start, 1, area, f) != area || fclose(f) != 0) {
    perror(argv[1]);
    return 1;
  }
  struct sfu_crash_view view;
  err = sfu_crash_take_image(&view);
  if (err) {
    fprintf(stderr, "crash_program: take: %s\n", sfu_error_name(err));
    return 1;
  }
  struct sfu_sink console = {out_putc, 0};
  sfu_crash_print(&console, &view);
  return 0;
}
