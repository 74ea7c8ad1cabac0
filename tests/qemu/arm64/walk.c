/* arch_walk_config: the stacks a walk may read and the entry code it may cross. */
#include "arm64.h"

/* Every register the entry code saves, at its offset in struct trap_frame. */
#define X(n) [n] = TF_X(n)
static const struct sfu_trap_layout entry_layout = {
    .pc = TF_ELR,
    .reg = {X(0),  X(1),  X(2),  X(3),  X(4),  X(5),  X(6),  X(7),
            X(8),  X(9),  X(10), X(11), X(12), X(13), X(14), X(15),
            X(16), X(17), X(18), X(19), X(20), X(21), X(22), X(23),
            X(24), X(25), X(26), X(27), X(28), X(29), X(30), [SFU_ARM64_SP] = TF_SP},
    .saved = 0xffffffffu,
};
#undef X

void trap_regs(const struct trap_frame *frame, struct sfu_regs *regs) {
  kernel_regs_from_layout(frame, &entry_layout, regs);
}

struct cpu_stacks cpu_stacks[ARM64_MAX_CPUS] = {
    {irq_stack_lo, irq_stack_hi, task_stack_lo, task_stack_hi},
};

void arch_walk_config(struct sfu_walk_config *config) {
  /* Innermost first: a walk moves from the handlers' stack to the task's, never back. Each CPU
   * writes only its own row (a walk nested in another on the same CPU writes the same values). */
  static struct sfu_stack stacks[ARM64_MAX_CPUS][2];
  static const struct sfu_trap_entry traps[1] = {
      {(uint64_t)entry_text_start, (uint64_t)entry_text_end, &entry_layout}};
  unsigned cpu = this_cpu() % ARM64_MAX_CPUS;
  const struct cpu_stacks *s = &cpu_stacks[cpu];
  stacks[cpu][0] = (struct sfu_stack){(uint64_t)s->irq_lo, (uint64_t)s->irq_hi, SFU_STACK_IRQ};
  stacks[cpu][1] = (struct sfu_stack){(uint64_t)s->task_lo, (uint64_t)s->task_hi, SFU_STACK_TASK};
  config->stacks = stacks[cpu];
  config->num_stacks = 2;
  config->traps = traps;
  config->num_traps = 1;
  config->abi = 0;
  config->arm64_va_bits = 48; /* TCR_EL1.T0SZ/T1SZ as boot.S sets them */
}
