/* The s390x every-instruction kernels (every-<table>.elf; tests/qemu/README.md, "Every
 * instruction"): a PER instruction-fetch event before every instruction of the whole workload
 * (every-work.c), a walk at each, checked frame by frame against a shadow of the stack this file
 * keeps by watching the instructions run, never by reading the tables.
 *
 * Stepping. As in scenario 3 (stepping.c, which says which QEMU 7.2 faults make it nullifying
 * events and -singlestep): CR9 asks for an event before each instruction fetched in [CR10, CR11];
 * each event narrows the range to every address but its own (CR10 > CR11 wraps around), so the
 * next event is the next instruction, wherever the code goes: the workload, the library, the
 * common code, address 0. The PSW's PER bit turns it on (every_steps).
 *
 * The shadow. Each event knows the instruction stepped before it (prev) and the PC and SP it led
 * to. A taken call (BRASL, BRAS, BASR, BAS: prev's next address not the one that follows) pushes
 * the address after it with the SP of the call; a transfer to the shadow's top address with its
 * SP is a return and pops it; any other jump (a tail call: JG, BR to another function) changes
 * nothing, as a tail call leaves the return address where it was. The frames above the stepped
 * code are the return addresses kernel_main and every_steps were entered with
 * (__builtin_return_address), down to _start. A walk at PC must give PC with the event's SP, then
 * the shadow's addresses (and SPs, where known) innermost first, and nothing more: end-of-stack,
 * reliable (the clean-end table of docs/errors.md: _start's outermost row). The one exception is
 * the call through a NULL pointer: from a frame at PC 0 (or a trap frame's PSW 2 just past it) on,
 * the walk is unreliable by design (include/sfu/unwind.h), and must say so.
 *
 * Interrupts and exceptions. PER events are program interruptions, and the program and external
 * new PSWs mask PER: pgm_entry, ext_entry (entry.S) and the C dispatchers that call the hooks
 * (traps.c, timer.c) run unstepped. The workload's faults (every-work.c's run_chain faults) are
 * stepped up to the faulting instruction, and its one-shot ticks come between two stepped
 * instructions. The hooks (every_program_check, every_tick) then step their handler's work
 * (step_handler: PER on in their own PSW, the exception stack's top lowered for a fault, since
 * the PER events use that stack too): the library walking the interrupted context from its trap
 * frame, as a kernel's handler would, each PER walk crossing the entry's trap frame into it.
 * Those walks must give, under the shadow's frames of the handler, the return addresses the hook
 * and step_handler were entered with, the address after the entry's call (decoded from the entry
 * code), the interrupted PSW with its SP, then the task's frames. Back in the task, stepping goes
 * on where it stopped. EVERY_STEP_ENTRY (every-entry.elf) steps ext_entry too, the external new
 * PSW carrying PER: the walks inside the entry code show the walker's limitation there (README).
 *
 * At each step, after its own check, every oracle_every-th walk is handed to gdb
 * (common/oracle.h), but for the NULL call's (gdb cannot unwind from a PC in no code). The kernel prints "sfu-count every-instruction OK TOTAL",
 * "sfu-oracle-handed N" and "sfu-done N". Built with -fno-optimize-sibling-calls (kernel.mk): the
 * exception path's frames are calls. */
#include <stdint.h>

#include "every.h"
#include "oracle.h"
#include "timer.h"
#include "traps.h"

#define noipa __attribute__((noipa))
/* Workload rounds per run: sized so that each of the four kernels boots in well under 30 s
 * (tests/qemu/s390x/README.md has the counts). */
#ifndef EVERY_ROUNDS
#define EVERY_ROUNDS 5
#endif
#define MAX_FRAMES 96
#define BODY_FRAMES 3
#define MAX_CONTEXTS 4
#define MAX_REPORTS 8
/* What step_handler keeps of the exception stack below its frame for a fault's stepped body (a
 * short walk: well under 2 KiB), above the PER events' own frames. */
#define EXC_STACK_GAP 4096

