/* The every-instruction kernels (README.md, "Every instruction"): software step (MDSCR_EL1.SS)
 * through the whole stepped work, a walk at every instruction, each checked frame by frame
 * against what the stepping itself saw, never against the tables.
 *
 * A shadow of the expected frames is kept from the instructions as they run: after a bl/blr
 * (the stepped instruction, read at the last step's PC) its return address and the SP of the
 * call, which is the callee's CFA and so the caller frame's SP; after a ret, the address it went
 * to must be the last one pushed, which is popped; b and br (tail calls) change nothing. Above
 * the first stepped instruction there is one frame, _start's, found from _start's own code (its
 * bl kernel_main) with the SP boot.S gives it. Every walk must give exactly these frames, PC,
 * SP and source ([regs], [table], [trap]), all reliable, and stop end-of-stack.
 *
 * Stepped handlers: a synchronous exception taken by the stepped code (a brk) and every timer
 * interrupt that lands in it unmask debug exceptions in their handler, so the rest of the handler
 * is stepped too, up to the entry code's return address (the steps are taken on SP_EL1, from the
 * EL1h vectors). There the expected frames are the handler's own calls, then the handler's
 * callers up to the entry code (return addresses found from the vector slot's and handle_irq's
 * own code and from __builtin_return_address), the trap frame's interrupted context, and the
 * stepped code's frames below it. The entry code itself and each handler up to the unmasking are
 * not stepped; nor are exclusive load/store sequences (skip_exclusive).
 *
 * Prints "sfu-count every-instruction OK TOTAL", what was covered, "sfu-oracle-handed N". */
#include "every.h"
#include "oracle.h"

#define MDSCR_SS (1u << 0)
#define MDSCR_KDE (1u << 13)
#define MDSCR_MDE (1u << 15) /* breakpoints */
#define DBGBCR_EL1_A64 (0xfu << 5 | 1u << 1 | 1u) /* BAS: an A64 instruction; PMC: EL1; enabled */
#define EC_BKPT_CUR 0x31 /* a breakpoint at EL1 */
#define SPSR_I (1u << 7)
#define SPSR_M_EL1H 5u /* SPSR.M[3:0]: EL1 on SP_EL1, the handlers; EL1t (4) is task code */

#define MAX_EXPECT 96
#define MAX_REPORTS 5
/* Steps in workload.c's loop, then it is told to stop (it ends its turn first). */
#define WORKLOAD_STEPS 20000
/* Timer ticks while it runs, each one's handler stepped: one every 2 ms of the virtual clock
 * (-icount shift=0: a nanosecond an instruction, the stepping code's included), 20-35 a run. */
#define TICK_INTERVAL_US 2000
#define MIN_TICKS 4

uint64_t every_start_ra;
extern char _start[];

struct expect {
  uint64_t pc, sp;
  uint8_t source, sp_known;
};

/* The expected frames above frame 0, outermost first: _start's, then the stepped code's calls;
 * inside a stepped handler, then the handler's base (trap frame, its callers) and its calls. */
static struct expect expect[MAX_EXPECT];
static unsigned expect_n;

/* Level 0: the stepped code on the task stack; 1: a stepped handler above it. */
static struct level {
  unsigned base;    /* entries below this are not the level's own calls: never popped */
  uint64_t prev_pc; /* where the last step stopped: the instruction stepped since */
  int resync;       /* the next step comes before any instruction ran (nothing to read) */
} levels[2];
static int stepping, level;

static volatile int stop_workload;
static volatile uint64_t tick_period;

static struct {
  uint64_t total, ok, steps[2], handler[2], library, workload;
  uint64_t calls, returns, tail_b, tail_br, exceptions, ticks, max_depth;
  uint64_t library_ok, library_total, shadow_errors, reported, exclusive, distinct;
} st;

/* The instructions stepped at least once, a bit each from _stext (the kernels' text is well
 * under 1 MiB). */
#define TEXT_MAX (1u << 20)
static uint64_t stepped_pcs[TEXT_MAX / 4 / 64];

static void mark_stepped(uint64_t pc) {
  uint64_t i = (pc - (uint64_t)_stext) / 4;
  if (pc < (uint64_t)_stext || i >= TEXT_MAX / 4) return;
  if (!(stepped_pcs[i / 64] >> (i % 64) & 1)) st.distinct++;
  stepped_pcs[i / 64] |= 1ull << (i % 64);
}

