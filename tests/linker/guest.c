/* A guest image (or a second-stage loader): built the way a kernel adopts sfunwind (sfu.mk's
 * flags, its library), but linked with a script that has none of the fragments
 * (tests/linker/bare.ld): no table, no __sfu_sframe_start/__sfu_sframe_end, no names, build-id
 * or crash area. It must link as is. tests/linker/pie.sh builds it for every architecture and
 * runs the x86_64 build as a Linux program without libc, checking what it prints.
 *   -DGUEST_SHARES_INIT  the image also holds code shared with a kernel that registers
 *                        (unwind_init: a call to sfu_register_image) and runs it: the
 *                        registration answers empty-section, the crash area crash-no-area */
#include <sfu/print.h>
#ifdef GUEST_SHARES_INIT
#include <sfu/crash.h>
#include <sfu/image.h>
#endif

#if defined(__x86_64__)
/* Linux system calls: the x86_64 build runs as a program (no libc, nothing else). */
static long guest_syscall3(long nr, long a, long b, long c) {
  long ret;
  __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
  return ret;
}
static void console_putc(void *ctx, char c) {
  (void)ctx;
  guest_syscall3(1, 1, (long)&c, 1); /* write(1, &c, 1) */
}
static void guest_exit(int status) {
  guest_syscall3(231, status, 0, 0); /* exit_group */
}
/* Linux enters with RSP 16-byte aligned: call C as the ABI wants. */
__asm__(".globl _start\n_start:\n\txorl %ebp, %ebp\n\tandq $-16, %rsp\n\tcall guest_main\n\tud2\n");
#else
/* Elsewhere only linked: a UART at a fixed address, and a loop. */
static void console_putc(void *ctx, char c) {
  (void)ctx;
  *(volatile char *)0x09000000 = c;
}
static void guest_exit(int status) {
  (void)status;
  for (;;) {
  }
}
void guest_main(void);
void _start(void) { guest_main(); }
#endif

static const struct sfu_sink console = {console_putc, 0};

#ifdef GUEST_SHARES_INIT
/* The kernel's registration, in code the guest shares with it. */
static struct sfu_module guest_unwind;
extern char _stext[], _etext[];
__attribute__((noinline)) static void unwind_init(void) {
  enum sfu_error err = sfu_register_image(&guest_unwind, _stext, _etext);
  sfu_print_str(&console, "register: ");
  sfu_print_str(&console, sfu_error_name(err));
  sfu_print_str(&console, "\n");
}

__attribute__((noinline)) static void crash_init(void) {
  static struct sfu_crash_view view;
  sfu_print_str(&console, "crash: ");
  sfu_print_str(&console, sfu_error_name(sfu_crash_take_image(&view)));
  sfu_print_str(&console, "\n");
}
#endif

void guest_main(void) {
  sfu_print_hex(&console, 0x1234, 0);
  sfu_print_str(&console, "\n");
#ifdef GUEST_SHARES_INIT
  unwind_init();
  crash_init();
#endif
  guest_exit(0);
}
