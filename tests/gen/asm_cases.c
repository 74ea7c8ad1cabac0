/* Calls the hand-written cases of tests/gen/<arch>/cases.S (see README.md). The signal
 * trampolines would call rt_sigreturn: they are only referenced, behind gen_zero. */
#include "gen.h"

#if defined(__x86_64__)
long asm_x86_drap(long x);
long asm_x86_two_epilogues(long x);
long asm_x86_args_size(long x);
long asm_x86_huge_frame(long x);
long asm_x86_stack_sum(long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8);
void asm_x86_sigtramp(void);

NOINLINE long run_asm_cases(long x) {
  long r = asm_x86_drap(x);
  r += asm_x86_two_epilogues(x);
  r += asm_x86_two_epilogues(r);
  r += asm_x86_args_size(x);
  r += asm_x86_huge_frame(x);
  r += asm_x86_stack_sum(x, x, x, x, x, x, x, x);
  if (gen_zero) asm_x86_sigtramp();
  return r;
}

#elif defined(__aarch64__)
long asm_a64_leaf(long x);
long asm_a64_frame(long x);
long asm_a64_pac_a(long x);
long asm_a64_pac_b(long x);
long asm_a64_two_epilogues(long x);
long asm_a64_cfa_x9(long x);
long asm_a64_ra_in_x9(long x);
long asm_a64_fp_only_clang(long x);
long asm_a64_fp_only_gcc(long x);
void asm_a64_sigtramp(void);

NOINLINE long run_asm_cases(long x) {
  long r = asm_a64_leaf(x);
  r += asm_a64_frame(x);
  r += asm_a64_pac_a(x);
  r += asm_a64_pac_b(x);
  r += asm_a64_two_epilogues(x);
  r += asm_a64_two_epilogues(r);
  r += asm_a64_cfa_x9(x);
  r += asm_a64_ra_in_x9(x);
  r += asm_a64_fp_only_clang(x);
  r += asm_a64_fp_only_gcc(x);
  if (gen_zero) asm_a64_sigtramp();
  return r;
}

#elif defined(__s390x__)
long asm_s390_leaf_fpr(long x);
long asm_s390_frame(long x);
long asm_s390_two_epilogues(long x);
long asm_s390_large_frame(long x);
void asm_s390_sigtramp(void);

NOINLINE long run_asm_cases(long x) {
  long r = asm_s390_leaf_fpr(x);
  r += asm_s390_frame(x);
  r += asm_s390_two_epilogues(x);
  r += asm_s390_two_epilogues(r);
  r += asm_s390_large_frame(x);
  if (gen_zero) asm_s390_sigtramp();
  return r;
}

#else
#error "tests/gen: x86_64, aarch64 or s390x only"
#endif
