/* The console: QEMU virt's PL011 UART, polled. QEMU needs no setup for it. */
#include "arm64.h"

#define PL011_BASE 0x09000000ul
#define PL011_DR 0x00
#define PL011_FR 0x18
#define PL011_FR_TXFF (1u << 5) /* transmit FIFO full */

void arch_putc(char c) {
  while (mmio_read32(PL011_BASE + PL011_FR) & PL011_FR_TXFF) {
  }
  mmio_write32(PL011_BASE + PL011_DR, (uint8_t)c);
}
