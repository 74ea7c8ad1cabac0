/* The console: COM1, a 16550 UART, polled (safe in any context, NMI included). */
#include "x86.h"

#define COM1 0x3f8
#define LSR_THR_EMPTY 0x20

void serial_init(void) {
  outb(COM1 + 1, 0x00); /* no UART interrupts */
  outb(COM1 + 3, 0x80); /* divisor latch */
  outb(COM1 + 0, 0x01); /* 115200 baud */
  outb(COM1 + 1, 0x00);
  outb(COM1 + 3, 0x03); /* 8 bits, no parity, 1 stop bit */
  outb(COM1 + 2, 0x07); /* FIFOs on and cleared */
}

void arch_putc(char c) {
  while (!(inb(COM1 + 5) & LSR_THR_EMPTY)) {
  }
  outb(COM1, (uint8_t)c);
#ifdef SERIAL_CHAR_SPINS
  /* A pause after each character, as a real UART's character time would make: QEMU's takes none,
   * and a vCPU printing without one keeps the device (and QEMU's I/O lock) to itself, so two
   * CPUs printing at once seldom mix (the crash-smp kernels, kernel.mk). */
  for (volatile unsigned i = 0; i < SERIAL_CHAR_SPINS; i++) {
  }
#endif
}
