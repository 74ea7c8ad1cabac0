/* The arm64 crash-smp kernel's CPU glue (common/crash-smp.c; the fault and the handler are
 * ../crash.c's): CPU indexes from TPIDR_EL1, CPU 1 started by PSCI CPU_ON at secondary_entry
 * (secondary.S) on its own stacks, which calls secondary_main, here. */
#include "arm64.h"
#include "crash.h"

static uint8_t secondary_stacks[ARM64_MAX_CPUS - 1][16384 + 4096 + 16384]
    __attribute__((aligned(4096)));

const char arch_secondary_frames[] = "secondary_main secondary_entry";

unsigned arch_cpu_index(void) { return this_cpu(); }

int arch_start_cpu(unsigned cpu) {
  if (cpu == 0 || cpu >= ARM64_MAX_CPUS) return -1;
  uint8_t *s = secondary_stacks[cpu - 1];
  /* IRQ stack, a guard page, task stack (as kernel.lds.S lays out CPU 0's). */
  cpu_stacks[cpu] = (struct cpu_stacks){(char *)s, (char *)s + 16384, (char *)s + 16384 + 4096,
                                        (char *)s + sizeof(secondary_stacks[0])};
  extern char secondary_entry[];
  return psci_cpu_on(cpu, (uint64_t)secondary_entry, cpu) == 0 ? 0 : -1;
}

__attribute__((noinline)) void secondary_main(unsigned cpu) {
  crash_secondary(cpu);
  __asm__ volatile("" ::: "memory"); /* not a tail call: secondary_main stays in the trace */
}
