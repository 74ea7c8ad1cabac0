/* Console helpers on top of the architecture's console_putc. */
#include "kernel.h"

void console_puts(const char *s) {
  while (*s) {
    if (*s == '\n') console_putc('\r');
    console_putc(*s++);
  }
}

void console_hex(uint64_t v) {
  console_puts("0x");
  for (int shift = 60; shift >= 0; shift -= 4) console_putc("0123456789abcdef"[(v >> shift) & 0xf]);
}
