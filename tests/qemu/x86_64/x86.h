/* The x86_64 test kernel's own definitions, shared by its C and assembly files. */
#ifndef SFU_QEMU_X86_H
#define SFU_QEMU_X86_H

/* GDT selectors (cpu.c builds the table; boot.S loads an early copy of the first three). */
#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define TSS_SEL 0x18

/* Stacks, page-aligned in .bss (stacks.S), each above a guard page that stacks_init unmaps. */
#define TASK_STACK_SIZE 0x4000 /* boot and every scenario */
#define IRQ_STACK_SIZE 0x4000  /* timer interrupt: IST2 */
#define DF_STACK_SIZE 0x2000   /* double fault: IST1 */
#define NMI_STACK_SIZE 0x2000  /* NMI: IST3 */
#define SMALL_STACK_SIZE 0x200 /* what the double-fault scenario overflows */
#define IST_DF 1
#define IST_IRQ 2
#define IST_NMI 3

/* Where the other CPUs' real-mode start code runs (smp/start.c, smp/trampoline.S): page-aligned
 * below 1 MiB, as a STARTUP IPI's vector (TRAMPOLINE >> 12) must say. */
#define TRAMPOLINE 0x8000

/* Vectors. */
#define VEC_DE 0
#define VEC_DB 1
#define VEC_NMI 2
#define VEC_BP 3
#define VEC_UD 6
#define VEC_DF 8
#define VEC_PF 14
#define VEC_TIMER 32
#define VEC_SPURIOUS 255

#define RFLAGS_TF 0x100

#ifndef __ASSEMBLER__

#include <stdint.h>

#include "kernel.h"

/* Functions traces name: never inlined, cloned or merged, so each keeps its frame and name. */
#define noipa __attribute__((noipa))

/* What vectors.S saves, lowest address first: the general registers it pushes, the vector and
 * error code (0 where the CPU pushes none), then the CPU's own frame. trap_dispatch gets a
 * pointer to it, which is also the SP the entry code calls C with (walk.c's trap layout). */
struct trap_frame {
  uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
  uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
  uint64_t vector, error;
  uint64_t rip, cs, rflags, rsp, ss;
};

/* A vector's handler; trap_dispatch fails the run for a vector without one. */
typedef void (*trap_handler)(struct trap_frame *frame);
void trap_set_handler(unsigned vector, trap_handler handler);

/* The interrupted (or faulting) registers of a trap frame, every one valid, for a walk. */
void trap_regs(const struct trap_frame *frame, struct sfu_regs *regs);

/* Resumes after a faulting instruction listed with FIXUP; returns 0 if it is not listed. */
int trap_fixup(struct trap_frame *frame);

/* A point to resume at after a fault that cannot be resumed (like setjmp/longjmp, through the
 * trap frame): resume_save returns 0, and 1 again when a handler calls trap_resume. */
struct resume_point {
  uint64_t rip, rsp, rbx, rbp, r12, r13, r14, r15;
};
int resume_save(struct resume_point *point) __attribute__((returns_twice));
void trap_resume(struct trap_frame *frame, const struct resume_point *point);

/* Calls fn(arg) with RSP at stack_top (context.S); the CFI leads a walk back to the caller. */
void run_on_stack(void (*fn)(void *), void *arg, void *stack_top);

/* FIXUP(fault, resume): the instruction at label `fault` may fault; resume at label `resume`.
 * For inline asm, e.g. "1: ud2\n2:\n" FIXUP(1b, 2b). */
#define FIXUP(fault, resume) \
  ".pushsection .fixup_table, \"a\"\n.balign 8\n.quad " #fault ", " #resume "\n.popsection\n"

/* Setup, in the order kernel_main calls it. */
void serial_init(void);
void cpu_init(void); /* GDT, TSS with the IST stacks, IDT; PIC masked */
void apic_init(void);
void apic_timer_oneshot(uint32_t ns); /* one VEC_TIMER interrupt in about ns nanoseconds */
void apic_eoi(void);
void apic_send_nmi_self(void);

/* The other CPUs of the smp kernel (smp/): each its own stacks, each array the size of its
 * CPU 0 counterpart; cpu_init_secondary gives the CPU its GDT and TSS (IST stacks) and the IDT.
 * cpu_stacks[cpu] (NULL for CPU 0: the stacks below) is what arch_walk_config declares for it;
 * this_cpu() is the local APIC's ID (QEMU numbers CPUs 0, 1, ...). */
