/* The code under test of the x86_64 real-code walk test, compiled by gcc with
 *   -O2 -fomit-frame-pointer -Wa,--gsframe
 * so its unwind information is the SFrame V1 table Debian's gas 2.40 writes. Every function
 * lives in the section sfut_text (the harness knows its bounds from __start_/__stop_sfut_text)
 * and is noipa: not inlined, cloned, folded with a look-alike or changed by IPA.
 *
 * Each function that must appear in a trace pushes itself on a thread-local shadow stack on
 * entry and pops itself after its last call; the pop is also what keeps that call a real call
 * rather than a tail jump. Tail callers (tc_mid*) do not push: they must be in no trace.
 * probe() captures registers twice (sfunwind's sfu_capture_here and libunwind's
 * unw_getcontext) and has the harness walk from both and check against the shadow stack and against libunwind. */
#define _GNU_SOURCE
#include <alloca.h>
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>

#include "walk.h"

#define FN __attribute__((noipa, section("sfut_text")))

__thread const void *sfut_shadow[SFUT_SHADOW_MAX];
__thread int sfut_depth;
#define ENTER(f) (sfut_shadow[sfut_depth++] = (const void *)(f))
#define LEAVE() (sfut_depth--)

volatile int sfut_sink;
volatile int sfut_in[8] = {3, 5, 7, 11, 13, 17, 19, 23};
volatile int sfut_leaf_trap;
static volatile int probe_on = 1;

/* ---- The probe ---------------------------------------------------------------------------- */

FN void probe(void) {
  if (!probe_on) return;
  struct sfu_regs regs;
  unw_context_t uc;
  sfu_capture_here(&regs);
  unw_getcontext(&uc);
  sfut_check_probe(&regs, &uc);
  sfut_sink++;  // keeps the check a call: probe's frame must outlive it
}

/* ---- Leaves ------------------------------------------------------------------------------- */

/* A leaf: no frame, no call. With sfut_leaf_trap set it stops on int3 and the harness walks
 * from the signal context, whose frame 0 is this leaf at an arbitrary instruction. */
FN int leaf_trap(int x) {
  ENTER(leaf_trap);
  if (sfut_leaf_trap) __asm__ volatile("int3" ::: "memory");
  LEAVE();
  return x * 7 + 1;
}

FN int leaf_plain(int x) { return (x ^ 0x5a) + sfut_in[x & 7]; }

/* ---- A deep chain of 25 distinct functions, each with its own frame size ------------------ */

FN int chain_end(int k) {
  ENTER(chain_end);
  if (k == 25) probe();
  int r = leaf_trap(k) + leaf_plain(k);
  LEAVE();
  return r;
}

#define CHAIN(i, next)                                  \
  FN int chain_##i(int k) {                             \
    volatile char pad[1 + 8 * (i % 6)];                 \
    pad[0] = (char)k;                                   \
    ENTER(chain_##i);                                   \
    if (k == i) probe();                                \
    int r = next(k) * (i + 2) + pad[0];                 \
    LEAVE();                                            \
    return r;                                           \
  }

CHAIN(24, chain_end)
CHAIN(23, chain_24)
CHAIN(22, chain_23)
CHAIN(21, chain_22)
CHAIN(20, chain_21)
CHAIN(19, chain_20)
CHAIN(18, chain_19)
CHAIN(17, chain_18)
CHAIN(16, chain_17)
CHAIN(15, chain_16)
CHAIN(14, chain_15)
CHAIN(13, chain_14)
CHAIN(12, chain_13)
CHAIN(11, chain_12)
CHAIN(10, chain_11)
CHAIN(9, chain_10)
CHAIN(8, chain_9)
CHAIN(7, chain_8)
CHAIN(6, chain_7)
CHAIN(5, chain_6)
CHAIN(4, chain_5)
CHAIN(3, chain_4)
CHAIN(2, chain_3)
CHAIN(1, chain_2)
CHAIN(0, chain_1)

