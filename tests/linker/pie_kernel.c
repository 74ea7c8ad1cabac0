/* A kernel-style image (freestanding, no libc) that tests/linker/pie.sh links position
 * independent against $(BUILD)/pie/<arch>/libsfu.a, as firmware that relocates itself does
 * (ld -pie, ld -pie --no-dynamic-linker, -static-pie), and whose relocations it reads. It
 * registers its table, walks, prints a backtrace, captures and takes a crash record: every
 * symbol sfunwind's headers and archive reference is in the link, the optional ones
 * (sfu_hook_read_nofault, the fragments' symbols) defined or not. Never run.
 *   -DPIE_HOOK   the image defines sfu_hook_read_nofault */
#include <sfu/crash.h>
#include <sfu/image.h>
#include <sfu/print.h>

extern char _stext[], _etext[];

static struct sfu_module image;
static uint64_t stack[512];

#ifdef PIE_HOOK
/* The kernel's no-fault copy (here a plain one): every stack read of a walk comes here. */
int sfu_hook_read_nofault(void *dst, uint64_t src, size_t len) {
  volatile unsigned char *d = (volatile unsigned char *)dst;
  const volatile unsigned char *s = (const volatile unsigned char *)(uintptr_t)src;
  for (size_t i = 0; i < len; i++) d[i] = s[i];
  return 0;
}
#endif

/* A UART at a fixed physical address: an integer, not a symbol, so no relocation. */
static void console_putc(void *ctx, char c) {
  (void)ctx;
  *(volatile char *)0x09000000 = c;
}

void kernel_main(void) {
  static struct sfu_regs regs;
  static struct sfu_stack stacks[1];
  static struct sfu_walk_config config;
  static struct sfu_crash_info info;
  static struct sfu_crash_view view;
  struct sfu_sink console = {console_putc, 0};
  if (sfu_register_image(&image, _stext, _etext) != SFU_OK) return;
  stacks[0].lo = (uint64_t)(uintptr_t)stack;
  stacks[0].hi = (uint64_t)(uintptr_t)(stack + 512);
  config.stacks = stacks;
  config.num_stacks = 1;
  sfu_capture_here(&regs);
  sfu_print_backtrace(&console, &regs, &config);
  if (sfu_crash_take_image(&view) == SFU_OK) sfu_crash_print(&console, &view);
  info.message = "pie";
  sfu_crash_capture_image(&info, &regs, &config);
}

void _start(void) {
  kernel_main();
  for (;;) {
  }
}
