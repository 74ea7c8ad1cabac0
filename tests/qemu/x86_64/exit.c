/* Leaving QEMU: the isa-debug-exit device (port 0xf4 in the run command) ends QEMU with status
 * (value << 1) | 1. Without it, a triple fault does, since the runs use -no-reboot.
 * Resetting the machine (the crash scenario's runs, without -no-reboot): q35's reset control
 * register. The firmware and QEMU's loader then boot the image again, fresh from the ELF; RAM
 * outside the loaded segments keeps its contents, except below 1 MiB and the top ~17 MiB, which
 * SeaBIOS uses. */
#include "x86.h"

#define DEBUG_EXIT_PORT 0xf4
#define RESET_CONTROL_PORT 0xcf9 /* ICH9 RST_CNT */
#define RST_CNT_SYS_RST 0x02     /* a whole-system reset, not the CPU's alone ... */
#define RST_CNT_RST_CPU 0x04     /* ... when this bit then goes from 0 to 1 */

void arch_reset(void) {
  __asm__ volatile("wbinvd" ::: "memory"); /* what must survive reaches RAM, not just the cache */
  outb(RESET_CONTROL_PORT, RST_CNT_SYS_RST);
  outb(RESET_CONTROL_PORT, RST_CNT_SYS_RST | RST_CNT_RST_CPU);
  /* QEMU resets at the end of the current translation block; give it ample time. */
  for (volatile unsigned i = 0; i < 1000000; i++) {
  }
}

void arch_exit(int failed) {
  outl(DEBUG_EXIT_PORT, failed ? 1 : 0);
  static const struct {
    uint16_t limit;
    uint64_t base;
  } __attribute__((packed)) no_idt = {0, 0};
  __asm__ volatile("lidt %0; int3" ::"m"(no_idt));
  for (;;) __asm__ volatile("cli; hlt");
}
