/* Scenario 10: a walk interrupted by a walk, and a walk whose stack read faults. Both go through
 * this kernel's sfu_hook_read_nofault: every stack word a walk reads (in every scenario of these
 * kernels) is copied by copy_nofault, whose loads are in the fixup table, so a page fault there
 * resumes at the fixup instead of ending the run.
 *   10-reentry/tick   a timer tick's handler (IRQ stack, IST2) walks the interrupted task, a
 *                     checked trace. At the walk's READ_NMI-th read the hook sends this CPU an
 *                     NMI through the local APIC and waits for it:
 *   10-reentry/nmi    the NMI handler (NMI stack, IST3) walks from itself, across the NMI's trap frame into the
 *                     hook, the walker inside the tick's walk, the tick handler, across the
 *                     tick's trap frame into the task and to _start. Printed into a buffer (the
 *                     tick's trace is being printed) and then after the tick's. Both @callers.
 *   10-nofault/unmapped  a walk from an SP in a declared stack whose page is not mapped (the
 *                     guard page below the task stack, declared as part of it): the hook's read
 *                     page-faults, the #PF handler resumes at the fixup, the hook refuses, and
 *                     the walk stops with read-refused; the kernel goes on. */
#include "reentry.h"
#include "x86.h"

#define READ_NMI 3

static volatile unsigned faults_fixed;

/* One byte at a time; a fault on the load resumes at 2 with failed still 1. */
static noipa int copy_nofault(uint8_t *dst, uint64_t src, size_t len) {
  for (size_t i = 0; i < len; i++) {
    unsigned failed;
    uint8_t b;
    __asm__ volatile("movl $1, %[f]\n"
                     "1: movb (%[s]), %[b]\n"
                     "movl $0, %[f]\n"
                     "2:\n" FIXUP(1b, 2b)
                     : [f] "=&r"(failed), [b] "=&q"(b)
                     : [s] "r"(src + i)
                     : "memory");
    if (failed) return -1;
    dst[i] = b;
  }
  return 0;
}

static void reentry_raise(void) { apic_send_nmi_self(); }

int sfu_hook_read_nofault(void *dst, uint64_t src, size_t len) {
  reentry_before_read();
  return copy_nofault((uint8_t *)dst, src, len);
}

/* ---- A walk interrupted by a walk ------------------------------------------------------ */

static void on_nmi(struct trap_frame *f) {
  (void)f;
  reentry_nested_walk("nmi");
}

static volatile int tick_done;

static void on_tick(struct trap_frame *f) {
  struct sfu_regs regs;
  trap_regs(f, &regs);
  reentry_tick_walk(&regs, READ_NMI);
  tick_done = 1;
  apic_eoi();
}

static noipa int nmi_in_walk(void) {
  trap_set_handler(VEC_NMI, on_nmi);
  trap_set_handler(VEC_TIMER, on_tick);
  apic_timer_oneshot(20000);
  irq_enable();
  while (!tick_done) workload_run(1);
  irq_disable();
  trap_set_handler(VEC_TIMER, 0);
  trap_set_handler(VEC_NMI, 0);
  return reentry_finish("NMI");
}

/* ---- A faulting stack read --------------------------------------------------------------- */

static void on_page_fault(struct trap_frame *f) {
  if (trap_fixup(f)) {
    faults_fixed++;
    return;
  }
  kputs("sfu-error unexpected page fault at ");
  kput_hex(f->rip);
  kputs(" address ");
  kput_hex(read_cr2());
  kputs("\n");
  kernel_done(1);
}

static noipa void unmapped_leaf(void) { __asm__ volatile("" ::: "memory"); }

static noipa int unmapped_stack(void) {
  /* The task stack with its guard page (unmapped by stacks_init) declared as part of it. */
  static const struct sfu_stack stack = {0, 0, SFU_STACK_TASK};
  struct sfu_stack s = stack;
  s.lo = (uint64_t)(uintptr_t)task_stack - 4096;
  s.hi = (uint64_t)(uintptr_t)task_stack + TASK_STACK_SIZE;
  struct sfu_walk_config config = {0};
  config.stacks = &s;
  config.num_stacks = 1;
  /* At unmapped_leaf's first instruction: the return address is at the SP, in the guard page. */
  struct sfu_regs regs = {0};
  regs.pc = (uint64_t)(uintptr_t)unmapped_leaf;
  regs.r[SFU_X86_64_RSP] = s.lo + 0x800;
  regs.r[SFU_X86_64_RBP] = 0;
  regs.valid = (1u << SFU_X86_64_RSP) | (1u << SFU_X86_64_RBP);
  trap_set_handler(VEC_PF, on_page_fault);
  kputs("sfu-trace 10-nofault/unmapped\nsfu-expect unmapped_leaf | read-refused unreliable\n");
  sfu_print_backtrace(&console, &regs, &config);
  kputs("sfu-end\n");
  trap_set_handler(VEC_PF, 0);
  kernel_count("10-nofault/fixups", faults_fixed > 0, 1);
  return faults_fixed == 0;
}

int scenario_reentry(void) {
  int failed = nmi_in_walk();
  failed += unmapped_stack();
  return failed;
}