/* ---- Instructions -------------------------------------------------------------------------- */

static uint32_t insn_at(uint64_t pc) { return *(const volatile uint32_t *)pc; }

static int64_t imm26(uint32_t insn) { return (int64_t)((uint64_t)(insn & 0x03ffffffu) << 38) >> 36; }

static int is_bl(uint32_t insn) { return (insn & 0xfc000000u) == 0x94000000u; }
static int is_b(uint32_t insn) { return (insn & 0xfc000000u) == 0x14000000u; }
/* blr, and the PAC forms blraa, blrab, blraaz, blrabz */
static int is_blr(uint32_t insn) {
  return (insn & 0xfffffc1fu) == 0xd63f0000u || (insn & 0xfefff800u) == 0xd63f0800u;
}
/* br, and braa, brab, braaz, brabz */
static int is_br(uint32_t insn) {
  return (insn & 0xfffffc1fu) == 0xd61f0000u || (insn & 0xfefff800u) == 0xd61f0800u;
}
/* Load and store exclusive (ldxr, ldaxr, ldxp, stxr, stlxr, ...; not the LSE atomics). */
static int is_load_exclusive(uint32_t insn) { return (insn & 0x3fc00000u) == 0x08400000u; }
static int is_store_exclusive(uint32_t insn) { return (insn & 0x3fc00000u) == 0x08000000u; }
/* b.cond, cbz, cbnz, tbz, tbnz: their target, else 0. */
static uint64_t cond_branch_target(uint64_t at, uint32_t insn) {
  if ((insn & 0xff000010u) == 0x54000000u || (insn & 0x7e000000u) == 0x34000000u)
    return at + (uint64_t)((int64_t)((uint64_t)(insn >> 5 & 0x7ffff) << 45) >> 43);
  if ((insn & 0x7e000000u) == 0x36000000u)
    return at + (uint64_t)((int64_t)((uint64_t)(insn >> 5 & 0x3fff) << 50) >> 48);
  return 0;
}
/* ret, retaa, retab */
static int is_ret(uint32_t insn) {
  return (insn & 0xfffffc1fu) == 0xd65f0000u || insn == 0xd65f0bffu || insn == 0xd65f0fffu;
}

/* The return address of the only bl to target in [code, code + max instructions), or 0. */
static uint64_t ra_of_bl(const void *code, unsigned max, const void *target) {
  uint64_t found = 0;
  unsigned n = 0;
  for (unsigned i = 0; i < max; i++) {
    uint64_t at = (uint64_t)code + 4 * i;
    uint32_t insn = insn_at(at);
    if (is_bl(insn) && at + (uint64_t)imm26(insn) == (uint64_t)target) {
      found = at + 4;
      n++;
    }
  }
  return n == 1 ? found : 0;
}

/* A return address as the code keeps it may carry a PAC (pac-gen-v2): the address is below 2^48
 * (TCR_EL1.T0SZ, boot.S). */
static uint64_t strip(uint64_t ra) { return ra & ((1ull << 48) - 1); }

/* ---- Reports ------------------------------------------------------------------------------- */

static void report(const char *what, const struct trap_frame *f, unsigned frame, uint64_t got,
                   uint64_t want) {
  if (st.reported++ >= MAX_REPORTS) return;
  kputs("every-instruction: step ");
  kput_dec(st.total);
  kputs(" at pc ");
  kput_hex(f->elr);
  kputs(" level ");
  kput_dec((uint64_t)level);
  kputs(": ");
  kputs(what);
  kputs(" at frame ");
  kput_dec(frame);
  kputs(": ");
  kput_hex(got);
  kputs(", expected ");
  kput_hex(want);
  kputs("\n");
}

static void shadow_error(const char *what, const struct trap_frame *f, uint64_t got, uint64_t want) {
  st.shadow_errors++;
  report(what, f, expect_n, got, want);
}

/* ---- The shadow ---------------------------------------------------------------------------- */

static void push(uint64_t pc, uint64_t sp, uint8_t source, uint8_t sp_known) {
  if (expect_n == MAX_EXPECT) {
    kputs("sfu-error every-instruction: calls nest too deep\n");
    kernel_done(1);
  }
  expect[expect_n++] = (struct expect){pc, sp, source, sp_known};
  if (expect_n > st.max_depth) st.max_depth = expect_n;
}

