/* s390x test kernel: the architecture's numbers (lowcore, PSW, control registers) and the trap
 * frame the entry code (entry.S) builds, shared by the assembly and the C code.
 * Prefix 0: the lowcore is real storage 0-8191, reached with base register 0. */
#ifndef S390X_H
#define S390X_H

/* ---- Lowcore (z/Architecture Principles of Operation, "Assigned Storage Locations") ---------- */
#define LC_EXT_CPU_ADDR 0x84 /* external interrupt: CPU address (2 bytes), then its code (2) */
#define LC_PGM_ILC 0x8c      /* program interrupt: instruction length (bytes) in bits 13-14, */
                             /* then the interruption code (2 bytes) */
#define LC_RESTART_OLD_PSW 0x120
#define LC_EXT_OLD_PSW 0x130
#define LC_PGM_OLD_PSW 0x150
#define LC_RESTART_NEW_PSW 0x1a0
#define LC_EXT_NEW_PSW 0x1b0
#define LC_SVC_NEW_PSW 0x1c0
#define LC_PGM_NEW_PSW 0x1d0
#define LC_MCCK_NEW_PSW 0x1e0
#define LC_IO_NEW_PSW 0x1f0
/* Free for the program: where each entry stores the interrupted registers before it has a stack. */
#define LC_PGM_SAVE 0x200
#define LC_EXT_SAVE 0x280
/* Free for the program too: the tops of this CPU's interrupt, exception and task stacks, which
 * the entry code (and the smp kernel's secondary_entry) switch to. Per CPU: each CPU's prefix
 * gives it its own lowcore. */
#define LC_IRQ_STACK 0x300
#define LC_EXC_STACK 0x308
#define LC_TASK_STACK 0x310
/* The restart interruption's own stack and save area: it is taken even inside the other
 * handlers (it cannot be masked), so it shares neither with them. */
#define LC_RST_STACK 0x318
#define LC_RST_SAVE 0x380

/* ---- PSW mask -------------------------------------------------------------------------------- */
#define PSW_MASK_PER 0x4000000000000000  /* bit 1: PER events */
#define PSW_MASK_EXT 0x0100000000000000  /* bit 7: external interrupts */
#define PSW_MASK_WAIT 0x0002000000000000 /* bit 14: wait state */
#define PSW_MASK_64 0x0000000180000000   /* EA + BA: 64-bit addressing */

/* ---- Control register 0 ---------------------------------------------------------------------- */
#define CR0_AFP 0x40000     /* bit 45: additional floating-point registers f1, f3, ... */
#define CR0_CPU_TIMER 0x400 /* bit 53: CPU-timer subclass mask */

/* ---- PER (control register 9; 10 and 11 hold the range) -------------------------------------- */
#define CR9_IFETCH 0x40000000         /* bit 33: instruction-fetching events */
#define CR9_IFETCH_NULLIFY 0x01000000 /* bit 39: ... raised before the instruction runs */

/* ---- Interruption codes ---------------------------------------------------------------------- */
#define PGM_PER 0x80 /* flag in the program interrupt code */
#define EXT_CPU_TIMER 0x1005

/* ---- SIGNAL PROCESSOR orders ------------------------------------------------------------------ */
#define SIGP_STOP 0x05
#define SIGP_RESTART 0x06
#define SIGP_SET_PREFIX 0x0d

/* ---- The trap frame -----------------------------------------------------------------------------
 * entry.S copies the interrupted context here, on the stack it switches to, and calls C with the
 * frame's address, 160 bytes (the callee's register save area) above its SP. */
#define STACK_FRAME_OVERHEAD 160
#define TF_GPRS 0 /* r0-r15 */
#define TF_PSW_MASK 128
#define TF_PSW_ADDR 136
#define TF_FPRS 144     /* f0-f15, by register number */
#define TF_INT_CODE 272 /* program: ILC halfword, code halfword; external: CPU, code; */
                        /* restart: 0 (it has none) */
#define TF_SIZE 280

#ifndef __ASSEMBLER__
#include <stdint.h>

struct trap_frame {
  uint64_t gprs[16];
  uint64_t psw_mask, psw_addr;
  uint64_t fprs[16];
  uint32_t int_code;
  uint32_t pad;
};
_Static_assert(sizeof(struct trap_frame) == TF_SIZE, "entry.S offsets");
_Static_assert(__builtin_offsetof(struct trap_frame, fprs) == TF_FPRS, "entry.S offsets");
_Static_assert(__builtin_offsetof(struct trap_frame, int_code) == TF_INT_CODE, "entry.S offsets");

/* Called by entry.S with the interrupted context; they may change the PSW to resume elsewhere. */
void program_check_handler(struct trap_frame *tf);
void external_handler(struct trap_frame *tf);
void restart_handler(struct trap_frame *tf);
__attribute__((noreturn)) void unexpected_interrupt(void);

/* entry.S: the interrupt entry code, as the walker crosses it. */
extern char pgm_entry[], pgm_entry_end[], ext_entry[], ext_entry_end[], rst_entry[], rst_entry_end[];

/* boot.S: the stacks. */
extern char task_stack_lo[], task_stack_hi[], irq_stack_lo[], irq_stack_hi[];
extern char exc_stack_lo[], exc_stack_hi[], rst_stack_lo[], rst_stack_hi[];

/* The smp kernel's other CPUs: their stacks (NULL for CPU 0, whose stacks are boot.S's), which
 * arch_walk_config declares for them. this_cpu() is the CPU address (STAP): 0, 1, ... in QEMU. */
#define S390X_MAX_CPUS 4
struct s390x_cpu_stacks {
  char *task_lo, *task_hi, *irq_lo, *irq_hi, *exc_lo, *exc_hi;
  char *rst_lo, *rst_hi; /* NULL: the CPU takes no restart interruption once started */
};
extern const struct s390x_cpu_stacks *cpu_stacks[S390X_MAX_CPUS];
/* smp/cpu.c: starts CPU c at secondary_entry on stacks of its own. 1: started (SIGP RESTART
 * accepted), 0: no such CPU, -1: it refused the restart. */
int s390x_start_cpu(unsigned c);
static inline unsigned this_cpu(void) {
  uint16_t a;
  __asm__ volatile("stap %0" : "=Q"(a));
  return a;
}

/* SIGP order to the CPU at address cpu with parameter param: the condition code (0: accepted). */
static inline int sigp(unsigned cpu, unsigned order, uint64_t param) {
  register uint64_t r1 __asm__("1") = param;
  int cc;
  __asm__ volatile("sigp %[r1],%[cpu],0(%[order])\n\tipm %[cc]\n\tsrl %[cc],28"
                   : [r1] "+d"(r1), [cc] "=d"(cc)
                   : [cpu] "d"((uint64_t)cpu), [order] "a"((uint64_t)order)
                   : "cc", "memory");
  return cc;
}

static inline uint64_t stctg0(void) {
  uint64_t v;
  __asm__ volatile("stctg %%c0,%%c0,%0" : "=Q"(v));
  return v;
}
static inline void lctlg0(uint64_t v) { __asm__ volatile("lctlg %%c0,%%c0,%0" ::"Q"(v)); }

#endif /* __ASSEMBLER__ */
#endif /* S390X_H */
