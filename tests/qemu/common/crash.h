/* Scenario 8, crash records (tests/qemu/README.md, "Crash records"): what the crash kernels'
 * shared half (crash.c, crash-torn.c) and each architecture's glue (<arch>/crash.c) give each
 * other. Only the crash kernels link these. */
#ifndef SFU_QEMU_CRASH_H
#define SFU_QEMU_CRASH_H

#include <stdint.h>

#include "kernel.h"
#include "sfu/crash.h"

/* ---- Each architecture's crash.c provides -------------------------------------------------- */

/* Faults on its first instruction of interest (an invalid instruction or a bad access) and is
 * never resumed: its exception handler calls crash_fault_taken. */
void crash_fault(void);

/* ---- Each architecture's SMP crash glue provides (crash-smp kernels only) ------------------ */

/* The running CPU's index: 0 for the boot CPU. */
unsigned arch_cpu_index(void);

/* Starts CPU `cpu` on its own stacks; its entry code calls crash_secondary(cpu) (its frames
 * under crash_secondary, outermost last, are arch_secondary_frames: "secondary_main
 * secondary_entry"). Returns 0 once it was started. */
int arch_start_cpu(unsigned cpu);
extern const char arch_secondary_frames[];

/* ---- Common (crash.c) --------------------------------------------------------------------- */

/* The kernel_main of a crash kernel, once the machine is set up and the handler that calls
 * crash_fault_taken is in place. Counts the boot and prints "sfu-boot N"; registers the table;
 * takes the record the last boot left (prints it, or "sfu-crash-refused NAME"). Boot 1 then
 * faults in crash_fault at the bottom of run_chain and never returns here; boot 2 returns 0 to
 * end the run. Returns non-zero (after an sfu-error line) if anything went otherwise. */
int crash_main(void);

/* Called by crash_main right after its "sfu-boot N" line when the kernel defines it: the reloc
 * kernels (common/reloc.c) say there where this boot moved the image. The weak hooks are hidden:
 * ld then resolves an undefined one to 0 inside the image, where a position-independent link (the
 * reloc kernels') would otherwise call it through a PLT stub outside the text. */
void crash_boot_started(void) __attribute__((weak, visibility("hidden")));

/* Called by the architecture's exception handler with the faulting registers: prints the checked
 * trace "8-crash/fault", captures the record (reason SFU_CRASH_EXCEPTION, with detail and
 * fault_address as the architecture has them), prints "sfu-crash-captured NAME" and resets the
 * machine. Does not return. */
__attribute__((noreturn)) void crash_fault_taken(const struct sfu_regs *regs, uint32_t detail,
                                                 uint64_t fault_address);

/* The capture crash_fault_taken makes, into the image's area: sfu_crash_capture_image itself,
 * unless the kernel links crash-torn.c, whose capture resets the machine in the middle. */
enum sfu_error crash_capture(const struct sfu_crash_info *info, const struct sfu_regs *regs,
                             const struct sfu_walk_config *config);

/* ---- Two CPUs at once (crash-smp.c) ------------------------------------------------------ */

/* Called by crash_main before boot 1's fault when the kernel links crash-smp.c: starts the
 * other CPUs and returns when all of them are about to fault with it. */
void crash_start_others(void) __attribute__((weak, visibility("hidden")));

/* An other CPU's life in a crash-smp kernel: meets CPU 0, faults in crash_fault under run_chain;
 * its handler calls crash_fault_taken. Does not return. */
void crash_secondary(unsigned cpu);

#endif /* SFU_QEMU_CRASH_H */
