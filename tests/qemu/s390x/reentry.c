/* s390x test kernel, scenario 10: a walk interrupted by a walk, and a walk whose stack read
 * faults. Both go through this kernel's sfu_hook_read_nofault: every stack word a walk of the
 * scenario kernels reads is copied by copy_nofault, whose loads are in the fixup table (FIXUP,
 * traps.h), so a program check there resumes at the fixup instead of ending the run.
 *   10-reentry/tick     a CPU-timer tick's handler (interrupt stack) walks the interrupted task, a
 *                       checked trace. At the walk's READ_RESTART-th read the hook sends this CPU
 *                       a restart interruption (SIGP RESTART to itself) and waits for it:
 *   10-reentry/restart  the restart handler (restart stack) walks from itself, across the
 *                       restart's trap frame (rst_entry) into the hook, the walker inside the
 *                       tick's walk, the tick handler, across the external interruption's trap
 *                       frame into the task and to _start. Printed into a buffer (the tick's trace
 *                       is being printed), then after the tick's. Both @callers.
 *   10-nofault/beyond-ram  a walk from an SP in a declared stack that lies past the end of RAM:
 *                       the hook's load takes an addressing exception, the program-check handler
 *                       resumes at the fixup, the hook refuses and the walk stops read-refused;
 *                       the kernel goes on.
 *
 * Why restart: the tick handler runs with external interruptions masked, and a second external
 * interruption would overwrite the tick's old PSW (0x130) anyway. A restart cannot be masked and
 * has an old PSW of its own (0x120), so entry.S gives it its own save area and stack too: it is
 * the s390x NMI. (A machine check has its own old PSW as well, but the PSW masks it, and
 * QEMU's TCG raises one only for channel reports. QEMU's `nmi` monitor command injects a
 * restart.) */
#include "reentry.h"
#include "scenarios.h"
#include "timer.h"
#include "traps.h"

/* reentry-wrong.elf, built to fail (runner_test.py), lists no load in the fixup table. */
#ifdef REENTRY_WRONG
#define NOFAULT_FIXUP ""
#else
#define NOFAULT_FIXUP FIXUP("0b", "1b")
#endif

#define READ_RESTART 3
#define TICK_US 100
/* kernel.mk boots with -m 128M: storage from here on does not exist (an addressing exception). */
#define RAM_END (128ul << 20)



/* One load: 8 bytes when aligned, else 1. 0 when it took a program check: the fixup resumes past
 * the clear of ok. */
static inline int load_nofault(uint64_t src, size_t size, uint64_t *value) {
  int ok;
  if (size == 8)
    __asm__ volatile("lhi %[ok],0\n0:\tlg %[v],0(%[s])\n\tlhi %[ok],1\n1:\n\t" NOFAULT_FIXUP
                     : [ok] "=&d"(ok), [v] "=&d"(*value)
                     : [s] "a"(src)
                     : "memory");
  else
    __asm__ volatile("lhi %[ok],0\n0:\tllgc %[v],0(%[s])\n\tlhi %[ok],1\n1:\n\t" NOFAULT_FIXUP
                     : [ok] "=&d"(ok), [v] "=&d"(*value)
                     : [s] "a"(src)
                     : "memory");
  return ok;
}

static __attribute__((noipa)) int copy_nofault(uint8_t *dst, uint64_t src, size_t len) {
  while (len) {
    size_t size = len >= 8 && !(src & 7) ? 8 : 1;
    uint64_t v;
    if (!load_nofault(src, size, &v)) return -1;
    if (size == 8) __builtin_memcpy(dst, &v, 8);
    else *dst = (uint8_t)v;
    dst += size;
    src += size;
    len -= size;
  }
  return 0;
}

/* The restart comes once SIGP accepted it (QEMU delivers it before the next instruction). */
static void reentry_raise(void) { sigp(this_cpu(), SIGP_RESTART, 0); }

int sfu_hook_read_nofault(void *dst, uint64_t src, size_t len) {
  reentry_before_read();
  return copy_nofault((uint8_t *)dst, src, len);
}

/* ---- A walk interrupted by a walk ------------------------------------------------------ */

static void on_restart(struct trap_frame *tf) {
  (void)tf;
  reentry_nested_walk("restart");
}

static volatile int tick_done;

static void on_tick(struct trap_frame *tf) {
  if (tick_done) return; /* later ticks, until the task stops the timer */
  struct sfu_regs regs;
  trap_regs(tf, &regs);
  reentry_tick_walk(&regs, READ_RESTART);
  tick_done = 1;
}

static volatile uint64_t sink;

static __attribute__((noipa)) void reentry_work(void) {
  for (unsigned i = 0; i < 64; i++) sink = sink * 31 + i;
}

static __attribute__((noipa)) int restart_in_walk(void) {
  restart_hook = on_restart;
  timer_start(TICK_US, on_tick);
  while (!tick_done) reentry_work();
  timer_stop();
  restart_hook = 0;
  return reentry_finish("restart interruption");
}

/* ---- A faulting stack read --------------------------------------------------------------- */

static __attribute__((noipa)) int beyond_ram(void) {
  struct sfu_stack stack = {RAM_END, RAM_END + 16384, SFU_STACK_TASK};
  struct sfu_walk_config config = {0};
  config.stacks = &stack;
  config.num_stacks = 1;
  /* This function's own registers after the call, its SP moved into that stack: the step to
   * its caller reads the saved return address there. */
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  regs.r[SFU_S390X_SP] = stack.lo + 0x800;
  unsigned before = fixups_taken;
  kputs("sfu-trace 10-nofault/beyond-ram\nsfu-expect beyond_ram | read-refused unreliable\n");
  sfu_print_backtrace(&console, &regs, &config);
  kputs("sfu-end\n");
  unsigned fixed = fixups_taken - before;
  kernel_count("10-nofault/fixups", fixed > 0, 1);
  return fixed == 0;
}

int scenario_reentry(void) {
  int failed = restart_in_walk();
  failed += beyond_ram();
  return failed;
}
