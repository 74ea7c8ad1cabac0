/* kernel_main: register the unwind table, then fault three calls deep on purpose. */
#include <sfu/image.h>

#include "kernel.h"

/* porting.md: register begin */
/* The image's own SFrame table and function names, registered once at boot. The module must
 * stay valid for as long as walks may run: static storage, in writable memory (.bss). */
static struct sfu_module kernel_unwind;
extern char _stext[], _etext[]; /* from the linker script: the text the table describes */

static void unwind_init(void) {
  enum sfu_error err = sfu_register_image(&kernel_unwind, _stext, _etext);
  if (err != SFU_OK) {
    console_puts("sfunwind: no backtraces: ");
    console_puts(sfu_error_name(err));
    console_puts("\n");
  } else if (kernel_unwind.symbols_error != SFU_OK) {
    console_puts("sfunwind: no function names: "); /* traces still work, without names */
    console_puts(sfu_error_name(kernel_unwind.symbols_error));
    console_puts("\n");
  }
}
/* porting.md: register end */

/* The fault chain. noinline keeps every function a frame of its own, and the work after each
 * call keeps the calls from becoming tail calls (which would drop the caller from the trace). */
static volatile int results;

__attribute__((noinline)) int read_superblock(int block) {
  BAD_INSTRUCTION();
  return block + results;
}

__attribute__((noinline)) int mount_root(int dev) {
  int r = read_superblock(dev * 2);
  results = r;
  return r + 1;
}

__attribute__((noinline)) int start_services(int n) {
  int r = mount_root(n + 1);
  results = r;
  return r + 1;
}

void kernel_main(void) {
  console_puts("tinyk: booting\n");
  unwind_init();
  panic_expected = 1;
  results = start_services(3);
  panic_expected = 0;
  console_puts("tinyk: the fault did not happen\n");
  machine_exit(1);
}
