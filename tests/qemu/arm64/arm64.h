/* The arm64 test kernel's own declarations: system registers, the trap handlers' interface, the
 * timer, and the scenarios main.c runs. */
#ifndef ARM64_KERNEL_H
#define ARM64_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#include "kernel.h"
#include "trap_frame.h"

void kernel_main(void);

#define read_sysreg(reg)                          \
  ({                                              \
    uint64_t v_;                                  \
    __asm__ volatile("mrs %0, " #reg : "=r"(v_)); \
    v_;                                           \
  })
#define write_sysreg(reg, val) \
  __asm__ volatile("msr " #reg ", %0" ::"r"((uint64_t)(val)) : "memory")
#define isb() __asm__ volatile("isb" ::: "memory")
#define irq_enable() __asm__ volatile("msr daifclr, #2" ::: "memory")
#define irq_disable() __asm__ volatile("msr daifset, #2" ::: "memory")

static inline void mmio_write32(uint64_t addr, uint32_t v) { *(volatile uint32_t *)addr = v; }
static inline uint32_t mmio_read32(uint64_t addr) { return *(volatile uint32_t *)addr; }

/* ESR_EL1: the exception class, and the immediate of a BRK. */
#define ESR_EC(esr) (((esr) >> 26) & 0x3f)
#define ESR_BRK_IMM(esr) ((esr)&0xffff)
#define EC_UNKNOWN 0x00   /* udf, and anything else undefined */
#define EC_DABT_CUR 0x25  /* data abort at EL1 */
#define EC_SSTEP_CUR 0x33 /* software step at EL1 */
#define EC_BRK 0x3c

#define SPSR_D (1u << 9)   /* debug exceptions masked */
#define SPSR_SS (1u << 21) /* software step: one instruction, then a step exception */

/* ---- Stacks (kernel.lds.S) and walk configuration (walk.c) --------------------------------- */

/* SP_EL1 runs the exception and interrupt handlers; SP_EL0 runs everything else (SPSel = 0). */
extern char irq_stack_lo[], irq_stack_hi[], task_stack_lo[], task_stack_hi[];

/* Every CPU's two stacks, by CPU index: CPU 0's are the linker script's above; the SMP kernel
 * (smp/) fills the others' before starting them. TPIDR_EL1 holds the running CPU's index (boot.S
 * sets 0, smp/secondary.S the others'); arch_walk_config declares that CPU's stacks. */
#define ARM64_MAX_CPUS 4
struct cpu_stacks {
  char *irq_lo, *irq_hi, *task_lo, *task_hi;
};
extern struct cpu_stacks cpu_stacks[ARM64_MAX_CPUS];
static inline unsigned this_cpu(void) { return (unsigned)read_sysreg(tpidr_el1); }
/* PSCI CPU_ON (smp/psci.c): CPU `mpidr` starts at entry, x0 = context; 0 on success. */
int64_t psci_cpu_on(uint64_t mpidr, uint64_t entry, uint64_t context);
/* The exception entry code: the vector table and the shared return path (vectors.S). */
extern char entry_text_start[], entry_text_end[];

/* ---- Traps (traps.c), called by vectors.S ---------------------------------------------------- */

void handle_sync(struct trap_frame *frame);
void handle_irq(struct trap_frame *frame);
void handle_fiq(struct trap_frame *frame); /* the hook's, else unexpected */
void handle_unexpected(struct trap_frame *frame, uint64_t vector);

/* The interrupted registers as a walk's start. */
void trap_regs(const struct trap_frame *frame, struct sfu_regs *regs);

/* Arms a checked trace of the next synchronous exception of class ec: it is printed with
 * kernel_trace(name, expect), and the code resumes after the faulting instruction.
 * fault_traced() says whether it happened since, and disarms. */
void trace_next_fault(unsigned ec, const char *name, const char *expect);
int fault_traced(void);
/* With the next traced fault, a second trace from inside handle_sync itself (sfu_capture_here):
 * it crosses the entry code's trap frame into the faulting context. */
void trace_fault_in_handler(const char *name, const char *expect);

/* A scenario's own synchronous exceptions (single-step): returns 1 when it handled one, after
 * setting frame->elr and frame->spsr for the return. NULL: none. */
typedef int (*sync_hook)(struct trap_frame *frame, uint64_t esr);
void set_sync_hook(sync_hook hook);

/* FIXUP(fault, resume): a data abort at label `fault` resumes at label `resume`: handle_sync
 * looks every data abort up in this table (kernel.lds.S) first. For inline asm, e.g.
 * "1: ldrb w0, [x1]\n2:\n" FIXUP(1b, 2b). trap_fixups() counts the aborts it resumed so. */
#define FIXUP(fault, resume) \
  ".pushsection .fixup_table, \"a\"\n.balign 8\n.quad " #fault ", " #resume "\n.popsection\n"
unsigned trap_fixups(void);

/* A scenario's FIQ handler (smp/reentry.c); NULL: a FIQ is unexpected. */
typedef void (*fiq_hook_fn)(struct trap_frame *frame);
void set_fiq_hook(fiq_hook_fn hook);

/* ---- The virtual timer through GICv2 (gic.c, timer.c) ------------------------------------ */

void gic_init(void);
void gic_enable_ppi(unsigned intid);
uint32_t gic_ack(void);
void gic_eoi(uint32_t iar);
/* This CPU's SGI `sgi` made group 0 and signalled as FIQ, priority 0x40; every other SGI and PPI
 * of this CPU group 1, signalled as IRQ (acknowledged through GICC_IAR: AckCtl). */
void gic_fiq_init(unsigned sgi);
void gic_send_sgi_self(unsigned sgi);
#define GIC_SPURIOUS 1023

#define TIMER_INTID 27 /* the EL1 virtual timer's PPI on QEMU virt */
typedef void (*tick_fn)(struct trap_frame *frame);
void timer_init(void);
/* One tick after `ticks` counter ticks (timer_freq() per second), delivered to fn. */
void timer_arm(uint64_t ticks, tick_fn fn);
void timer_stop(void);
uint64_t timer_freq(void);
void timer_irq(struct trap_frame *frame); /* from handle_irq */

/* ---- Scenarios: each returns its on-device failures ------------------------------------- */

int scenario_faults(void);       /* 1: brk, udf, data abort at the bottom of run_chain */
int scenario_corrupt(void);      /* 7: overwritten return address and frame pointer */
int scenario_single_step(void);  /* 3: a trace at every instruction of a chain */
int scenario_sampling(void);     /* 2: timer interrupts sampling workload.c */
int scenario_stack_switch(void); /* 4: a fault on the IRQ stack, traced into the task */
int pac_check(void);             /* 5: in the pac-ret build, signing really changes addresses */
int scenario_reentry(void);      /* 10: a FIQ's walk inside a tick's walk (smp/reentry.c) */
int scenario_nofault(void);      /* 10: a stack read that aborts, recovered (nofault.c) */

/* faults.c: noinline leaves that raise one exception each, then return. */
void fault_brk(void);
void fault_udf(void);
void fault_load(void);

/* workload.c: runs until *stop is set (by the timer handler). */
void workload_run(volatile int *stop);

#endif /* ARM64_KERNEL_H */