struct want {
  uint64_t pc, sp; /* sp 0: not known (the frames above the stepped code) */
};

/* The task, and a handler stepped on top of it (step_handler). */
struct context {
  unsigned start;   /* its first frame in shadow.fr[] */
  unsigned floor;   /* no return pops below: frames it did not see called */
  uint64_t prev_pc; /* the interrupted context's last stepped instruction */
  int entry;        /* EVERY_STEP_ENTRY: an interruption stepped from ext_entry's first instruction */
};

static struct {
  struct want fr[MAX_FRAMES]; /* outermost first */
  unsigned n;
  struct context ctx[MAX_CONTEXTS];
  unsigned depth;
  uint64_t prev_pc;
  int have_prev;
  uint64_t ok, total;
  unsigned reported, lost;
} shadow;

static unsigned ticks, ticks_armed, faults, unstepped_faults, bad_walks;
static const char *first_bad;
#define MAX_TICKS_SHOWN 8
static uint64_t tick_at[MAX_TICKS_SHOWN]; /* where the ticks came, for the log */

void every_note_walk(const char *what, int ok) {
  if (ok) return;
  if (!bad_walks++) first_bad = what;
}

/* ---- Instructions ------------------------------------------------------------------------- */

static uint8_t byte_at(uint64_t a) { return *(const volatile uint8_t *)(uintptr_t)a; }

/* The length from the first two bits of the opcode. */
static unsigned insn_len(uint64_t a) {
  uint8_t op = byte_at(a);
  return op < 0x40 ? 2 : op < 0xc0 ? 4 : 6;
}

/* BRASL, BRAS, BASR, BAS: the branches that leave a return address in a register. */
static int is_call(uint64_t a) {
  uint8_t op = byte_at(a);
  if (op == 0x0d || op == 0x4d) return 1;
  return (op == 0xc0 || op == 0xa7) && (byte_at(a + 1) & 0xf) == 5;
}

/* The address after the BRASL in [lo, hi) that calls target, or 0. */
static uint64_t return_after_call(uint64_t lo, uint64_t hi, uint64_t target) {
  for (uint64_t a = lo; a < hi; a += insn_len(a)) {
    if (byte_at(a) != 0xc0 || (byte_at(a + 1) & 0xf) != 5) continue;
    int32_t halfwords = (int32_t)((uint32_t)byte_at(a + 2) << 24 | (uint32_t)byte_at(a + 3) << 16 |
                                  (uint32_t)byte_at(a + 4) << 8 | byte_at(a + 5));
    if (a + 2 * (int64_t)halfwords == target) return a + 6;
  }
  return 0;
}

/* ---- The machine ---------------------------------------------------------------------------- */

struct per_controls {
  uint64_t cr9, cr10, cr11;
};

static void load_per(const struct per_controls *c) {
  __asm__ volatile("lctlg %%c9,%%c11,%0" ::"Q"(*c) : "memory");
}

static void per_on(void) {
  uint8_t old;
  __asm__ volatile("stosm %0,%1" : "=Q"(old) : "i"(PSW_MASK_PER >> 56) : "memory");
}

static void per_off(void) {
  uint8_t old;
  __asm__ volatile("stnsm %0,%1" : "=Q"(old) : "i"(~(PSW_MASK_PER >> 56) & 0xff) : "memory");
}

static uint64_t lowcore_get(unsigned off) {
  uint64_t v;
  __asm__ volatile("lg %0,%1" : "=d"(v) : "i"(off) : "memory");
  return v;
}

static void lowcore_set(unsigned off, uint64_t v) { __asm__ volatile("stg %0,%1" ::"d"(v), "i"(off) : "memory"); }

static uint64_t current_sp(void) {
  uint64_t sp;
  __asm__ volatile("lgr %0,%%r15" : "=d"(sp));
  return sp;
}

/* ---- The shadow ------------------------------------------------------------------------------ */

static void lose(const char *why) {
  if (shadow.lost++ == 0) {
    kputs("sfu-error every-instruction: the shadow stack lost track: ");
    kputs(why);
    kputs("\n");
  }
}

