/* Scenario 4: traces that cross from one stack to another.
 *   irq-to-task     a fault inside the timer handler, on the IRQ stack: the walk climbs the
 *                   handler, crosses trap_common by its trap layout into the interrupted task.
 *   double-fault    a recursion overflows the small stack into its guard page: the CPU cannot
 *                   push the page fault's frame and raises #DF on its own stack (IST1). Traced
 *                   from the #DF frame's registers, and from inside the handler (exc -> other
 *                   -> task). The overflowed context cannot go on: the handler resumes at a
 *                   resume point saved before.
 *   nmi-to-task     an NMI sent to this CPU, taken on its own stack (IST3), traced from inside
 *                   the handler. */
#include "x86.h"

/* ---- A fault on the IRQ stack --------------------------------------------------------------- */

static noipa void irq_fault(void) { __asm__ volatile("1: ud2\n2:\n" FIXUP(1b, 2b)); }

static void on_tick_fault(struct trap_frame *f) {
  (void)f;
  irq_fault();
  apic_eoi();
}

static void on_ud_in_irq(struct trap_frame *f) {
  struct sfu_regs regs;
  trap_regs(f, &regs);
  kernel_trace("4-stacks/irq-to-task",
               "irq_fault on_tick_fault trap_dispatch trap_common wait_for_tick irq_to_task "
               "scenario_stacks kernel_main _start | end-of-stack",
               &regs);
  trap_fixup(f);
}

/* The tick arrives in hlt (sti's one-instruction shadow keeps it from coming earlier), so the
 * interrupted PC is the cli after it, in this function. */
static noipa void wait_for_tick(void) { __asm__ volatile("sti; hlt; cli" ::: "memory"); }

static noipa void irq_to_task(void) {
  trap_set_handler(VEC_TIMER, on_tick_fault);
  trap_set_handler(VEC_UD, on_ud_in_irq);
  apic_timer_oneshot(10000);
  wait_for_tick();
  trap_set_handler(VEC_UD, 0);
  trap_set_handler(VEC_TIMER, 0);
}

/* ---- A double fault ------------------------------------------------------------------------- */

static struct resume_point after_overflow;

/* Sixteen bytes a level, no other stack access: a call's push is what reaches the guard page,
 * so the saved RSP is still the small stack's lowest address, inside it. */
static noipa void overflow(unsigned n) {
  if (n) overflow(n - 1);
  __asm__ volatile("" ::: "memory");
}

static void overflow_entry(void *arg) {
  (void)arg;
  overflow(1000);
}

static noipa void double_fault_probe(void) {
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  kernel_trace("4-stacks/double-fault-handler", "@callers _start | end-of-stack", &regs);
}

static void on_double_fault(struct trap_frame *f) {
  struct sfu_regs regs;
  trap_regs(f, &regs);
  kernel_trace("4-stacks/double-fault", "@callers _start | end-of-stack", &regs);
  double_fault_probe();
  trap_resume(f, &after_overflow);
}

static noipa void double_fault(void) {
  trap_set_handler(VEC_DF, on_double_fault);
  if (!resume_save(&after_overflow))
    run_on_stack(overflow_entry, 0, small_stack + SMALL_STACK_SIZE);
  trap_set_handler(VEC_DF, 0);
}

/* ---- An NMI --------------------------------------------------------------------------------- */

static volatile int nmi_seen;

static void on_nmi(struct trap_frame *f) {
  (void)f;
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  /* The NMI lands somewhere in nmi_send_and_wait or the APIC write before it: @callers. */
  kernel_trace("4-stacks/nmi-to-task", "@callers _start | end-of-stack", &regs);
  nmi_seen = 1;
}

static noipa int nmi_send_and_wait(void) {
  apic_send_nmi_self();
  for (unsigned spins = 0; spins < 100000000; spins++)
    if (nmi_seen) return 0;
  kputs("sfu-error 4-stacks: the NMI never came\n");
  return 1;
}

int scenario_stacks(void) {
  irq_to_task();
  double_fault();
  trap_set_handler(VEC_NMI, on_nmi);
  int failed = nmi_send_and_wait();
  trap_set_handler(VEC_NMI, 0);
  return failed;
}
