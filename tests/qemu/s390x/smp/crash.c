/* The s390x crash-smp kernel's CPU glue (common/crash-smp.c; the fault and the handler are
 * ../crash.c's): CPU indexes by STAP, CPU 1 started by SIGP (cpu.c) at secondary_entry
 * (secondary.S) on its own lowcore and stacks, which calls secondary_main, here. */
#include "crash.h"
#include "s390x.h"

const char arch_secondary_frames[] = "secondary_main secondary_entry";

unsigned arch_cpu_index(void) { return this_cpu(); }

int arch_start_cpu(unsigned cpu) { return s390x_start_cpu(cpu) == 1 ? 0 : -1; }

void secondary_main(unsigned cpu);
__attribute__((noinline)) void secondary_main(unsigned cpu) {
  crash_secondary(cpu);
  __asm__ volatile("" ::: "memory"); /* not a tail call: secondary_main stays in the trace */
}
