/* s390x test kernel: program checks (faults on purpose, no-fault reads, PER events), restart
 * interruptions, the walk configuration, and the way out of QEMU. */
#include "traps.h"

struct extable_entry {
  uint64_t insn, resume;
};
extern const struct extable_entry __start_ex_table[], __stop_ex_table[]; /* kernel.ld */
extern const struct extable_entry __start_fixup_table[], __stop_fixup_table[];

void (*per_event_hook)(struct trap_frame *tf);
int (*program_check_hook)(struct trap_frame *tf);
void (*restart_hook)(struct trap_frame *tf);
volatile unsigned fixups_taken;

static const char *fault_name, *fault_expect;
static const char *handler_name, *handler_expect;
static int fault_seen;

void expect_fault(const char *name, const char *expect) {
  fault_name = name;
  fault_expect = expect;
  fault_seen = 0;
}

void expect_handler_trace(const char *name, const char *expect) {
  handler_name = name;
  handler_expect = expect;
}

int fault_taken(void) {
  int seen = fault_seen;
  if (!seen) {
    kputs("sfu-error ");
    kputs(fault_name);
    kputs(": the expected fault did not happen\n");
  }
  if (handler_name) {
    kputs("sfu-error ");
    kputs(handler_name);
    kputs(": no fault to trace from\n");
    seen = 0;
  }
  fault_name = fault_expect = handler_name = handler_expect = 0;
  fault_seen = 0;
  return seen;
}

static void unexpected(const char *what, const struct trap_frame *tf) {
  kputs("\nsfu-error unexpected "); /* on a line of its own, whatever was being printed */
  kputs(what);
  kputs(" code ");
  kput_hex(tf->int_code & 0xffff);
  kputs(" at ");
  kput_hex(tf->psw_addr);
  kputs("\n");
  kernel_done(1);
}

/* The entry of [e, end) for the instruction that took the program check, or NULL. The old PSW
 * points at it (nullified) or after it (suppressed or completed, the ILC long): either way the
 * table names it. */
static const struct extable_entry *find_entry(const struct extable_entry *e, const struct extable_entry *end,
                                              const struct trap_frame *tf) {
  uint32_t ilen = (tf->int_code >> 16) & 6;
  for (; e < end; e++)
    if (e->insn == tf->psw_addr || e->insn + ilen == tf->psw_addr) return e;
  return 0;
}

void program_check_handler(struct trap_frame *tf) {
  if (program_check_hook && program_check_hook(tf)) return;
  uint32_t code = tf->int_code & 0xffff;
  if ((code & PGM_PER) && per_event_hook) {
    per_event_hook(tf);
    if ((code & ~PGM_PER) == 0) return; /* a PER event alone */
  }
  /* A no-fault read: resume at its fixup, which reports the read failed. */
  const struct extable_entry *e = find_entry(__start_fixup_table, __stop_fixup_table, tf);
  if (e) {
    fixups_taken++;
    tf->psw_addr = e->resume;
    return;
  }
  /* A call through a NULL function pointer (faults.c): the CPU went to address 0, whose first
   * halfword is opcode 0x00, and took an operation exception there, the old PSW past it. The
   * walk starts at PC 0, and the code resumes at the return address the call left in r14.
   * Any other fault must be listed in __ex_table. */
  uint64_t pc, resume;
  uint32_t ilen = (tf->int_code >> 16) & 6;
  if (fault_name && !fault_seen && tf->psw_addr == ilen) {
    pc = 0;
    resume = tf->gprs[14];
  } else {
    e = find_entry(__start_ex_table, __stop_ex_table, tf);
    if (!e || !fault_name || fault_seen) unexpected("program check", tf);
    pc = e->insn;
    resume = e->resume;
  }
  fault_seen = 1;
  struct sfu_regs regs;
  trap_regs(tf, &regs);
  regs.pc = pc;
  kernel_trace(fault_name, fault_expect, &regs);
  if (handler_name) {
    sfu_capture_here(&regs);
    kernel_trace(handler_name, handler_expect, &regs);
    handler_name = handler_expect = 0;
  }
  tf->psw_addr = resume;
}

void restart_handler(struct trap_frame *tf) {
  if (!restart_hook) unexpected("restart", tf);
  restart_hook(tf);
  __asm__ volatile("" ::: "memory"); /* a call, not a tail call: walks from the hook show this frame */
}

void unexpected_interrupt(void) {
  kputs("sfu-error unexpected interrupt (SVC, machine check or I/O)\n");
  kernel_done(1);
}

/* Innermost first: a walk moves from the restart stack to the exception stack to the interrupt
 * stack to the task stack, never back (a restart interrupts any of them). One row per CPU (the
 * smp kernel's others: cpu_stacks[]); each CPU writes only its own (a walk nested in another on
 * the same CPU writes the same values). */
static struct sfu_stack stacks[S390X_MAX_CPUS][4];
const struct s390x_cpu_stacks *cpu_stacks[S390X_MAX_CPUS];