#define X86_MAX_CPUS 4
struct x86_cpu_stacks {
  uint8_t *task, *irq, *df, *nmi;
};
extern const struct x86_cpu_stacks *cpu_stacks[X86_MAX_CPUS];
void cpu_init_secondary(unsigned cpu, const struct x86_cpu_stacks *stacks);
unsigned this_cpu(void);
void apic_start_cpu(unsigned apic_id, unsigned vector); /* INIT, STARTUP, STARTUP */
void apic_timer_stop(void);
uint32_t apic_timer_count(void); /* the current count of the one-shot timer */
/* smp/start.c: the trampoline put in place (once, before the first ap_start), and CPU `cpu`
 * started through it on stacks of its own (cpu_stacks[cpu]); it calls secondary_main(cpu). */
void ap_install_trampoline(void);
void ap_start(unsigned cpu);
void secondary_main(unsigned cpu);

/* The stacks (stacks.S; each one's lowest address), declared to walks in walk.c. */
extern uint8_t task_stack[], irq_stack[], df_stack[], nmi_stack[], small_stack[];
void stacks_init(void); /* unmaps the guard page below each */

/* The entry code's bounds (vectors.S): what the walker crosses by the trap layout. */
extern char trap_entry_start[], trap_entry_end[];

/* Scenarios, each ending with its traces printed; they return the on-device failures. */
int scenario_faults(void);
int scenario_corrupt(void);
int scenario_sampling(void);
int scenario_stacks(void);
int scenario_step(void);
int scenario_reentry(void); /* 10: a walk in a walk (NMI), a faulting stack read (reentry.c) */

/* A run of the sampling workload (workload.c), also what single-stepping walks through. */
void workload_run(unsigned rounds);

/* Steps body() (called from step_root through the common chain) instruction by instruction,
 * checking the walk at each against a shadow stack, and prints "sfu-count NAME OK TOTAL" (step.c):
 * scenario 3 and the every-instruction kernels (every.c). */
void step_through(const char *name, void (*body)(void));

/* A handler of a trap taken while stepping steps itself too (every.c): STEP_HANDLER_BEGIN(f)
 * in the handler's own body, where its return address is the one into trap_dispatch, sets
 * RFLAGS.TF from the next instruction on, each walk then expected to cross f's trap frame into
 * the interrupted code; STEP_HANDLER_END clears it again before the handler returns (the entry
 * code's return is not stepped: trap_common's pops and iretq move RSP under a trap layout that
 * holds only at its call). The pushfq/popfq pairs say what they do to RSP in the CFI: the steps
 * between them are walked too, and the CFA there is RSP-based. step_handler_count prints "sfu-count NAME OK TOTAL" of the steps taken
 * inside handlers in the last step_through. */
int step_handler_prepare(const struct trap_frame *f, uint64_t ret);
void step_handler_done(void);
void step_handler_count(const char *name);
#define STEP_HANDLER_BEGIN(f)                                                                  \
  int step_handler_ = step_handler_prepare((f), (uint64_t)(uintptr_t)__builtin_return_address(0)); \
  if (step_handler_)                                                                          \
  __asm__ volatile("pushfq; .cfi_adjust_cfa_offset 8; orq %0, (%%rsp); popfq; .cfi_adjust_cfa_offset -8; nop" \
                   ::"i"(RFLAGS_TF) : "memory", "cc")
#define STEP_HANDLER_END()                                                                           \
  do {                                                                                               \
    if (step_handler_) {                                                                             \
      __asm__ volatile("pushfq; .cfi_adjust_cfa_offset 8; andq %0, (%%rsp); popfq; .cfi_adjust_cfa_offset -8" \
                       ::"i"(~(uint64_t)RFLAGS_TF) : "memory", "cc");                                \
      step_handler_done();                                                                           \
    }                                                                                                \
  } while (0)

/* Port I/O and other instructions. */
static inline void outb(uint16_t port, uint8_t v) {
  __asm__ volatile("outb %0, %1" ::"a"(v), "Nd"(port));
}
static inline uint8_t inb(uint16_t port) {
  uint8_t v;
  __asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
  return v;
}
static inline void outl(uint16_t port, uint32_t v) {
  __asm__ volatile("outl %0, %1" ::"a"(v), "Nd"(port));
}
static inline void irq_enable(void) { __asm__ volatile("sti" ::: "memory"); }
static inline void irq_disable(void) { __asm__ volatile("cli" ::: "memory"); }
static inline uint64_t read_cr2(void) {
  uint64_t v;
  __asm__ volatile("mov %%cr2, %0" : "=r"(v));
  return v;
}

#endif /* __ASSEMBLER__ */
#endif /* SFU_QEMU_X86_H */