static void push(uint64_t pc, uint64_t sp) {
  if (shadow.n == MAX_FRAMES) {
    lose("calls nest too deep");
    return;
  }
  shadow.fr[shadow.n++] = (struct want){pc, sp};
}

static struct context *context_open(uint64_t prev_pc) {
  if (shadow.depth == MAX_CONTEXTS) {
    lose("contexts nest too deep");
    kernel_done(1);
  }
  struct context *c = &shadow.ctx[shadow.depth++];
  *c = (struct context){shadow.n, shadow.n, prev_pc, 0};
  return c;
}

static void context_close(void) {
  shadow.n = shadow.ctx[--shadow.depth].start;
}

/* What the instruction at prev did, going to next with the SP sp. */
static void executed(uint64_t prev, uint64_t next, uint64_t sp) {
  if (next == prev || next == prev + insn_len(prev)) return; /* not run (an interrupt), or in line */
  if (is_call(prev)) {
    push(prev + insn_len(prev), sp);
    return;
  }
  const struct context *c = &shadow.ctx[shadow.depth - 1];
  if (shadow.n > c->floor && shadow.fr[shadow.n - 1].pc == next && shadow.fr[shadow.n - 1].sp == sp)
    shadow.n--; /* a return */
}

#ifdef EVERY_STEP_ENTRY
static int in_ext_entry(uint64_t pc) { return pc >= (uintptr_t)ext_entry && pc < (uintptr_t)ext_entry_end; }
#endif

static void track(uint64_t pc, uint64_t sp) {
#ifdef EVERY_STEP_ENTRY
  /* The external new PSW has PER: the interruption's first step is ext_entry's first instruction,
   * the interrupted PSW in the external old PSW; the entry's LPSWE returns there. */
  const struct context *c = &shadow.ctx[shadow.depth - 1];
  if (shadow.have_prev && pc == (uintptr_t)ext_entry) {
    uint64_t stopped = lowcore_get(LC_EXT_OLD_PSW + 8);
    executed(shadow.prev_pc, stopped, sp);
    struct context *irq = context_open(stopped);
    push(stopped, sp);
    irq->floor = shadow.n;
    irq->entry = 1;
    shadow.prev_pc = pc;
    return;
  }
  if (c->entry && in_ext_entry(shadow.prev_pc) && byte_at(shadow.prev_pc) == 0xb2 &&
      byte_at(shadow.prev_pc + 1) == 0xb2) { /* LPSWE */
    if (shadow.n != c->floor) lose("an interruption returned with frames left");
    shadow.prev_pc = c->prev_pc;
    context_close();
  }
#endif
  if (shadow.have_prev) executed(shadow.prev_pc, pc, sp);
  shadow.have_prev = 1;
  shadow.prev_pc = pc;
}

/* ---- The check ------------------------------------------------------------------------------- */

static void report(uint64_t pc, unsigned i, const struct sfu_frame *got, const struct want *want,
                   enum sfu_stop stop) {
  if (shadow.reported++ >= MAX_REPORTS) return;
  kputs("every-instruction: at pc ");
  kput_hex(pc);
  kputs(" frame ");
  kput_dec(i);
  if (got) {
    kputs(" is ");
    kput_hex(got->pc);
    kputs(" sp ");
    kput_hex(got->sp);
  } else {
    kputs(" is none, stop ");
    kputs(sfu_stop_name(stop));
  }
  if (want) {
    kputs(", expected ");
    kput_hex(want->pc);
    kputs(" sp ");
    kput_hex(want->sp);
  } else {
    kputs(", expected none");
  }
  kputs("\n");
}

/* 1 if the walk from regs gives exactly the frames the shadow expects, then stops end-of-stack,
 * reliable unless a frame is the NULL call's. */
