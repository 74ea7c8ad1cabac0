/* s390x test kernel: what the scenarios ask of the trap handlers (traps.c). */
#ifndef S390X_TRAPS_H
#define S390X_TRAPS_H

#include "kernel.h"
#include "s390x.h"

/* An instruction that faults on purpose, and where to go on: put EXTABLE("0b", "1b") in the
 * same asm statement, with labels 0: before the instruction and 1: where to resume. */
#define EXTABLE(insn, resume)          \
  ".pushsection __ex_table, \"a\"\n\t" \
  ".balign 8\n\t"                      \
  ".quad " insn ", " resume            \
  "\n\t"                               \
  ".popsection\n\t"

/* A read that may fault (a no-fault copy): put FIXUP("0b", "1b") in the same asm statement, with
 * 0: the load and 1: where to resume when it takes a program check; every such check is counted
 * in fixups_taken and resumes there, untraced. */
#define FIXUP(insn, resume)                \
  ".pushsection __fixup_table, \"a\"\n\t" \
  ".balign 8\n\t"                         \
  ".quad " insn ", " resume               \
  "\n\t"                                  \
  ".popsection\n\t"
extern volatile unsigned fixups_taken;

/* The next program check (at an EXTABLE instruction) is traced with kernel_trace(name, expect)
 * from the faulting registers, then the code resumes. */
void expect_fault(const char *name, const char *expect);
/* With the next expected fault, a second trace from inside the handler itself, on the exception
 * stack: it crosses the program-check entry into the faulting context. */
void expect_handler_trace(const char *name, const char *expect);
/* 1 if the expected fault came (and clears it), else prints sfu-error and returns 0. */
int fault_taken(void);

/* PER events go to this hook (scenario 3) while it is set. */
extern void (*per_event_hook)(struct trap_frame *tf);

/* Every program check goes to this hook first while it is set (the crash kernels'); it returns
 * 1 when it handled the check. */
extern int (*program_check_hook)(struct trap_frame *tf);

/* Restart interruptions go to this hook (scenario 10); with none set, one ends the run. */
extern void (*restart_hook)(struct trap_frame *tf);

/* Where arch_reset starts the machine again, when the kernel says (the reloc kernel: the entry of
 * its image as loaded, reloc/reset.c); else _start. */
uint64_t arch_reset_entry(void) __attribute__((weak, visibility("hidden")));

/* The walk's starting registers: the interrupted PC, r0-r15 and f0-f15, all valid. */
void trap_regs(const struct trap_frame *tf, struct sfu_regs *regs);

#endif /* S390X_TRAPS_H */
