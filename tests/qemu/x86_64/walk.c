/* What a walk on this kernel may read and cross (arch_walk_config, kernel.h): its stacks,
 * innermost first, and the trap entry code with where it saves the interrupted registers. */
#include <stddef.h>

#include "x86.h"

#define ADDR(p) ((uint64_t)(uintptr_t)(p))

/* Offsets from the SP trap_common calls C with, which is where struct trap_frame starts. */
static const struct sfu_trap_layout trap_layout = {
    .pc = offsetof(struct trap_frame, rip),
    .reg =
        {
            [0] = offsetof(struct trap_frame, rax),
            [1] = offsetof(struct trap_frame, rdx),
            [2] = offsetof(struct trap_frame, rcx),
            [3] = offsetof(struct trap_frame, rbx),
            [4] = offsetof(struct trap_frame, rsi),
            [5] = offsetof(struct trap_frame, rdi),
            [6] = offsetof(struct trap_frame, rbp),
            [7] = offsetof(struct trap_frame, rsp),
            [8] = offsetof(struct trap_frame, r8),
            [9] = offsetof(struct trap_frame, r9),
            [10] = offsetof(struct trap_frame, r10),
            [11] = offsetof(struct trap_frame, r11),
            [12] = offsetof(struct trap_frame, r12),
            [13] = offsetof(struct trap_frame, r13),
            [14] = offsetof(struct trap_frame, r14),
            [15] = offsetof(struct trap_frame, r15),
        },
    .saved = 0xffff,
};

void trap_regs(const struct trap_frame *f, struct sfu_regs *r) {
  kernel_regs_from_layout(f, &trap_layout, r);
}

const struct x86_cpu_stacks *cpu_stacks[X86_MAX_CPUS];

/* Another CPU's stacks (the smp kernel), innermost first as CPU 0's. Each CPU writes only its own
 * row (a walk nested in another on the same CPU writes the same values). */
static const struct sfu_stack *other_cpu_stacks(unsigned cpu, unsigned *n) {
  static struct sfu_stack rows[X86_MAX_CPUS][4];
  const struct x86_cpu_stacks *s = cpu_stacks[cpu];
  rows[cpu][0] = (struct sfu_stack){ADDR(s->df), ADDR(s->df) + DF_STACK_SIZE, SFU_STACK_EXCEPTION};
  rows[cpu][1] = (struct sfu_stack){ADDR(s->nmi), ADDR(s->nmi) + NMI_STACK_SIZE, SFU_STACK_EXCEPTION};
  rows[cpu][2] = (struct sfu_stack){ADDR(s->irq), ADDR(s->irq) + IRQ_STACK_SIZE, SFU_STACK_IRQ};
  rows[cpu][3] = (struct sfu_stack){ADDR(s->task), ADDR(s->task) + TASK_STACK_SIZE, SFU_STACK_TASK};
  *n = 4;
  return rows[cpu];
}

void arch_walk_config(struct sfu_walk_config *config) {
  /* A walk moves only down this list: a double fault or an NMI may interrupt the timer
   * interrupt, which may interrupt code on the small stack or the task stack. */
  static const struct sfu_stack stacks[] = {
      {ADDR(df_stack), ADDR(df_stack) + DF_STACK_SIZE, SFU_STACK_EXCEPTION},
      {ADDR(nmi_stack), ADDR(nmi_stack) + NMI_STACK_SIZE, SFU_STACK_EXCEPTION},
      {ADDR(irq_stack), ADDR(irq_stack) + IRQ_STACK_SIZE, SFU_STACK_IRQ},
      {ADDR(small_stack), ADDR(small_stack) + SMALL_STACK_SIZE, SFU_STACK_OTHER},
      {ADDR(task_stack), ADDR(task_stack) + TASK_STACK_SIZE, SFU_STACK_TASK},
  };
  static const struct sfu_trap_entry traps[] = {
      {ADDR(trap_entry_start), ADDR(trap_entry_end), &trap_layout},
  };
  config->stacks = stacks;
  config->num_stacks = sizeof(stacks) / sizeof(stacks[0]);
  unsigned cpu = 0, n;
  for (unsigned c = 1; c < X86_MAX_CPUS; c++)
    if (cpu_stacks[c]) { /* only the smp kernel has others: ask the APIC then */
      cpu = this_cpu() % X86_MAX_CPUS;
      break;
    }
  if (cpu != 0 && cpu_stacks[cpu]) {
    config->stacks = other_cpu_stacks(cpu, &n);
    config->num_stacks = n;
  }
  config->traps = traps;
  config->num_traps = sizeof(traps) / sizeof(traps[0]);
  config->max_frames = 128; /* the double fault's overflowed stack holds about 30 frames */
  config->abi = 0;          /* this build's own */
}
