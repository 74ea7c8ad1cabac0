/* Scenario 9, walks on every CPU while a module comes and goes (tests/qemu/README.md): the
 * shared half (smp.c) of the SMP kernels, and what each architecture's SMP glue gives it. Only the
 * smp kernels link these. */
#ifndef SFU_QEMU_SMP_H
#define SFU_QEMU_SMP_H

#include <stdint.h>

#include "kernel.h"
#include "smp-module.h"

#define SMP_MAX_CPUS 4

/* ---- Each architecture's SMP glue provides --------------------------------------------------- */

unsigned smp_this_cpu(void);          /* 0 for the boot CPU */
uint64_t smp_now(void);               /* a free-running counter, smp_freq() per second */
uint64_t smp_freq(void);
/* After CPU 0 wrote or poisoned the module's code: the other CPUs' instruction fetch sees it
 * (arm64: dsb, ic ialluis, isb). */
void smp_sync_icache(void);
/* On a CPU about to call code another CPU wrote (arm64: isb). */
void smp_sync_fetch(void);
/* Whether the instruction before return address ra is a call; *target is a direct call's target,
 * 0 for an indirect call (its target is not known). */
int smp_call_before(uint64_t ra, uint64_t *target);
/* The target of an unconditional direct jump (a tail call) at address at, or 0. Code is scanned
 * for them every SMP_INSN_ALIGN bytes: instructions are 4-byte aligned on arm64, 2 on s390x, and
 * x86_64's may start at any byte. */
uint64_t smp_jump_at(uint64_t at);
#if defined(__aarch64__)
#define SMP_INSN_ALIGN 4
#elif defined(__s390x__)
#define SMP_INSN_ALIGN 2
#else
#define SMP_INSN_ALIGN 1
#endif
/* The start of CPU cpu's outermost function (where its walks must end). */
uint64_t smp_root(unsigned cpu);

/* ---- Common (smp.c) ------------------------------------------------------------------------- */

/* Before anything else: the kernel's module (for frame checks) and the module's text range. */
void smp_init(void);

/* A tick's check: walks from regs (the interrupted registers of a timer interrupt on this CPU),
 * checks every frame, counts, and passes a quiescent point. Then the caller arms the next tick
 * unless smp_stopping(). */
void smp_tick(const struct sfu_regs *regs);
int smp_stopping(void);
/* The next interval between ticks: period + a pseudo-random part below period, per CPU. */
uint64_t smp_next_interval(unsigned cpu, uint64_t period);

/* An other CPU, once its timer runs: says it is up, then calls into the module while it is
 * live and does kernel work, each turn a quiescent point, until CPU 0 stops everything. The
 * caller then stops its timer and calls smp_cpu_done. */
void smp_work(unsigned cpu);
void smp_cpu_done(unsigned cpu);
/* CPU 0: whether CPU cpu said it is up within a second. */
int smp_wait_up(unsigned cpu);
/* CPU 0: starts CPUs 1 .. max_cpus - 1 in turn with start(cpu), which returns 1 when the CPU came
 * up (smp_wait_up), 0 when the machine has no such CPU (the end of the list), -1 when it was
 * started but never came up (an sfu-error); stops at the first that is not up, prints
 * "smp: N CPUs" and returns N. With no second CPU the run ends there, failed. */
unsigned smp_start_cpus(unsigned max_cpus, int (*start)(unsigned cpu));

/* CPU 0, with ncpus running and its own ticks going: the module's ROUNDS rounds. Returns the
 * rounds that went right; then the caller stops its own ticks and calls smp_finish. Prints
 * nothing: a tick in the console code would walk through libsfu's sibling calls, which the
 * caller check cannot follow. */
uint64_t smp_rounds(unsigned ncpus);
/* Stops the others, waits for them, prints every count (sfu-count 9-smp/...) and the first
 * wrong sample of each CPU. Returns the on-device failures. */
int smp_finish(unsigned ncpus, uint64_t rounds_ok);
/* Sets the flag every CPU stops at (smp_finish does it too). */
void smp_stop(void);

#endif /* SFU_QEMU_SMP_H */
