/* The s390x every-instruction kernels' workload, stepped whole by every.c. Built with sibling
 * calls (kernel.mk), unlike the scenario files: its tail calls are jumps that leave no frame.
 * Each round:
 *   - a one-shot tick armed to come a little later, somewhere in the round (every.c: the
 *     interrupt path, stepped);
 *   - scenario 2's workload round (sampling.c): leaves, frames saving a few or all registers, a
 *     large frame, stack arguments, alloca, a VLA, recursion 1-6 deep;
 *   - tail calls: a chain of three (jg), one through a pointer (br), mutual recursion by tail
 *     calls; and a call through a pointer (basr);
 *   - one fault at the bottom of run_chain (run_chain tail-calls chain_1): scenario 1's operation,
 *     specification and addressing exceptions, its call through a NULL pointer, and scenario 6's
 *     leaf that keeps its return address only in f1 (every.c steps the fault's handler too).
 * Then the library on itself: sfu_capture_here, sfu_backtrace, and (EVERY_SELF_TRACE: the kernels
 * with the defaults) a printed trace with names (sfu_print_backtrace, symbols, the console), which
 * the runner checks as trace "every/self". */
#include "every.h"
#include "kernel.h"
#include "scenarios.h"
#include "timer.h"

#define noipa __attribute__((noipa))
#define SELF_FRAMES 32
/* Each round's tick comes TICK_US to TICK_US + TICK_SPREAD microseconds of CPU time after it
 * is armed. A step costs several microseconds (-icount shift=0: 1 ns an instruction; the PER
 * handler's walk and check are thousands), so each tick lands tens to hundreds of steps into its
 * round (the kernel prints where), never past it: a round is over ten thousand steps. */
#define TICK_US 300
#define TICK_SPREAD 4000

void fault_operation(void); /* faults.c */
void fault_specification(void);
void fault_addressing(void);
void fpr_leaf_fault(void); /* fpr_ra.S */

static volatile uint64_t sink;

static noipa uint64_t ev_leaf(uint64_t x) { return (x ^ (x >> 17)) * 0xff51afd7ed558ccdull; }

/* Tail calls: each ends with a jump to the next, leaving no frame of its own. */
static noipa uint64_t ev_tail_3(uint64_t x) { return ev_leaf(x + 3); }
static noipa uint64_t ev_tail_2(uint64_t x) { return ev_tail_3(x * 5); }
static noipa uint64_t ev_tail_1(uint64_t x) { return ev_tail_2(x ^ 0x55); }
static uint64_t (*volatile ev_target)(uint64_t) = ev_tail_1;
static noipa uint64_t ev_tail_pointer(uint64_t x) { return ev_target(x + 1); }
static noipa uint64_t ev_pointer_call(uint64_t x) { return ev_target(x) * 3 + 1; }

/* Mutual recursion that only ever tail-calls. */
static noipa uint64_t ev_odd(unsigned n, uint64_t x);
static noipa uint64_t ev_even(unsigned n, uint64_t x) { return n ? ev_odd(n - 1, x + 1) : ev_leaf(x); }
static noipa uint64_t ev_odd(unsigned n, uint64_t x) { return n ? ev_even(n - 1, x * 3) : ev_leaf(~x); }

/* NULL: run_chain's last link calls through a NULL pointer (faults.c; kernel_main keeps opcode
 * 0x00 at address 0). */
static void (*const ev_faults[])(void) = {fault_operation, fault_specification, fault_addressing, 0,
                                          fpr_leaf_fault};
#define EV_FAULTS (sizeof ev_faults / sizeof ev_faults[0])

/* The library walking this point itself, stepped. Called, not tail-called (timer_stop follows
 * it), so the trace's frames are exactly these. */
static noipa void ev_self_walk(void) {
  struct sfu_regs regs;
  struct sfu_walk_config config = {0};
  uint64_t pcs[SELF_FRAMES];
  enum sfu_stop why;
  sfu_capture_here(&regs);
  arch_walk_config(&config);
  size_t n = sfu_backtrace(&regs, &config, pcs, SELF_FRAMES, &why);
  every_note_walk("the workload's own sfu_backtrace", why == SFU_STOP_END && n == 5);
#ifdef EVERY_SELF_TRACE /* the kernels with the defaults: about 45,000 steps, the no-cache core */
                        /* would take several times as long over them */
  kernel_trace("every/self", "ev_self_walk every_workload every_steps kernel_main _start | end-of-stack",
               &regs);
#endif
}

void every_workload(unsigned rounds) {
  for (unsigned i = 0; i < rounds; i++) {
    every_tick_arm(TICK_US + (i * 1123) % TICK_SPREAD);
    workload_round(i);
    sink += ev_tail_pointer(i) + ev_pointer_call(i) + ev_even(1 + i % 4, i);
    run_chain(ev_faults[i % EV_FAULTS]);
  }
  ev_self_walk();
  timer_stop();
}