static int is_tail_target(const uint64_t *list, unsigned n, uint64_t pc) {
  for (unsigned i = 0; i < n; i++)
    if (list[i] == pc) return 1;
  return 0;
}

/* The instruction at prev_pc ran and the code is now at pc with SP sp. */
static void advance(const struct trap_frame *f, uint64_t prev_pc, uint64_t pc, uint64_t sp) {
  uint32_t insn = insn_at(prev_pc);
  if (is_bl(insn) || is_blr(insn)) {
    push(prev_pc + 4, sp, SFU_SOURCE_TABLE, 1);
    st.calls++;
  } else if (is_ret(insn)) {
    if (expect_n == levels[level].base) {
      shadow_error("a return past the stepped code's first frame", f, pc, 0);
      return;
    }
    expect_n--;
    if (expect[expect_n].pc != pc || (expect[expect_n].sp_known && expect[expect_n].sp != sp))
      shadow_error("a return to where no call was made", f, pc, expect[expect_n].pc);
    st.returns++;
  } else if (is_b(insn) && is_tail_target(every_tail_b, EVERY_TAIL_B, pc)) {
    st.tail_b++;
  } else if (is_br(insn) && is_tail_target(every_tail_br, EVERY_TAIL_BR, pc)) {
    st.tail_br++;
  }
}

/* Before an exception's handler looks at the stepped code: bring level 0 up to the trap frame's
 * state. An instruction that ran without its step (SPSR.SS clear, not a resync) is read now. */
static void catch_up(const struct trap_frame *f) {
  struct level *l = &levels[0];
  if (!l->resync && !(f->spsr & SPSR_SS)) {
    advance(f, l->prev_pc, f->elr, f->sp);
    l->prev_pc = f->elr;
  }
  if (f->elr != l->prev_pc) shadow_error("an exception away from the last step", f, f->elr, l->prev_pc);
}

/* After the handler: the next step comes at once, at the (maybe moved) ELR, before it runs. */
static void resume_stepping(struct trap_frame *f) {
  levels[0].prev_pc = f->elr;
  levels[0].resync = 1;
  f->spsr &= ~(uint64_t)SPSR_SS;
}

/* ---- The check ----------------------------------------------------------------------------- */

/* The walk from the step's registers: every frame as expected, then end-of-stack. */
static int check_step(const struct trap_frame *f) {
  struct sfu_regs regs;
  struct sfu_walk_config config = {0};
  struct sfu_cursor cursor;
  struct sfu_frame frame;
  trap_regs(f, &regs);
  arch_walk_config(&config);
  sfu_walk_start(&cursor, &regs, &config);
  unsigned n = expect_n + 1, i = 0;
  int ok = 1;
  for (; ok && sfu_walk_next(&cursor, &frame); i++) {
    if (i >= n) {
      report("a frame more than expected", f, i, frame.pc, 0);
      ok = 0;
      break;
    }
    struct expect want = i == 0 ? (struct expect){f->elr, f->sp, SFU_SOURCE_REGISTERS, 1}
                                : expect[expect_n - i];
    if (frame.pc != want.pc) report("pc", f, i, frame.pc, want.pc), ok = 0;
    else if (want.sp_known && frame.sp != want.sp) report("sp", f, i, frame.sp, want.sp), ok = 0;
    else if (frame.source != want.source) report("source", f, i, frame.source, want.source), ok = 0;
    else if (!frame.reliable) report("unreliable", f, i, frame.pc, want.pc), ok = 0;
  }
  if (ok && i < n) report("a frame fewer than expected", f, i, 0, expect[expect_n - i].pc), ok = 0;
  if (ok && sfu_walk_stop(&cursor) != SFU_STOP_END)
    report("stop", f, i, sfu_walk_stop(&cursor), SFU_STOP_END), ok = 0;

  if (oracle_due()) {
    oracle_point.serial = st.total;
    oracle_point.num_regs = 34;
    oracle_point.regs[0] = f->elr;
    oracle_point.regs[1] = f->sp;
    for (unsigned r = 0; r < 31; r++) oracle_point.regs[2 + r] = f->x[r];
    oracle_point.regs[33] = f->spsr;
    oracle_record_walk(&regs, &config);
    oracle_handover();
  }
  return ok;
}

/* ---- Stepped handlers ---------------------------------------------------------------------- */