/* ---- Recursion ---------------------------------------------------------------------------- */

FN int rec(int n) {
  ENTER(rec);
  probe();  // at every depth
  int r = n ? rec(n - 1) * 3 + n : leaf_trap(n);
  LEAVE();
  return r;
}

/* ---- alloca and VLA frames: gcc addresses them from rbp, so their CFA is rbp-based -------- */

FN void fill(char *p, int n) {
  for (int i = 0; i < n; i++) p[i] = (char)(i * 7 + 1);
}

/* Keeps seven values live across a call: gcc must use every callee-saved register, rbp among
 * them, so its row says where rbp was saved and the walk must restore it from there for the
 * rbp-based frames below. */
FN int greedy(int a) {
  ENTER(greedy);
  int v0 = sfut_in[0] * a, v1 = sfut_in[1] + a, v2 = sfut_in[2] ^ a, v3 = sfut_in[3] - a;
  int v4 = sfut_in[4] * 3 + a, v5 = sfut_in[5] * 5 - a, v6 = sfut_in[6] + 7 * a;
  probe();
  int r = v0 + v1 * v2 - v3 * v4 + (v5 ^ v6) + sfut_sink;
  LEAVE();
  return r;
}

FN int with_vla(int n, int mode) {
  ENTER(with_vla);
  char buf[n];
  fill(buf, n);
  if (mode == 1) probe();
  int r = mode == 1 ? buf[0] : greedy(buf[n - 1] + n);
  LEAVE();
  return r;
}

/* mode 0: probe here; 1: probe in with_vla; 2: probe in greedy, under both. */
FN int with_alloca(int n, int mode) {
  ENTER(with_alloca);
  char *p = alloca(n);
  fill(p, n);
  if (mode == 0) probe();
  int r = mode == 0 ? p[0] : with_vla(n + 8, mode) + p[n - 1];
  LEAVE();
  return r;
}

/* ---- Tail calls: tc_mid* end in a jmp, so they are in no trace ---------------------------- */

FN int tc_target(int x) {
  ENTER(tc_target);
  probe();
  int r = x * 2 + sfut_sink;
  LEAVE();
  return r;
}

/* Frameless tail call. */
FN int tc_mid(int x) { return tc_target(x + 1); }

FN int tc_helper(int x) { return x * 5 + sfut_in[1]; }

/* A tail call from a function with a frame of its own: epilogue, then jmp. */
FN int tc_mid2(int x) {
  volatile char pad[40];
  pad[0] = (char)tc_helper(x);
  return tc_target(x + pad[0]);
}

/* A tail call into a leaf that traps. */
FN int tc_leaf_mid(int x) { return leaf_trap(x * 3); }

FN int tc_outer(int x) {
  ENTER(tc_outer);
  int r = tc_mid(x);
  r += tc_mid2(x);
  r += tc_leaf_mid(x);
  r += sfut_sink;
  LEAVE();
  return r;
}

/* ---- A call that is its function's last instruction ----------------------------------------
 * The return address is then past the function's end (padding or the next function): only a
 * lookup at RA - 1 finds the caller's row. */

static jmp_buf nr_env;

FN __attribute__((noreturn)) void dies(int x) {
  ENTER(dies);
  probe();
  longjmp(nr_env, x + 1);
}

FN void calls_dies(int x) {
  ENTER(calls_dies);
  dies(x * 2);
}

const void *const sfut_fp_cfa_fns[] = {(const void *)with_alloca, (const void *)with_vla};
const int sfut_fp_cfa_count = 2;
const void *const sfut_fp_saver_fn = (const void *)greedy;
const void *const sfut_probe_fn = (const void *)probe;
const void *const sfut_forbidden[3] = {(const void *)tc_mid, (const void *)tc_mid2,
                                       (const void *)tc_leaf_mid};

/* ---- Scenarios ---------------------------------------------------------------------------- */

FN void scen_chain(void) {
  ENTER(scen_chain);
  sfut_case_begin("chain");
  for (int k = 0; k <= 25; k++) sfut_sink += chain_0(k);  // probe at depth k
  sfut_case_end();
  LEAVE();
}

