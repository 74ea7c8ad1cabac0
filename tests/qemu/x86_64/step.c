/* Single-stepping: scenario 3, and the every-instruction kernels' whole workload (every.c). An
 * int3 in step_root sets RFLAGS.TF in the trap frame, so the CPU raises #DB after every
 * instruction until the second int3 clears it. At each step the
 * handler walks from the trap registers and compares every frame with a shadow stack it keeps
 * itself: it sees each call (RSP down by 8, a return address just past the last instruction on
 * top) and each return (RSP up by 8, RIP the address the call left), so it knows exactly which
 * return addresses the stack holds. The code stepped is the common chain with a body at its
 * bottom: scenario 3's is the sampling workload. The kernel counts correct walks: "sfu-count NAME
 * OK TOTAL". Every oracle_every-th step's walk is handed to gdb as well (common/oracle.h). */
#include "oracle.h"
#include "x86.h"

#define MAX_DEPTH 64
#define MAX_FRAMES 80
#define MAX_REPORTS 5

/* What the stepping knows of the stack. */
struct shadow {
  uint64_t base[MAX_FRAMES]; /* return addresses above step_root, innermost first */
  unsigned base_n;
  uint64_t shadow[MAX_DEPTH]; /* return addresses pushed since stepping began */
  unsigned depth;
  uint64_t prev_rip, prev_rsp;
};

static struct {
  int stepping;
  struct shadow sh;
  unsigned ok, total, reported;
  const char *name;
  /* While a handler steps itself (step_handler_prepare to step_handler_done): the interrupted
   * code's shadow, kept for after it. */
  int in_handler;
  struct shadow outer;
  unsigned handler_steps, handler_ok;
  const struct trap_frame *handler_frame;
} st;

/* The return addresses the shadow knows, innermost first, stored from out[n] on (at most
 * MAX_FRAMES in all); returns the new count. */
static unsigned known_frames(const struct shadow *sh, uint64_t *out, unsigned n) {
  for (unsigned i = sh->depth; i > 0 && n < MAX_FRAMES; i--) out[n++] = sh->shadow[i - 1];
  for (unsigned i = 0; i < sh->base_n && n < MAX_FRAMES; i++) out[n++] = sh->base[i];
  return n;
}

/* Field by field: a struct copy would be a memcpy call, which the kernel has not. */
static void copy_shadow(struct shadow *to, const struct shadow *from) {
  for (unsigned i = 0; i < from->base_n; i++) to->base[i] = from->base[i];
  for (unsigned i = 0; i < from->depth; i++) to->shadow[i] = from->shadow[i];
  to->base_n = from->base_n;
  to->depth = from->depth;
  to->prev_rip = from->prev_rip;
  to->prev_rsp = from->prev_rsp;
}

extern char trap_dispatch_return[]; /* vectors.S */

static void report(const struct trap_frame *f, unsigned frame, uint64_t got, uint64_t want) {
  if (st.reported++ >= MAX_REPORTS) return;
  kputs(st.name);
  kputs(": at rip ");
  kput_hex(f->rip);
  kputs(" frame ");
  kput_dec(frame);
  kputs(" is ");
  kput_hex(got);
  kputs(", expected ");
  kput_hex(want);
  kputs("\n");
}

/* Walks from the step's registers; 1 if every frame is the expected one and the walk ends
 * cleanly right after the last. */
static int check_step(const struct trap_frame *f, const struct sfu_regs *regs,
                      const struct sfu_walk_config *config) {
  uint64_t want[MAX_FRAMES];
  unsigned n = 0;
  if (st.in_handler) st.sh.base[2] = st.handler_frame->rip; /* as the handler moves it (a fixup) */
  want[n++] = f->rip;
  n = known_frames(&st.sh, want, n);

  struct sfu_cursor cursor;
  struct sfu_frame frame;
  sfu_walk_start(&cursor, regs, config);
  unsigned i = 0;
  for (; sfu_walk_next(&cursor, &frame); i++) {
    if (i >= n || frame.pc != want[i]) {
      report(f, i, frame.pc, i < n ? want[i] : 0);
      return 0;
    }
  }
  if (i != n || sfu_walk_stop(&cursor) != SFU_STOP_END) {
    report(f, i, 0, i < n ? want[i] : 0);
    return 0;
  }
  return 1;
}