/* The handler being stepped: its trap frame, its kind, and whether the code resumes after the
 * instruction that trapped (a brk) or at it (an interrupt). */
enum { HANDLER_SYNC, HANDLER_IRQ };
static struct trap_frame *handler_frame;
static int handler_kind, handler_skips;

/* Level 1's frames below its own calls, outermost first: the interrupted context (the trap
 * frame, never popped), the entry code's call (its SP: the trap frame, which the entry code
 * passes to the handler), then `callers` return addresses whose SPs only the tables know (the
 * last: the stepping function's own). The handler's first step comes after the unmasking; its
 * last before the entry code's return path (on_step). */
static void handler_begin(struct trap_frame *f, int kind, const void *vector_slot,
                          const void *handler, const uint64_t *callers, unsigned n) {
  push(f->elr, f->sp, SFU_SOURCE_TRAP_FRAME, 1);
  levels[1] = (struct level){expect_n, 0, 1};
  uint64_t entry_ra = ra_of_bl(vector_slot, 32, handler);
  if (!entry_ra) shadow_error("no call to the handler in the vector slot", f, 0, 0);
  push(entry_ra, (uint64_t)f, SFU_SOURCE_TABLE, 1);
  for (unsigned i = 0; i < n; i++) push(callers[i], 0, SFU_SOURCE_TABLE, 0);
  handler_frame = f;
  handler_kind = kind;
  handler_skips = kind == HANDLER_SYNC;
  level = 1;
}

/* The handler returned to the entry code (the step at its return address): the entry code and
 * the exception return run unstepped (PSTATE.D set), and the stepped code's next step comes
 * before it runs anything. */
static void handler_end(struct trap_frame *step) {
  if (expect_n != levels[1].base) shadow_error("a stepped handler ended inside a call", step, expect_n, levels[1].base);
  expect_n = levels[1].base - 1;
  level = 0;
  step->spsr = (step->spsr | SPSR_D) & ~(uint64_t)SPSR_SS;
  if (handler_skips) handler_frame->elr += 4;
  resume_stepping(handler_frame);
}

/* An exclusive load, its store and the instructions between run without steps: the step
 * exception's return clears the exclusive monitor, so a stepped store-exclusive always fails and
 * its loop never ends (debuggers step over such sequences whole too). Breakpoints at the
 * instruction after the store and at any branch out of the sequence stop the code again, with
 * interrupts masked meanwhile; stepping resumes there. Only plain instructions may lie between. */
static uint32_t skip_irq_mask;
static int skipping;

static void skip_exclusive(struct trap_frame *f) {
  uint64_t at = f->elr, store = 0, out = 0;
  for (unsigned i = 1; i < 16 && !store; i++)
    if (is_store_exclusive(insn_at(at + 4 * i))) store = at + 4 * i;
  if (!store) {
    shadow_error("an exclusive load without its store", f, at, 0);
    f->spsr |= SPSR_SS;
    return;
  }
  for (uint64_t p = at + 4; p < store; p += 4) {
    uint32_t insn = insn_at(p);
    uint64_t target = cond_branch_target(p, insn);
    if (is_bl(insn) || is_blr(insn) || is_b(insn) || is_br(insn) || is_ret(insn))
      shadow_error("a jump inside an exclusive sequence", f, p, 0);
    else if (target && (target < at || target > store)) out = target;
  }
  write_sysreg(dbgbvr0_el1, store + 4);
  write_sysreg(dbgbcr0_el1, DBGBCR_EL1_A64);
  if (out && out != store + 4) {
    write_sysreg(dbgbvr1_el1, out);
    write_sysreg(dbgbcr1_el1, DBGBCR_EL1_A64);
  }
  write_sysreg(mdscr_el1, MDSCR_KDE | MDSCR_MDE);
  isb();
  skip_irq_mask = (uint32_t)(f->spsr & SPSR_I);
  f->spsr = (f->spsr | SPSR_I) & ~(uint64_t)SPSR_SS;
  skipping = 1;
  st.exclusive++;
}

/* The sequence's end: stepping again, from a step before the instruction there. */
static void skip_done(struct trap_frame *f) {
  write_sysreg(dbgbcr0_el1, 0);
  write_sysreg(dbgbcr1_el1, 0);
  write_sysreg(mdscr_el1, MDSCR_KDE | MDSCR_SS);
  isb();
  skipping = 0;
  f->spsr = (f->spsr & ~(uint64_t)(SPSR_I | SPSR_SS)) | skip_irq_mask;
  levels[level].prev_pc = f->elr;
  levels[level].resync = 1;
}

