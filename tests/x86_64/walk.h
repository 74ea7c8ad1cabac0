/* x86_64 real-code walk test: what the code under test (walk_code.c, gcc -O2
 * -fomit-frame-pointer -Wa,--gsframe), the trap-flag helpers (trap_flag.S) and the harness
 * (walk_harness.cpp, which compares sfunwind with nongnu libunwind) share. */
#ifndef SFUT_WALK_H
#define SFUT_WALK_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "sfu/unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* trap_flag.S */
/* Set and clear EFLAGS.TF: every following instruction raises SIGTRAP. */
void sfut_tf_on(void);
void sfut_tf_off(void);

/* walk_code.c: the expected call chain, kept by every function that must appear in a trace.
 * sfut_shadow[0] is the outermost (main or a thread's entry), sfut_shadow[depth - 1] the
 * innermost. Functions that must not appear (tail callers) do not touch it. */
#define SFUT_SHADOW_MAX 512
extern __thread const void *sfut_shadow[SFUT_SHADOW_MAX];
extern __thread int sfut_depth;
/* Functions whose frames the harness checks in the SFrame table itself. */
extern const void *const sfut_fp_cfa_fns[];    /* alloca / VLA: CFA must be rbp-based */
extern const int sfut_fp_cfa_count;
extern const void *const sfut_fp_saver_fn;     /* uses rbp as a GPR: FP saved at CFA-n */
extern const void *const sfut_probe_fn;        /* the probe: frame 0 of probe walks */
extern const void *const sfut_forbidden[3];    /* tail callers: in no trace */
/* Set by the code under test while it runs a leaf with int3: frame 0 must have no frame. */
extern volatile int sfut_leaf_trap;

/* walk_harness.cpp */
/* Finds and registers the program's .sframe, installs the SIGTRAP handler. Option:
 *   --clobber-below-sp  single-step walks are also made with the 64 bytes under the
 *                       interrupted SP overwritten, as a kernel interrupt frame would (no red
 *                       zone); prints where that changes the walk. Informational only. */
void sfut_setup(int argc, char **argv);
void sfut_thread_setup(void);   /* declare the calling thread's stack */
void sfut_case_begin(const char *name);
void sfut_case_end(void);
int sfut_finish(void);          /* prints the summary; returns the exit status */
/* From the probe: a walk from the captured registers and one from libunwind's context. */
void sfut_check_probe(const struct sfu_regs *captured, unw_context_t *uc);
/* Single-step mode: every SIGTRAP at a PC of the code under test is one compared walk. */
void sfut_sweep_mode(int on);

#ifdef __cplusplus
}
#endif

#endif