static int check(uint64_t pc, uint64_t sp, const struct sfu_regs *regs, const struct sfu_walk_config *config) {
  struct want want[MAX_FRAMES + 1];
  unsigned n = 0;
  want[n++] = (struct want){pc, sp};
  const struct context *c = &shadow.ctx[shadow.depth - 1];
  /* In the entry code itself (before its call to C, or after): its CFI calls it outermost, and
   * no trap frame is there to cross. */
  if (!c->entry || shadow.n != c->floor)
    for (unsigned i = shadow.n; i > 0; i--) want[n++] = shadow.fr[i - 1];
  int reliable = 1;
  for (unsigned i = 0; i < n; i++)
    if (want[i].pc < 8) reliable = 0; /* PC 0, or the PSW 2 a trap frame keeps for it */

  struct sfu_cursor cursor;
  struct sfu_frame frame;
  int last_reliable = 0;
  unsigned i = 0;
  sfu_walk_start(&cursor, regs, config);
  for (; sfu_walk_next(&cursor, &frame); i++) {
    if (i >= n || frame.pc != want[i].pc || (want[i].sp && frame.sp != want[i].sp)) {
      report(pc, i, &frame, i < n ? &want[i] : 0, SFU_STOP_NONE);
      return 0;
    }
    last_reliable = frame.reliable;
  }
  enum sfu_stop stop = sfu_walk_stop(&cursor);
  if (i != n || stop != SFU_STOP_END || last_reliable != reliable) {
    report(pc, i, 0, i < n ? &want[i] : 0, stop);
    return 0;
  }
  return 1;
}

/* The gdb oracle's copy of this step (common/oracle.h: pswm pswa r0-r15 f0-f15). */
static void hand_over(const struct trap_frame *tf, const struct sfu_regs *regs,
                      const struct sfu_walk_config *config) {
  oracle_point.serial = shadow.total;
  oracle_point.regs[0] = tf->psw_mask;
  oracle_point.regs[1] = tf->psw_addr;
  for (unsigned r = 0; r < 16; r++) {
    oracle_point.regs[2 + r] = tf->gprs[r];
    oracle_point.regs[18 + r] = tf->fprs[r];
  }
  oracle_point.num_regs = 34;
  oracle_record_walk(regs, config);
  oracle_handover();
}

/* One step: the instruction at insn is next (or, for a fault, has just faulted: tf saved the PSW
 * the fault left), the registers are tf's. */
static void step(const struct trap_frame *tf, uint64_t insn) {
  uint64_t sp = tf->gprs[15];
  track(insn, sp);
  struct sfu_regs regs;
  struct sfu_walk_config config = {0};
  trap_regs(tf, &regs);
  arch_walk_config(&config);
  shadow.total++;
  shadow.ok += check(tf->psw_addr, sp, &regs, &config);
  /* Not a walk from address 0 or the PSW 2 past it (the NULL call): no CFI covers it, and gdb
   * stops there with "PC not saved", where the walk goes on unreliable from r14 by design. */
  if (tf->psw_addr >= 8 && oracle_due()) hand_over(tf, &regs, &config);
}

static void on_step(struct trap_frame *tf) {
  uint64_t pc = tf->psw_addr;
  step(tf, pc);
  const struct per_controls all_but_this = {CR9_IFETCH | CR9_IFETCH_NULLIFY, pc + 1, pc - 1};
  load_per(&all_but_this);
}

/* ---- The exception and interrupt paths ------------------------------------------------------ */

/* Where pgm_entry and ext_entry return to from their C handlers (every_steps finds them). */
static uint64_t pgm_entry_return, ext_entry_return;

/* Steps body(tf), a handler's work, from the handler (PER is masked by the interruption's new
 * PSW until here): each walk crosses the entry's trap frame into the context tf saved, under the
 * frames given in outer (outermost first, down to the caller of this function). A program check
 * lowers the exception stack's top for the PER events meanwhile, below body's frames. */