FN void scen_recursion(void) {
  ENTER(scen_recursion);
  sfut_case_begin("recursion");
  sfut_sink += rec(63);  // 64 rec frames: deeper than the default frame cap
  sfut_case_end();
  LEAVE();
}

FN void scen_leaf(void) {
  ENTER(scen_leaf);
  sfut_case_begin("leaf");
  probe_on = 0;
  sfut_leaf_trap = 1;
  sfut_sink += leaf_trap(1);        // straight from here
  sfut_sink += chain_0(-1);         // at the end of the chain
  sfut_sink += rec(55);             // under 56 rec frames
  sfut_sink += tc_outer(2);         // through a tail call
  sfut_leaf_trap = 0;
  probe_on = 1;
  sfut_case_end();
  LEAVE();
}

FN void scen_alloca(void) {
  ENTER(scen_alloca);
  sfut_case_begin("alloca-vla");
  static const int sizes[] = {1, 16, 100, 1000, 5000, 70000};
  for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
    for (int mode = 0; mode < 3; mode++) sfut_sink += with_alloca(sizes[i], mode);
  sfut_case_end();
  LEAVE();
}

FN void scen_tail(void) {
  ENTER(scen_tail);
  sfut_case_begin("tail-call");
  for (int i = 0; i < 4; i++) sfut_sink += tc_outer(i);
  sfut_case_end();
  LEAVE();
}

/* Everything above once more, without the probe, single-stepped: a walk at every instruction
 * boundary, prologues and epilogues included. */
FN int sweep_body(void) {
  ENTER(sweep_body);
  int r = chain_0(-1);
  r += rec(63);
  for (int mode = 0; mode < 3; mode++) r += with_alloca(24, mode) + with_alloca(300, mode);
  r += tc_outer(3);
  LEAVE();
  return r;
}

FN int sweep(void) {
  ENTER(sweep);
  probe_on = 0;
  sfut_sweep_mode(1);
  sfut_tf_on();
  int r = sweep_body();
  sfut_tf_off();
  sfut_sweep_mode(0);
  probe_on = 1;
  LEAVE();
  return r;
}

FN void scen_noreturn(void) {
  ENTER(scen_noreturn);
  sfut_case_begin("noreturn-call");
  for (int i = 0; i < 3; i++) {
    int depth = sfut_depth;
    if (setjmp(nr_env) == 0) calls_dies(i);
    sfut_depth = depth;
  }
  sfut_case_end();
  LEAVE();
}

FN void *thread_entry(void *arg) {
  (void)arg;
  sfut_thread_setup();
  ENTER(thread_entry);
  for (int k = 0; k <= 25; k += 5) sfut_sink += chain_0(k);
  sfut_sink += rec(40);
  sfut_sink += with_alloca(300, 2);
  sfut_sink += tc_outer(7);
  sfut_leaf_trap = 1;
  sfut_sink += tc_leaf_mid(5);
  sfut_leaf_trap = 0;
  sfut_sink += sweep();
  LEAVE();
  return NULL;
}

FN void scen_thread(void) {
  ENTER(scen_thread);
  sfut_case_begin("thread");
  pthread_t t;
  if (pthread_create(&t, NULL, thread_entry, NULL) == 0) pthread_join(t, NULL);
  sfut_case_end();
  LEAVE();
}

FN void scen_sweep(void) {
  ENTER(scen_sweep);
  sfut_case_begin("single-step");
  sfut_sink += sweep();
  sfut_case_end();
  LEAVE();
}

FN int main(int argc, char **argv) {
  ENTER(main);
  sfut_setup(argc, argv);
  sfut_thread_setup();
  scen_chain();
  scen_recursion();
  scen_leaf();
  scen_alloca();
  scen_tail();
  scen_noreturn();
  scen_thread();
  scen_sweep();
  LEAVE();
  return sfut_finish();
}