static void on_step(struct trap_frame *f) {
  int from_handler = (f->spsr & 0xf) == SPSR_M_EL1H;
  if (from_handler != level) {
    shadow_error("a step at the wrong level", f, (uint64_t)from_handler, (uint64_t)level);
    return;
  }
  struct level *l = &levels[level];
  if (l->resync) l->resync = 0;
  else advance(f, l->prev_pc, f->elr, f->sp);
  if (level == 1 && f->elr >= (uint64_t)entry_text_start && f->elr < (uint64_t)entry_text_end) {
    handler_end(f);
    return;
  }
  st.total++;
  st.steps[level]++;
  mark_stepped(f->elr);
  if (level == 1) st.handler[handler_kind]++;
  if (every_in_library) st.library++;
  st.ok += (uint64_t)check_step(f);
  if (every_in_workload && ++st.workload == WORKLOAD_STEPS) stop_workload = 1;
  l->prev_pc = f->elr;
  if (is_load_exclusive(insn_at(f->elr))) skip_exclusive(f);
  else f->spsr |= SPSR_SS; /* one more instruction */
}

#define UNMASK_DEBUG() __asm__ volatile("msr daifclr, #8" ::: "memory")

/* The timer interrupt (timer_irq's tick function): stepped from the unmasking on, with the rest
 * of timer_irq and handle_irq after it. */
static void on_tick(struct trap_frame *f) {
  uint64_t own_ra = strip((uint64_t)__builtin_return_address(0)); /* in timer_irq */
  catch_up(f);
  uint64_t callers[2] = {ra_of_bl(handle_irq, 64, timer_irq), own_ra};
  if (!callers[0]) shadow_error("no call to timer_irq in handle_irq", f, 0, 0);
  handler_begin(f, HANDLER_IRQ, entry_text_start + 0x080, handle_irq, callers, 2); /* el1t_irq */
  st.ticks++;
  UNMASK_DEBUG();
  every_handler_work(st.ticks, st.ticks == 1);
  if (!stop_workload) timer_arm(tick_period, on_tick);
}

/* A brk of the stepped code (every-work.c): stepped from the unmasking on, with the rest of
 * on_sync and handle_sync after it; the code then resumes after the brk. */
__attribute__((noinline)) static void on_exception(struct trap_frame *f, uint64_t own_ra) {
  catch_up(f);
  uint64_t callers[2] = {own_ra, strip((uint64_t)__builtin_return_address(0))};
  handler_begin(f, HANDLER_SYNC, entry_text_start + 0x000, handle_sync, callers, 2); /* el1t_sync */
  st.exceptions++;
  UNMASK_DEBUG();
  every_handler_work(st.exceptions, st.exceptions == 1);
}

/* ---- The sync hook ------------------------------------------------------------------------- */

static int on_sync(struct trap_frame *f, uint64_t esr) {
  uint64_t own_ra = strip((uint64_t)__builtin_return_address(0)); /* in handle_sync */
  unsigned ec = ESR_EC(esr);
  if (ec == EC_SSTEP_CUR && stepping) {
    on_step(f);
    return 1;
  }
  if (ec == EC_BKPT_CUR && skipping) {
    skip_done(f);
    return 1;
  }
  if (ec != EC_BRK) return 0;
  switch (ESR_BRK_IMM(esr)) {
  case BRK_EVERY_BEGIN:
    /* kernel_main's caller, _start, is the one frame above. */
    expect_n = 0;
    push(every_start_ra, (uint64_t)task_stack_hi - 16, SFU_SOURCE_TABLE, 1);
    f->elr += 4;
    levels[0] = (struct level){expect_n, f->elr, 1};
    level = 0;
    stepping = 1;
    write_sysreg(mdscr_el1, MDSCR_KDE | MDSCR_SS);
    isb();
    f->spsr &= ~(uint64_t)(SPSR_SS | SPSR_D); /* the first step before the next instruction */
    return 1;
  case BRK_EVERY_END:
    if (!stepping) return 0;
    catch_up(f);
    if (expect_n != 1) shadow_error("stepping ended inside a call", f, expect_n, 1);
    stepping = 0;
    write_sysreg(mdscr_el1, 0);
    isb();
    f->elr += 4;
    f->spsr = (f->spsr & ~(uint64_t)SPSR_SS) | SPSR_D;
    return 1;
  case BRK_EVERY_EXCEPTION:
    if (!stepping || level != 0) return 0;
    on_exception(f, own_ra);
    return 1;
  }
  return 0;
}