static noipa void step_handler(struct trap_frame *tf, const uint64_t *outer, unsigned n_outer,
                               void (*body)(const struct trap_frame *tf), int on_exc_stack) {
  struct context *c = context_open(shadow.prev_pc);
  push(tf->psw_addr, tf->gprs[15]);
  for (unsigned i = 0; i < n_outer; i++) push(outer[i], 0);
  push((uintptr_t)__builtin_return_address(0), 0);
  c->floor = shadow.n;
  shadow.have_prev = 0;
  uint64_t top = lowcore_get(LC_EXC_STACK);
  if (on_exc_stack) lowcore_set(LC_EXC_STACK, (current_sp() - EXC_STACK_GAP) & ~7ul);
  per_on();
  body(tf);
  per_off();
  lowcore_set(LC_EXC_STACK, top);
  /* Back in the interrupted code, the next event follows its last stepped instruction (or is
   * that instruction again, if the interruption came before it ran). */
  shadow.prev_pc = c->prev_pc;
  shadow.have_prev = 1;
  context_close();
}

struct extable_entry {
  uint64_t insn, resume;
};
extern const struct extable_entry __start_ex_table[], __stop_ex_table[]; /* kernel.ld */

/* Stepped, in a handler: the library walks the interrupted context from its trap frame, as a
 * kernel's handler would; its first BODY_FRAMES frames must be the trap frame's PSW address and
 * the return addresses the shadow holds under it (the whole walk is what each PER event checks,
 * and stepping it whole costs thousands of events). */
static void body_walk(const struct trap_frame *tf, const char *what) {
  struct sfu_regs regs;
  struct sfu_walk_config config = {0};
  uint64_t pcs[BODY_FRAMES];
  enum sfu_stop why;
  trap_regs(tf, &regs);
  arch_walk_config(&config);
  size_t n = sfu_backtrace(&regs, &config, pcs, BODY_FRAMES, &why);
  const struct want *interrupted = &shadow.fr[shadow.ctx[shadow.depth - 1].start];
  int ok = why == SFU_STOP_NONE && n == BODY_FRAMES;
  for (unsigned i = 0; ok && i < BODY_FRAMES; i++) ok = pcs[i] == interrupted[-(int)i].pc;
  every_note_walk(what, ok);
}

static void fault_body(const struct trap_frame *tf) { body_walk(tf, "the fault handler's sfu_backtrace"); }

/* Where a fault of the workload resumes, or 0, and (*insn) the instruction that faulted: one
 * listed in __ex_table, or the call through NULL (an operation exception at 0, the old PSW at 2),
 * which resumes at the return address in r14. */
static uint64_t fault_resume(const struct trap_frame *tf, uint64_t *insn) {
  uint32_t ilen = (tf->int_code >> 16) & 6;
  for (const struct extable_entry *e = __start_ex_table; e < __stop_ex_table; e++)
    if (e->insn == tf->psw_addr || e->insn + ilen == tf->psw_addr) {
      *insn = e->insn;
      return e->resume;
    }
  *insn = 0;
  return ilen && tf->psw_addr == ilen ? tf->gprs[14] : 0;
}

static noipa int every_program_check(struct trap_frame *tf) {
  uint32_t code = tf->int_code & 0xffff;
  if (code == PGM_PER) {
    on_step(tf);
    return 1;
  }
  uint64_t insn, resume = fault_resume(tf, &insn);
  if ((code & PGM_PER) || !resume) return 0; /* traps.c reports it */
  faults++;
  /* QEMU raises an operation exception (opcode 0x00) before the instruction's PER event: no step
   * came there. The walk from the registers the fault saved is that step. */
  if (!shadow.have_prev || shadow.prev_pc != insn) {
    unstepped_faults++;
    step(tf, insn);
  }
  const uint64_t outer[] = {pgm_entry_return, (uintptr_t)__builtin_return_address(0)};
  step_handler(tf, outer, 2, fault_body, 1);
  tf->psw_addr = resume;
  return 1;
}

static void tick_body(const struct trap_frame *tf) { body_walk(tf, "the tick's sfu_backtrace"); }

