/* The x86_64 crash-smp kernel's CPU glue (common/crash-smp.c; the fault and the handler are
 * ../crash.c's): CPU indexes are local APIC IDs, and CPU 1 starts as smp.elf's do (start.c: the
 * trampoline, INIT and STARTUP IPIs) in ap_entry64 on its own stacks, which calls
 * secondary_main, here. The #UD it raises goes through the one IDT, on its own task stack. */
#include "crash.h"
#include "x86.h"

const char arch_secondary_frames[] = "secondary_main ap_entry64";

unsigned arch_cpu_index(void) { return this_cpu(); }

int arch_start_cpu(unsigned cpu) {
  static int ready;
  if (cpu == 0 || cpu >= X86_MAX_CPUS) return -1;
  if (!ready) {
    apic_init(); /* this CPU's local APIC on, to send the IPIs; its timer stays masked */
    ap_install_trampoline();
    ready = 1;
  }
  ap_start(cpu);
  return 0;
}

noipa void secondary_main(unsigned cpu) {
  cpu_init_secondary(cpu, cpu_stacks[cpu]);
  crash_secondary(cpu);
  __asm__ volatile("" ::: "memory"); /* not a tail call: secondary_main stays in the trace */
}
