/* Frame shapes: leaves, call chains, recursion, callee-saved registers, large frames, dynamic
 * stack allocation, stack realignment (DRAP on x86_64), __builtin_frame_address. */
#include "gen.h"

/* A leaf without a frame: RA at the CFA (x86_64), in the LR (arm64), in r14 (s390x). */
NOINLINE long leaf_add(long a, long b) { return a * 3 + b; }

/* A leaf with locals: the red zone on x86_64, an SP adjustment elsewhere. */
NOINLINE long leaf_locals(int i) {
  volatile long buf[12];
  for (int k = 0; k < 12; k++) buf[k] = k * i;
  return buf[i & 7] + buf[(i + 3) & 7];
}

/* A leaf needing more registers than the call-clobbered ones: pushes on x86_64, stp of x19..
 * on arm64, and on s390x gcc parks the call-saved GPRs in FPRs (.cfi_register r, f). */
NOINLINE long leaf_many_regs(const long *p) {
  long a = p[0], b = p[1], c = p[2], d = p[3], e = p[4], f = p[5], g = p[6];
  long h = p[7], i = p[8], j = p[9], k = p[10], l = p[11], m = p[12], n = p[13];
  for (long x = 0; x < p[14]; x++) {
    a += b * c; b += c * d; c += d * e; d += e * f; e += f * g; f += g * h; g += h * i;
    h += i * j; i += j * k; j += k * l; k += l * m; l += m * n; m += n * a; n += a * b;
  }
  return a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ i ^ j ^ k ^ l ^ m ^ n;
}

/* A chain of non-inlined calls, each doing work after its call (no tail calls). */
NOINLINE static long chain_d(long x) {
  long r = leaf_add(x, 1);
  gen_sink = r;
  return r + 1;
}
NOINLINE static long chain_c(long x) { return chain_d(x + 1) * 2; }
NOINLINE static long chain_b(long x) { return chain_c(x ^ 3) - 1; }
NOINLINE long chain_a(long x) { return chain_b(x + 7) + x; }

/* Non-tail recursion. */
NOINLINE long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

/* Many values live across calls: every callee-saved register gets used. */
NOINLINE long many_saved(long a, long b, long c, long d, long e) {
  long x1 = a * b, x2 = b * c, x3 = c * d, x4 = d * e, x5 = e * a, x6 = a + b + c;
  long x7 = b ^ d, x8 = c - e, x9 = a | e, x10 = b & c, x11 = d * 7, x12 = e * 11;
  long r = opaque(x1 + x2);
  r += opaque(x3 ^ x4);
  r += opaque(x5 - x6);
  return r + x1 * x2 + x3 * x4 + x5 * x6 + x7 * x8 + x9 * x10 + x11 * x12 + (x1 ^ x12);
}

/* More than 256 bytes of locals: SFrame needs 2-byte offsets. */
NOINLINE long big_frame_2k(int i) {
  volatile char buf[2000];
  buf[i & 1023] = (char)i;
  consume(buf, sizeof buf);
  return buf[(i + 1) & 1023] + opaque(i);
}

/* More than 64 KiB of locals: 4-byte offsets. */
NOINLINE long big_frame_80k(int i) {
  volatile char buf[80000];
  buf[i & 65535] = (char)i;
  consume(buf, sizeof buf);
  return buf[(i + 5) & 65535] + opaque(i);
}

/* Dynamic allocation: the compiler keeps a frame pointer as the CFA base. */
NOINLINE long use_alloca(int n) {
  volatile char *p = __builtin_alloca((size_t)n + 16);
  p[n] = 1;
  consume(p, (size_t)n + 16);
  return p[0] + opaque(n);
}

NOINLINE long use_vla(int n) {
  volatile char buf[n + 1];
  buf[n] = 2;
  consume(buf, (size_t)n + 1);
  return buf[0] + opaque(n);
}

/* An over-aligned local: the stack is realigned (x86_64: CFA on rbp after and $-64,%rsp). */
NOINLINE long aligned_local(int i) {
  volatile char buf[128] __attribute__((aligned(64)));
  buf[i & 127] = (char)i;
  consume(buf, sizeof buf);
  return buf[3] + opaque(i);
}

/* Realignment plus dynamic allocation: gcc on x86_64 uses a DRAP register (r10) and a CFA
 * expression, CFA = *(rbp - 8), with rbp saved through DW_CFA_expression. */
NOINLINE long aligned_vla(int n) {
  volatile char a[64] __attribute__((aligned(64)));
  volatile char b[n + 1];
  a[n & 63] = 1;
  b[n] = 2;
  consume(a, sizeof a);
  consume(b, (size_t)n + 1);
  return a[0] + b[0];
}

NOINLINE long aligned_alloca(int n) {
  volatile long a[8] __attribute__((aligned(64)));
  volatile char *p = __builtin_alloca((size_t)n + 1);
  a[n & 7] = n;
  p[n] = 3;
  consume(p, (size_t)n + 1);
  return a[1] + p[0] + opaque(n);
}

/* __builtin_frame_address forces a frame pointer even at -O2. */
NOINLINE long frame_address_user(long x) {
  void *fp = __builtin_frame_address(0);
  gen_sink = (long)(uintptr_t)fp;
  return opaque(x) + 1;
}