/* ---- The run ------------------------------------------------------------------------------- */

void every_library_result(int ok) {
  st.library_total++;
  st.library_ok += (uint64_t)(ok != 0);
}

static int need(const char *what, uint64_t have, uint64_t at_least) {
  if (have >= at_least) return 0;
  kputs("sfu-error every-instruction: ");
  kputs(what);
  kputs(": ");
  kput_dec(have);
  kputs(", expected at least ");
  kput_dec(at_least);
  kputs("\n");
  return 1;
}

static int exactly(const char *what, uint64_t have, uint64_t want) {
  if (have == want) return 0;
  kputs("sfu-error every-instruction: ");
  kputs(what);
  kputs(": ");
  kput_dec(have);
  kputs(", expected ");
  kput_dec(want);
  kputs("\n");
  return 1;
}

static void print_counts(void) {
  kputs("every-instruction: ");
  kput_dec(st.total);
  kputs(" steps at ");
  kput_dec(st.distinct);
  kputs(" distinct instructions (");
  kput_dec(st.steps[0]);
  kputs(" task, ");
  kput_dec(st.handler[HANDLER_SYNC]);
  kputs(" in ");
  kput_dec(st.exceptions);
  kputs(" exception handlers, ");
  kput_dec(st.handler[HANDLER_IRQ]);
  kputs(" in ");
  kput_dec(st.ticks);
  kputs(" interrupt handlers; ");
  kput_dec(st.library);
  kputs(" inside the library's walks), ");
  kput_dec(st.calls);
  kputs(" calls, ");
  kput_dec(st.returns);
  kputs(" returns, tail calls ");
  kput_dec(st.tail_b);
  kputs(" b ");
  kput_dec(st.tail_br);
  kputs(" br, ");
  kput_dec(st.exclusive);
  kputs(" exclusive sequences stepped over, deepest ");
  kput_dec(st.max_depth);
  kputs(" frames\n");
}

void kernel_main(void) {
  kernel_register_table();
  kputs("sfunwind arm64 every-instruction kernel, " VARIANT "\n");
  timer_init();
  int failed = pac_check();
  every_start_ra = ra_of_bl(_start, 64, kernel_main);
  write_sysreg(oslar_el1, 0); /* the OS lock, if set, keeps debug exceptions off */
  isb();
  set_sync_hook(on_sync);
  tick_period = timer_freq() / 1000000 * TICK_INTERVAL_US;
  __asm__ volatile("brk %0" ::"i"(BRK_EVERY_BEGIN) : "memory");
  timer_arm(tick_period, on_tick);
  every_work(&stop_workload);
  timer_stop();
  __asm__ volatile("brk %0" ::"i"(BRK_EVERY_END) : "memory");
  set_sync_hook(0);
  print_counts();
  failed += need("the return address in _start found", every_start_ra != 0, 1);
  failed += need("steps in workload.c", st.workload, WORKLOAD_STEPS);
  failed += exactly("stepped exceptions", st.exceptions, 2);
  failed += need("steps in exception handlers", st.handler[HANDLER_SYNC], 1);
  failed += need("stepped timer interrupts", st.ticks, MIN_TICKS);
  failed += need("steps in interrupt handlers", st.handler[HANDLER_IRQ], 1);
  failed += need("steps inside the library", st.library, 1);
  failed += need("tail calls by b", st.tail_b, 1);
  failed += need("tail calls by br", st.tail_br, 1);
  /* Two walks in the task, one in the first exception's handler, one in the first tick's. */
  failed += exactly("the library's own walks", st.library_total, 4);
  failed += exactly("the library's own walks right", st.library_ok, st.library_total);
  failed += exactly("shadow errors", st.shadow_errors, 0);
  kernel_count("every-instruction", st.ok, st.total);
  kputs("sfu-oracle-handed ");
  kput_dec(oracle_handed);
  kputs("\n");
  kernel_done(failed + (st.ok != st.total));
}