/* The step's registers in oracle.h's x86_64 order, and the same walk, for gdb. */
static void hand_over(const struct trap_frame *f, const struct sfu_regs *regs,
                      const struct sfu_walk_config *config) {
  const uint64_t r[] = {f->rip, f->rsp, f->rbp, f->rax, f->rbx, f->rcx, f->rdx, f->rsi, f->rdi,
                        f->r8,  f->r9,  f->r10, f->r11, f->r12, f->r13, f->r14, f->r15, f->rflags};
  for (unsigned i = 0; i < sizeof r / sizeof r[0]; i++) oracle_point.regs[i] = r[i];
  oracle_point.num_regs = sizeof r / sizeof r[0];
  oracle_point.serial = st.total;
  oracle_record_walk(regs, config);
  oracle_handover();
}

static void on_debug(struct trap_frame *f) {
  uint64_t top = *(const uint64_t *)(uintptr_t)f->rsp;
  if (f->rsp == st.sh.prev_rsp - 8 && top > st.sh.prev_rip && top <= st.sh.prev_rip + 15 && f->rip != top) {
    if (st.sh.depth == MAX_DEPTH) {
      kputs("sfu-error ");
      kputs(st.name);
      kputs(": calls nest too deep\n");
      kernel_done(1);
    }
    st.sh.shadow[st.sh.depth++] = top; /* a call */
  } else if (f->rsp == st.sh.prev_rsp + 8 && st.sh.depth && f->rip == st.sh.shadow[st.sh.depth - 1]) {
    st.sh.depth--; /* a return */
  }
  st.sh.prev_rip = f->rip;
  st.sh.prev_rsp = f->rsp;
  st.total++;
  struct sfu_regs regs;
  struct sfu_walk_config config = {0};
  trap_regs(f, &regs);
  arch_walk_config(&config);
  int ok = check_step(f, &regs, &config);
  st.ok += ok;
  st.handler_steps += st.in_handler;
  st.handler_ok += st.in_handler && ok;
  if (oracle_due()) hand_over(f, &regs, &config);
}

static void on_breakpoint(struct trap_frame *f) {
  if (st.stepping) { /* the second int3 */
    st.stepping = 0;
    f->rflags &= ~(uint64_t)RFLAGS_TF;
    return;
  }
  /* The first: what lies above step_root, from a walk here; then step from the next
   * instruction on. */
  struct sfu_regs regs;
  struct sfu_walk_config config = {0};
  trap_regs(f, &regs);
  arch_walk_config(&config);
  uint64_t pcs[MAX_FRAMES];
  enum sfu_stop why;
  size_t n = sfu_backtrace(&regs, &config, pcs, MAX_FRAMES, &why);
  if (why != SFU_STOP_END || n < 2) {
    kputs("sfu-error ");
    kputs(st.name);
    kputs(": no clean walk from step_root\n");
    kernel_done(1);
  }
  st.sh.base_n = 0;
  for (size_t i = 1; i < n; i++) st.sh.base[st.sh.base_n++] = pcs[i];
  st.sh.depth = 0;
  st.sh.prev_rip = f->rip;
  st.sh.prev_rsp = f->rsp;
  st.stepping = 1;
  f->rflags |= RFLAGS_TF;
}

int step_handler_prepare(const struct trap_frame *f, uint64_t ret) {
  if (!st.stepping || st.in_handler) return 0;
  copy_shadow(&st.outer, &st.sh);
  /* Above the handler: trap_dispatch, trap_common (its call), the interrupted PC, and what was
   * above that. */
  unsigned n = 0;
  st.sh.base[n++] = ret;
  st.sh.base[n++] = (uint64_t)(uintptr_t)trap_dispatch_return;
  st.sh.base[n++] = f->rip;
  n = known_frames(&st.outer, st.sh.base, n);
  st.sh.base_n = n;
  st.sh.depth = 0;
  st.handler_frame = f;
  st.sh.prev_rip = st.sh.prev_rsp = 0; /* the first step is no call or return */
  st.in_handler = 1;
  return 1;
}

void step_handler_done(void) {
  copy_shadow(&st.sh, &st.outer);
  st.in_handler = 0;
}

void step_handler_count(const char *name) { kernel_count(name, st.handler_ok, st.handler_steps); }

static noipa void step_root(void (*body)(void)) {
  __asm__ volatile("int3" ::: "memory");
  run_chain(body);
  __asm__ volatile("int3" ::: "memory");
}

void step_through(const char *name, void (*body)(void)) {
  st.name = name;
  st.ok = st.total = st.reported = st.handler_steps = st.handler_ok = 0;
  trap_set_handler(VEC_BP, on_breakpoint);
  trap_set_handler(VEC_DB, on_debug);
  step_root(body);
  trap_set_handler(VEC_DB, 0);
  trap_set_handler(VEC_BP, 0);
  kernel_count(name, st.ok, st.total);
}

static void step_leaf(void) { workload_run(16); }

int scenario_step(void) {
  step_through("3-single-step", step_leaf);
  return 0;
}