/* Every entry builds the same trap frame, at the SP they call C with plus 160. */
#define TF_AT(off) (STACK_FRAME_OVERHEAD + (off))
#define GPR(n) [n] = TF_AT(TF_GPRS + 8 * (n))
/* DWARF numbers 16-31 name f0 f2 f4 f6 f1 f3 f5 f7 f8 f10 f12 f14 f9 f11 f13 f15. */
#define FPR(k, f) [16 + (k)] = TF_AT(TF_FPRS + 8 * (f))
static const struct sfu_trap_layout entry_layout = {
    .pc = TF_AT(TF_PSW_ADDR),
    .reg = {GPR(0),     GPR(1),      GPR(2),      GPR(3),     GPR(4),     GPR(5),      GPR(6),
            GPR(7),     GPR(8),      GPR(9),      GPR(10),    GPR(11),    GPR(12),     GPR(13),
            GPR(14),    GPR(15),     FPR(0, 0),   FPR(1, 2),  FPR(2, 4),  FPR(3, 6),   FPR(4, 1),
            FPR(5, 3),  FPR(6, 5),   FPR(7, 7),   FPR(8, 8),  FPR(9, 10), FPR(10, 12), FPR(11, 14),
            FPR(12, 9), FPR(13, 11), FPR(14, 13), FPR(15, 15)},
    .saved = 0xffffffffu,
};
static struct sfu_trap_entry traps[3];

/* The layout's offsets are from the SP the entries call C with, 160 bytes below the frame. */
void trap_regs(const struct trap_frame *tf, struct sfu_regs *regs) {
  kernel_regs_from_layout((const uint8_t *)tf - STACK_FRAME_OVERHEAD, &entry_layout, regs);
}

void arch_walk_config(struct sfu_walk_config *config) {
  unsigned cpu = this_cpu() % S390X_MAX_CPUS;
  const struct s390x_cpu_stacks *c = cpu_stacks[cpu];
  struct sfu_stack *row = stacks[cpu];
  if (cpu == 0 || !c) {
    row[0] = (struct sfu_stack){(uintptr_t)rst_stack_lo, (uintptr_t)rst_stack_hi, SFU_STACK_EXCEPTION};
    row[1] = (struct sfu_stack){(uintptr_t)exc_stack_lo, (uintptr_t)exc_stack_hi, SFU_STACK_EXCEPTION};
    row[2] = (struct sfu_stack){(uintptr_t)irq_stack_lo, (uintptr_t)irq_stack_hi, SFU_STACK_IRQ};
    row[3] = (struct sfu_stack){(uintptr_t)task_stack_lo, (uintptr_t)task_stack_hi, SFU_STACK_TASK};
  } else {
    row[0] = (struct sfu_stack){(uintptr_t)c->rst_lo, (uintptr_t)c->rst_hi, SFU_STACK_EXCEPTION};
    row[1] = (struct sfu_stack){(uintptr_t)c->exc_lo, (uintptr_t)c->exc_hi, SFU_STACK_EXCEPTION};
    row[2] = (struct sfu_stack){(uintptr_t)c->irq_lo, (uintptr_t)c->irq_hi, SFU_STACK_IRQ};
    row[3] = (struct sfu_stack){(uintptr_t)c->task_lo, (uintptr_t)c->task_hi, SFU_STACK_TASK};
  }
  traps[0] = (struct sfu_trap_entry){(uintptr_t)pgm_entry, (uintptr_t)pgm_entry_end, &entry_layout};
  traps[1] = (struct sfu_trap_entry){(uintptr_t)ext_entry, (uintptr_t)ext_entry_end, &entry_layout};
  traps[2] = (struct sfu_trap_entry){(uintptr_t)rst_entry, (uintptr_t)rst_entry_end, &entry_layout};
  /* A CPU without a restart stack (rst_lo NULL) declares the other three. */
  int rst = row[0].lo != 0;
  config->stacks = row + !rst;
  config->num_stacks = 3 + rst;
  config->traps = traps;
#ifdef REENTRY_WRONG /* reentry-wrong.elf, built to fail: the walker is not told of rst_entry */
  config->num_traps = 2;
#else
  config->num_traps = 3;
#endif
}

/* A warm reset (the crash scenario): DIAGNOSE X'308' subcode 1, "reset and load normal". It
 * resets the CPU and the I/O subsystem and keeps all storage, image included: nothing is loaded
 * again (boot.S clears .bss itself, and the image has no .data). The CPU then starts from the
 * 8-byte short-format PSW at absolute address 0, which points at _start: bit 12 says short, EA
 * and BA 64-bit addressing. (Subcode 3, "load clear", would load the ELF again, but may clear
 * storage.) The CPU that resets runs the next boot; the others stop (crash-smp: either CPU). */
#define PSW_SHORT_64 0x0008000180000000ul
void arch_reset(void) {
  extern char _start[];
  uint64_t entry = arch_reset_entry ? arch_reset_entry() : (uint64_t)(uintptr_t)_start;
  uint64_t psw = PSW_SHORT_64 | (uint32_t)entry;
  /* Absolute 0 is real address 0 for a CPU with prefix 0, and real address P for one with
   * prefix P (prefixing swaps the two pages): the smp kernels' other CPUs. */
  uint32_t prefix;
  __asm__ volatile("stpx %0" : "=Q"(prefix));
  register uint64_t parameter __asm__("2") = 0; /* only subcodes 5 and 6 read it */
  register uint64_t subcode __asm__("3") = 1;
  __asm__ volatile("stg %1,0(%3)\n\t" /* no low-address protection */
                   "diag %0,%2,0x308"
                   : "+d"(parameter)
                   : "d"(psw), "d"(subcode), "a"((uint64_t)prefix)
                   : "cc", "memory");
}

/* A disabled wait ends the run: QEMU shuts down cleanly (exit status 0) when the PSW address
 * ends in 0xfff, and reports a guest crash otherwise (-action panic=exit-failure: status 1). */
void arch_exit(int failed) {
  static uint64_t psw[2] __attribute__((aligned(8)));
  psw[0] = PSW_MASK_WAIT | PSW_MASK_64;
  psw[1] = failed ? 0xbad : 0xfff;
  for (;;) __asm__ volatile("lpswe %0" ::"Q"(psw) : "memory");
}
