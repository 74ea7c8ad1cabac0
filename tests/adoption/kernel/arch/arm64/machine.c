/* tinyk arm64 machine: the PL011 UART of QEMU virt, and leaving QEMU through semihosting
 * (run with -semihosting: SYS_EXIT's status becomes QEMU's exit status). */
#include "kernel.h"

#define PL011_BASE 0x09000000ul
#define PL011_DR 0x00
#define PL011_FR 0x18
#define PL011_FR_TXFF (1u << 5)

static inline uint32_t mmio_read32(uint64_t addr) { return *(volatile uint32_t *)addr; }
static inline void mmio_write32(uint64_t addr, uint32_t v) { *(volatile uint32_t *)addr = v; }

void console_putc(char c) {
  while (mmio_read32(PL011_BASE + PL011_FR) & PL011_FR_TXFF) {
  }
  mmio_write32(PL011_BASE + PL011_DR, (uint8_t)c);
}

#define SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026

void machine_exit(int status) {
  static uint64_t args[2];
  args[0] = ADP_STOPPED_APPLICATION_EXIT;
  args[1] = (uint64_t)status;
  register uint64_t op __asm__("x0") = SYS_EXIT;
  register uint64_t arg __asm__("x1") = (uint64_t)args;
  __asm__ volatile("hlt #0xf000" : "+r"(op) : "r"(arg) : "memory");
  for (;;) __asm__ volatile("wfe");
}
