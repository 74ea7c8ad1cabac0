/* Scenario 4: walks that start on the IRQ stack and cross the interrupt's trap frame into the
 * task it interrupted. The tick lands in wait_for_tick, so the task's frames are known. */
#include "arm64.h"

#define BRK_NESTED 0x200

#define TASK_FRAMES "wait_for_tick one_tick scenario_stack_switch kernel_main _start"
#define IRQ_FRAMES "timer_irq handle_irq el1t_irq " TASK_FRAMES

static volatile int ticked;

/* Interrupts on only here: the tick is taken in this function, at wfi or just after it. */
__attribute__((noipa)) static void wait_for_tick(void) {
  while (!ticked) __asm__ volatile("msr daifclr, #2\n\twfi\n\tmsr daifset, #2" ::: "memory");
}

/* A fault in the handler: its trace starts on the IRQ stack, from the exception's registers. */
__attribute__((noipa)) static void tick_fault(struct trap_frame *frame) {
  (void)frame;
  trace_next_fault(EC_BRK, "4-stack-switch/fault-in-irq",
                   "fault_brk tick_fault " IRQ_FRAMES " | end-of-stack");
  fault_brk();
  ticked = 1;
}

/* A trace from where the handler is, as a watchdog or a panic would take it. */
__attribute__((noipa)) static void tick_capture(struct trap_frame *frame) {
  (void)frame;
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  kernel_trace("4-stack-switch/capture-in-irq", "tick_capture " IRQ_FRAMES " | end-of-stack",
               &regs);
  ticked = 1;
}

/* A trace taken inside the exception handler of a fault inside the tick handler: it crosses two
 * trap frames, the fault's (IRQ stack to IRQ stack) and the interrupt's (IRQ stack to task). */
__attribute__((noipa)) static int nested_capture(struct trap_frame *frame, uint64_t esr) {
  if (ESR_EC(esr) != EC_BRK || ESR_BRK_IMM(esr) != BRK_NESTED) return 0;
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  kernel_trace("4-stack-switch/capture-in-nested-fault",
               "nested_capture handle_sync el1h_sync nested_brk tick_nested " IRQ_FRAMES
               " | end-of-stack",
               &regs);
  frame->elr += 4;
  return 1;
}

__attribute__((noipa)) static void nested_brk(void) {
  __asm__ volatile("brk %0" ::"i"(BRK_NESTED) : "memory");
}

__attribute__((noipa)) static void tick_nested(struct trap_frame *frame) {
  (void)frame;
  set_sync_hook(nested_capture);
  nested_brk();
  set_sync_hook(0);
  ticked = 1;
}

/* The barrier keeps wait_for_tick from being a tail call: one_tick's frame is in TASK_FRAMES. */
__attribute__((noipa)) static void one_tick(tick_fn fn) {
  ticked = 0;
  timer_arm(timer_freq() / 1000, fn);
  wait_for_tick();
  __asm__ volatile("" ::: "memory");
}

int scenario_stack_switch(void) {
  one_tick(tick_fault);
  int failed = !fault_traced();
  one_tick(tick_capture);
  one_tick(tick_nested);
  return failed;
}
