/* How another CPU starts, for the kernels that run more than one (smp/main.c, smp/crash.c): the
 * real-mode trampoline (trampoline.S) copied to TRAMPOLINE with this CPU's page tables, then INIT
 * and two STARTUP IPIs through the local APIC. The CPU comes up in ap_entry64 on a task stack of
 * its own and calls secondary_main(cpu), which gives it its GDT and TSS (cpu_init_secondary with
 * cpu_stacks[cpu]: IST stacks of its own for the timer, NMIs and double faults). */
#include "x86.h"

extern const uint8_t ap_trampoline[], ap_trampoline_end[], ap_trampoline_cr3[];
volatile uint64_t ap_boot_stack; /* trampoline.S reads these */
volatile uint32_t ap_boot_cpu;

#define ALIGNED __attribute__((aligned(4096)))
static uint8_t task_stacks[X86_MAX_CPUS - 1][TASK_STACK_SIZE] ALIGNED;
static uint8_t irq_stacks[X86_MAX_CPUS - 1][IRQ_STACK_SIZE] ALIGNED;
static uint8_t df_stacks[X86_MAX_CPUS - 1][DF_STACK_SIZE] ALIGNED;
static uint8_t nmi_stacks[X86_MAX_CPUS - 1][NMI_STACK_SIZE] ALIGNED;
static struct x86_cpu_stacks stacks_of[X86_MAX_CPUS];

void ap_install_trampoline(void) {
  /* At the address its code was written for, with this CPU's page tables. */
  volatile uint8_t *t = (volatile uint8_t *)TRAMPOLINE;
  for (const uint8_t *p = ap_trampoline; p < ap_trampoline_end; p++) *t++ = *p;
  uint64_t cr3;
  __asm__ volatile("mov %%cr3, %0" : "=r"(cr3));
  *(volatile uint32_t *)(uintptr_t)(TRAMPOLINE + (ap_trampoline_cr3 - ap_trampoline)) = (uint32_t)cr3;
}

void ap_start(unsigned cpu) {
  unsigned i = cpu - 1;
  stacks_of[cpu] = (struct x86_cpu_stacks){task_stacks[i], irq_stacks[i], df_stacks[i], nmi_stacks[i]};
  cpu_stacks[cpu] = &stacks_of[cpu];
  ap_boot_stack = (uint64_t)(uintptr_t)(task_stacks[i] + TASK_STACK_SIZE);
  ap_boot_cpu = cpu;
  apic_start_cpu(cpu, TRAMPOLINE >> 12);
}
