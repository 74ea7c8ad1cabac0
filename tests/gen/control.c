/* Control-flow shapes: tail calls, noreturn calls, varargs, switch tables, several epilogues
 * (.cfi_remember_state / .cfi_restore_state), stack arguments, computed goto, hot/cold split. */
#include "gen.h"

NOINLINE static long tail_target(long x) {
  gen_sink = x;
  return x ^ 5;
}
NOINLINE static long tail_other(long x) {
  gen_sink = x + 1;
  return x - 9;
}

/* A tail call from a frameless function: a jump at -O2. */
NOINLINE long tail_caller(long x) {
  gen_sink = x;
  return tail_target(x * 3);
}

/* A tail call after a frame was built: the epilogue runs before the jump. */
NOINLINE long tail_with_frame(long a, long b) {
  long t = opaque(a);
  return tail_target(t + b);
}

/* An indirect tail call. */
NOINLINE long tail_indirect(int which, long x) {
  static long (*const table[2])(long) = {tail_target, tail_other};
  long (*volatile fn)(long) = table[which & 1];
  return fn(x + 2);
}

/* Never returns; its callers' return addresses may point past their own end. */
NORETURN NOINLINE void die(long code) {
  for (;;) gen_sink = code;
}

/* The call to die is the last instruction: the return address is the next function's start. */
NOINLINE void must_fail(long x) {
  gen_sink = opaque(x);
  die(x + 1);
}

NOINLINE long check_or_die(long x) {
  if (x < 0) die(x);
  return opaque(x) * 2;
}

/* Varargs: register save areas (x86_64 also saves the vector registers when %al says so). */
NOINLINE long sum_va(int n, ...) {
  __builtin_va_list ap;
  __builtin_va_start(ap, n);
  long s = 0;
  for (int i = 0; i < n; i++) s += __builtin_va_arg(ap, long);
  __builtin_va_end(ap);
  return s;
}

NOINLINE long call_sum_va(long x) {
  return sum_va(9, x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6, x + 7, x + 8) + 1;
}

/* A jump table whose cases differ in whether they need a frame. */
NOINLINE long dispatch(int op, long a) {
  switch (op) {
    case 0: return a + 1;
    case 1: return opaque(a) * 3;
    case 2: return a ^ 0x55;
    case 3: return opaque(a + 1) + opaque(a + 2);
    case 4: return a << 2;
    case 5: return fib(a & 7);
    case 6: return a - 100;
    case 7: return leaf_add(a, opaque(a));
    default: return -1;
  }
}

/* Several exits: a frameless fast path, epilogues in the middle of the function. */
NOINLINE long early_exits(long a, long b) {
  if (a == 0) return b;
  long x = opaque(a);
  if (x > b) return x - b;
  long y = opaque(b);
  if (y == x) return 7;
  long z = opaque(x + y);
  if (z & 1) return z * x;
  return x * y + opaque(z);
}

/* More arguments than argument registers on every architecture: stack arguments. */
NOINLINE long many_args(long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8,
                        long a9, long a10, long a11, long a12) {
  return a1 + 2 * a2 + 3 * a3 + 4 * a4 + 5 * a5 + 6 * a6 + 7 * a7 + 8 * a8 + 9 * a9 + 10 * a10 +
         11 * a11 + 12 * a12;
}

/* The caller pushes (x86_64) or stores the outgoing arguments. */
NOINLINE long call_many_args(long x) {
  long r = many_args(x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6, x + 7, x + 8, x + 9, x + 10,
                     opaque(x));
  return r + opaque(r);
}

/* Computed goto: a tiny bytecode interpreter (0 add, 1 call, 2 double, other: stop). */
NOINLINE long interp(const unsigned char *code, long acc) {
  static const void *const ops[] = {&&op_add, &&op_call, &&op_double, &&op_end};
#define NEXT goto *ops[*code < 3 ? *code++ : 3]
  NEXT;
op_add:
  acc += 3;
  NEXT;
op_call:
  acc = opaque(acc);
  NEXT;
op_double:
  acc *= 2;
  NEXT;
op_end:
  return acc;
#undef NEXT
}

/* A path calling a cold function: gcc -O2 moves it to hot_cold.cold in .text.unlikely, a
 * separate FDE whose first row is already inside the frame. */
__attribute__((cold)) NOINLINE static long rare(long x) {
  gen_sink = x;
  return x * 31;
}
NOINLINE long hot_cold(long x) {
  if (x == 12345) {
    long a = rare(x);
    long b = rare(a);
    return a + b + opaque(x);
  }
  return x + 1;
}
