/* s390x test kernel: the console, through the SCLP (service-call logical processor).
 * Characters collect in a line buffer; each line goes out as one "write event data" command
 * carrying an ASCII console data event, which QEMU's sclpconsole device (-serial) prints.
 * One SERVICE CALL per line instead of per character keeps thousands of traces fast. */
#include <stdint.h>

#include "kernel.h"

#define SCLP_CMD_WRITE_EVENT_DATA 0x00760005u
#define SCLP_EVENT_ASCII_CONSOLE_DATA 0x1a
#define LINE_MAX 256

struct sccb_console {
  uint16_t length; /* SCCB header */
  uint8_t function_code;
  uint8_t control_mask[3];
  uint16_t response_code;
  uint16_t event_length; /* event buffer header */
  uint8_t event_type;
  uint8_t event_flags;
  uint16_t reserved;
  char data[LINE_MAX];
} __attribute__((packed));

/* The SCCB must lie in one page, below 2 GiB and above the first 8 KiB: a page of its own. */
static struct sccb_console sccb __attribute__((aligned(4096)));
static unsigned line_len;

static void flush_line(void) {
  uint16_t len = (uint16_t)(__builtin_offsetof(struct sccb_console, data) + line_len);
  sccb.length = len;
  sccb.function_code = 0;
  sccb.control_mask[0] = sccb.control_mask[1] = sccb.control_mask[2] = 0;
  sccb.response_code = 0;
  sccb.event_length = (uint16_t)(len - __builtin_offsetof(struct sccb_console, event_length));
  sccb.event_type = SCLP_EVENT_ASCII_CONSOLE_DATA;
  sccb.event_flags = 0;
  sccb.reserved = 0;
  /* QEMU completes the command inside SERVICE CALL (condition code 0). Real machines finish
   * later and signal a service-signal external interrupt; that subclass stays masked in CR0, so
   * QEMU's pending signal is never taken. Busy (cc 2): try again. */
  int cc;
  do {
    __asm__ volatile(
        ".insn rre,0xb2200000,%1,%2\n\t" /* SERVC */
        "ipm %0\n\t"
        "srl %0,28"
        : "=d"(cc)
        : "d"(SCLP_CMD_WRITE_EVENT_DATA), "a"(&sccb)
        : "cc", "memory");
  } while (cc == 2);
  line_len = 0;
}

/* Callers hold a print lock on SMP; even without one (crash-smp-nolock) no write leaves the
 * buffer: its characters just mix. */
void arch_putc(char c) {
  unsigned at = line_len;
  if (at < LINE_MAX) {
    sccb.data[at] = c;
    line_len = at + 1;
  }
  if (c == '\n' || line_len >= LINE_MAX) flush_line();
}
