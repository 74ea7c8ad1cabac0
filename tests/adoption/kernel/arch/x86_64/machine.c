/* tinyk x86_64 machine: COM1 and QEMU's isa-debug-exit device (port 0xf4: QEMU exits with
 * status (value << 1) | 1). */
#include "kernel.h"

static inline void outb(uint16_t port, uint8_t v) { __asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port)); }
static inline uint8_t inb(uint16_t port) {
  uint8_t v;
  __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
  return v;
}

#define COM1 0x3f8
#define COM1_LSR (COM1 + 5)
#define LSR_THR_EMPTY 0x20

void console_putc(char c) {
  while (!(inb(COM1_LSR) & LSR_THR_EMPTY)) {
  }
  outb(COM1, (uint8_t)c);
}

void machine_exit(int status) {
  __asm__ volatile("outl %0, %1" ::"a"((uint32_t)status), "Nd"((uint16_t)0xf4));
  for (;;) __asm__ volatile("cli; hlt");
}
