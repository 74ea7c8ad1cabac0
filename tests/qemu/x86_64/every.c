/* The x86_64 every-instruction kernels (every-<table>.elf, tests/qemu/README.md, "Every
 * instruction"): the machine set up as for the scenario kernels, then one run of step.c's
 * single-stepping over a body that reaches every frame shape this kernel has. At each of its
 * instructions the device walks and checks the walk call by call against the shadow stack, and
 * every oracle_every-th walk is handed to gdb (common/oracle.h). The body, stepped whole:
 *   - the common chain (run_chain's tail call, six links) down to every_body;
 *   - workload_run(16), workload.c: leaves, pushes and pops of callee-saved registers, a VLA, an
 *     alloca, a realigned frame, a large fixed frame, recursion 1-8 deep, calls through a pointer
 *     (every one of its 16 rounds, so every VLA, alloca and recursion size it has);
 *   - tail calls (this file is built with sibling calls): direct, through a pointer, and a chain
 *     of them ending in a leaf;
 *   - two faults resumed by the fixup table: #UD (ud2) and #PF (a read of address 0), each
 *     stepped up to the faulting instruction and again from the instruction it resumes at, and
 *     their handler, on_fixup, stepping itself (STEP_HANDLER_BEGIN, step.c) from its first
 *     statement to its last, trap_fixup's search of the table included, each walk crossing the
 *     trap frame into the faulting function ("sfu-count every-instruction/handlers"). The entry
 *     code and trap_dispatch run with TF cleared by the interrupt gate: not stepped;
 *   - the library's own code: sfu_capture_here, a whole sfu_backtrace from here, and a trace of
 *     this point printed with names (sfu_print_backtrace: lookups, the symbol table, printing),
 *     which the runner checks as trace "every/self". */
#include "oracle.h"
#include "x86.h"

#define ROUNDS 16
#define SELF_FRAMES 32

static volatile uint64_t sink;

static noipa uint64_t ev_leaf(uint64_t x) { return (x ^ (x >> 17)) * 0xff51afd7ed558ccdull; }

/* Tail calls: each ends with a jmp to the next, leaving no frame of its own. */
static noipa uint64_t ev_tail_3(uint64_t x) { return ev_leaf(x + 3); }
static noipa uint64_t ev_tail_2(uint64_t x) { return ev_tail_3(x * 5); }
static noipa uint64_t ev_tail_1(uint64_t x) { return ev_tail_2(x ^ 0x55); }
static uint64_t (*volatile ev_target)(uint64_t) = ev_tail_1;
static noipa uint64_t ev_tail_pointer(uint64_t x) { return ev_target(x + 1); }

static noipa void ev_fault_ud(void) { __asm__ volatile("1: ud2\n2:\n" FIXUP(1b, 2b)); }

static noipa uint64_t ev_fault_pf(void) {
  uint64_t value = 7;
  __asm__ volatile("1: movq (%1), %0\n2:\n" FIXUP(1b, 2b) : "+r"(value) : "r"(0ul) : "memory");
  return value;
}

/* Steps itself (STEP_HANDLER_BEGIN): its walks cross the trap frame into the faulting function. */
static noipa void on_fixup(struct trap_frame *f) {
  STEP_HANDLER_BEGIN(f);
  int fixed = trap_fixup(f);
  STEP_HANDLER_END();
  if (!fixed) {
    kputs("sfu-error every: a fault at ");
    kput_hex(f->rip);
    kputs(" with no fixup\n");
    kernel_done(1);
  }
}

/* The library walking this point itself, stepped: sfu_capture_here, sfu_backtrace, then a
 * printed trace of the same point (kernel_trace: sfu_print_backtrace with names). */
static noipa void ev_self_walk(void) {
  struct sfu_regs regs;
  struct sfu_walk_config config = {0};
  uint64_t pcs[SELF_FRAMES];
  enum sfu_stop why;
  sfu_capture_here(&regs);
  arch_walk_config(&config);
  size_t n = sfu_backtrace(&regs, &config, pcs, SELF_FRAMES, &why);
  if (why != SFU_STOP_END || n < 2) kputs("sfu-error every: the stepped sfu_backtrace did not end cleanly\n");
  sink += n;
  /* every_body tail-calls this function, and run_chain chain_1: neither leaves a frame. */
  kernel_trace("every/self", "ev_self_walk " RUN_CHAIN_FRAMES " step_root step_through kernel_main _start | end-of-stack",
               &regs);
}

static void every_body(void) {
  workload_run(ROUNDS);
  sink += ev_tail_1(sink) + ev_tail_pointer(sink);
  ev_fault_ud();
  sink += ev_fault_pf();
  ev_self_walk();
}

void kernel_main(void);
void kernel_main(void) {
  serial_init();
  kputs("sfunwind x86_64 every-instruction kernel\n");
  cpu_init();
  stacks_init();
  apic_init();
  kernel_register_table();
  trap_set_handler(VEC_UD, on_fixup);
  trap_set_handler(VEC_PF, on_fixup);
  step_through("every-instruction", every_body);
  step_handler_count("every-instruction/handlers");
  kputs("sfu-oracle-handed ");
  kput_dec(oracle_handed);
  kputs("\n");
  kernel_done(0);
}
