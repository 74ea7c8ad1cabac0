/* tinyk s390x machine: the SCLP console (QEMU's sclpconsole, -serial) and a disabled wait to
 * stop: at address 0xfff QEMU shuts down with status 0; at any other, it takes the wait for a
 * guest crash, which -action panic=exit-failure turns into status 1. */
#include "kernel.h"

#define SCLP_WRITE_EVENT_DATA 0x00760005u
#define EVENT_ASCII_CONSOLE 0x1a

/* One character per SERVICE CALL: slow, but a panic prints a few hundred. */
struct sccb_char {
  uint16_t length;
  uint8_t function_code, control_mask[3];
  uint16_t response_code;
  uint16_t event_length;
  uint8_t event_type, event_flags;
  uint16_t reserved;
  char c;
} __attribute__((packed));

/* Within one page, above the lowcore, below 2 GiB. */
static struct sccb_char sccb __attribute__((aligned(64)));

void console_putc(char c) {
  sccb = (struct sccb_char){
      .length = sizeof(sccb),
      .event_length = (uint16_t)(sizeof(sccb) - __builtin_offsetof(struct sccb_char, event_length)),
      .event_type = EVENT_ASCII_CONSOLE,
      .c = c,
  };
  int cc;
  do { /* QEMU completes the command at once; cc 2 means busy */
    __asm__ volatile(".insn rre,0xb2200000,%1,%2\n\tipm %0\n\tsrl %0,28"
                     : "=d"(cc)
                     : "d"(SCLP_WRITE_EVENT_DATA), "a"(&sccb)
                     : "cc", "memory");
  } while (cc == 2);
}

void machine_exit(int status) {
  static uint64_t wait_psw[2] __attribute__((aligned(8)));
  wait_psw[0] = 0x0002000180000000ull; /* wait, 64-bit, interrupts masked */
  wait_psw[1] = status == 0 ? 0xfff : 0xbad;
  __asm__ volatile("lpswe %0" ::"Q"(wait_psw) : "memory");
  for (;;) {
  }
}
