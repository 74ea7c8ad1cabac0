/* Called by <arch>/start.S; calls every case so nothing is dropped. Never meant to run, but
 * would: the noreturn paths and the signal trampolines sit behind gen_zero. */
#include "gen.h"

int main(void) {
  long z = gen_zero, one = gen_one, acc = 0;
  long regs[15];
  for (int i = 0; i < 15; i++) regs[i] = i + z;
  static const unsigned char code[] = {0, 1, 2, 0, 3};

  acc += leaf_add(z, one);
  acc += leaf_locals((int)one);
  acc += leaf_many_regs(regs);
  acc += chain_a(z);
  acc += fib(10 + z);
  acc += many_saved(one, one + 1, one + 2, one + 3, one + 4);
  acc += big_frame_2k((int)z);
  acc += big_frame_80k((int)z);
  acc += use_alloca(16 + (int)z);
  acc += use_vla(32 + (int)z);
  acc += aligned_local((int)one);
  acc += aligned_vla(8 + (int)z);
  acc += aligned_alloca(24 + (int)z);
  acc += frame_address_user(z);

  acc += tail_caller(one);
  acc += tail_with_frame(one, z);
  acc += tail_indirect((int)one, z);
  acc += check_or_die(one);
  acc += call_sum_va(z);
  for (int op = 0; op < 9; op++) acc += dispatch(op + (int)z, one);
  acc += early_exits(one, z);
  acc += call_many_args(z);
  acc += interp(code, one);
  acc += hot_cold(z);
  acc += run_asm_cases(one);
  if (gen_zero) must_fail(acc);

  gen_sink = acc;
  return (int)(acc & 0x7f);
}