/* One tick, then none. */
static noipa void every_tick(struct trap_frame *tf) {
  /* external_handler sets the timer again after this: so far ahead that it never expires. An
   * expiry while CR0 masks it would stay pending in QEMU, to be taken the moment the next
   * timer_start unmasks it, always at the same instruction. */
  timer_stop();
  timer_set_interval_ns(1000000000000000ull);
  if (ticks < MAX_TICKS_SHOWN) tick_at[ticks] = tf->psw_addr;
  ticks++;
#ifdef EVERY_STEP_ENTRY
  tick_body(tf); /* stepped since ext_entry */
  return;
#endif
  /* The interruption came after the last stepped instruction ran, or before: either way the old
   * PSW is where it led, and the task goes on from there. */
  executed(shadow.prev_pc, tf->psw_addr, tf->gprs[15]);
  shadow.prev_pc = tf->psw_addr;
  const uint64_t outer[] = {ext_entry_return, (uintptr_t)__builtin_return_address(0)};
  step_handler(tf, outer, 2, tick_body, 0);
}

void every_tick_arm(unsigned us) {
  ticks_armed++;
  timer_start(us, every_tick);
}

/* ---- The run ------------------------------------------------------------------------------------ */

static noipa void every_steps(uint64_t main_return) {
  const struct per_controls everywhere = {CR9_IFETCH | CR9_IFETCH_NULLIFY, 0, ~0ull};
  const struct per_controls off = {0, 0, 0};
  shadow.n = shadow.depth = 0;
  push(main_return, 0);
  push((uintptr_t)__builtin_return_address(0), 0);
  context_open(0)->floor = shadow.n;
  pgm_entry_return = return_after_call((uintptr_t)pgm_entry, (uintptr_t)pgm_entry_end, (uintptr_t)program_check_handler);
  ext_entry_return = return_after_call((uintptr_t)ext_entry, (uintptr_t)ext_entry_end, (uintptr_t)external_handler);
  if (!pgm_entry_return || !ext_entry_return) lose("no call to C found in the entry code");
  shadow.have_prev = 0;
  program_check_hook = every_program_check;
#ifdef EVERY_STEP_ENTRY
  __asm__ volatile("oi %0,%1" ::"i"(LC_EXT_NEW_PSW), "i"(PSW_MASK_PER >> 56) : "memory");
#endif
  load_per(&everywhere);
  per_on();
  every_workload(EVERY_ROUNDS);
  per_off();
  load_per(&off);
#ifdef EVERY_STEP_ENTRY
  __asm__ volatile("ni %0,%1" ::"i"(LC_EXT_NEW_PSW), "i"(~(PSW_MASK_PER >> 56) & 0xff) : "memory");
#endif
  program_check_hook = 0;
}

__attribute__((noreturn)) void kernel_main(void);

void kernel_main(void) {
  kputs("sfunwind s390x every-instruction kernel\n");
  kernel_register_table();
  /* Real address 0 (the IPL PSW, used only at IPL) gets opcode 0x00 for the NULL call. */
  __asm__ volatile("xc 0(2,%%r0),0(%%r0)" ::: "memory");
  every_steps((uintptr_t)__builtin_return_address(0));
  int failed = 0;
  if (bad_walks) {
    kputs("sfu-error every-instruction: ");
    kputs(first_bad);
    kputs(" and others: ");
    kput_dec(bad_walks);
    kputs(" walks of the workload did not end as expected\n");
    failed++;
  }
  if (ticks != ticks_armed || faults != EVERY_ROUNDS) {
    kputs("sfu-error every-instruction: ticks or faults missing\n");
    failed++;
  }
  failed += shadow.lost != 0;
  kputs("every-instruction: ");
  kput_dec(ticks);
  kputs(" ticks, ");
  kput_dec(faults);
  kputs(" faults stepped through (");
  kput_dec(unstepped_faults);
  kputs(" with no PER event before them: walked from the fault); ticks at");
  for (unsigned i = 0; i < ticks && i < MAX_TICKS_SHOWN; i++) {
    kputs(" ");
    kput_hex(tick_at[i]);
  }
  kputs("\n");
  kernel_count("every-instruction", shadow.ok, shadow.total);
  kputs("sfu-oracle-handed ");
  kput_dec(oracle_handed);
  kputs("\n");
  kernel_done(failed);
}
