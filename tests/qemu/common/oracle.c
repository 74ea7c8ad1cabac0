/* The debugger oracle's kernel half: tests/qemu/common/oracle.h. */
#include "oracle.h"

struct oracle_point oracle_point;
volatile uint64_t oracle_every;
uint64_t oracle_handed;
static uint64_t calls;

int oracle_due(void) {
  uint64_t every = oracle_every;
  if (!every) return 0;
  return ++calls % every == 0;
}

void oracle_record_walk(const struct sfu_regs *regs, const struct sfu_walk_config *config) {
  struct sfu_cursor cursor;
  struct sfu_frame frame;
  uint64_t n = 0;
  sfu_walk_start(&cursor, regs, config);
  while (n < ORACLE_MAX_FRAMES && sfu_walk_next(&cursor, &frame)) {
    oracle_point.pc[n] = frame.pc;
    oracle_point.sp[n] = frame.sp;
    n++;
  }
  oracle_point.num_frames = n;
  oracle_point.stop = (uint64_t)sfu_walk_stop(&cursor);
  uint64_t t = 0;
  for (; t < config->num_traps && t < ORACLE_MAX_TRAPS; t++) {
    oracle_point.trap_start[t] = config->traps[t].start;
    oracle_point.trap_end[t] = config->traps[t].end;
  }
  oracle_point.num_traps = t;
#ifdef ORACLE_WRONG
  /* Built to be wrong (x86_64's every-wrong.elf, which runner_test.py boots): the caller's frame
   * handed over one byte off, a walk the device did not check, which gdb must tell apart. */
  if (n > 1) oracle_point.pc[1]++;
#endif
}

/* noipa and an empty asm: the call stays, and gdb's breakpoint on its first instruction is hit
 * once per handover. */
__attribute__((noipa)) void oracle_handover(void) {
  oracle_handed++;
  __asm__ volatile("" ::: "memory");
}
