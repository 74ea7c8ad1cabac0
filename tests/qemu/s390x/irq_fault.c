/* s390x test kernel, scenario 4: a fault taken on the interrupt stack. The task waits in
 * irq_wait; a CPU-timer tick, on the interrupt stack, calls down to a faulting instruction. The
 * walk from the fault climbs the handler's frames on the interrupt stack, crosses the external
 * interrupt's trap frame (ext_entry, declared in arch_walk_config), and goes on in irq_wait on the
 * task stack. A second walk starts inside the program-check handler, on the exception stack, and
 * crosses both entries: exception, interrupt, task. */
#include "scenarios.h"
#include "timer.h"
#include "traps.h"

void fault_operation(void); /* faults.c */

static volatile int waiting, faulted;

__attribute__((noinline)) void irq_wait(void) {
  waiting = 1;
  while (!faulted) __asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void irq_fault_chain(void) {
  fault_operation();
  __asm__ volatile("" ::: "memory");
}

/* One fault, from a tick that interrupted irq_wait: earlier and later ticks are let go. */
__attribute__((noinline)) static void irq_fault_tick(struct trap_frame *tf) {
  (void)tf;
  if (!waiting || faulted) return;
  irq_fault_chain();
  faulted = 1;
}

/* From the fault: the interrupt stack up to ext_entry, then the task stack from irq_wait. */
#define FROM_FAULT                                                                      \
  "fault_operation irq_fault_chain irq_fault_tick external_handler ext_entry irq_wait " \
  "scenario_irq_fault kernel_main _start | end-of-stack"

int scenario_irq_fault(void) {
  waiting = faulted = 0;
  expect_fault("4-stack-switch/irq-fault", FROM_FAULT);
  expect_handler_trace("4-stack-switch/exc-irq-task",
                       "program_check_handler pgm_entry " FROM_FAULT);
  timer_start(100, irq_fault_tick);
  irq_wait();
  timer_stop();
  return !fault_taken();
}
