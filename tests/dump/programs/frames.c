/* Functions whose frame size is only known at run time (a VLA, alloca): compilers address
 * them from the frame pointer, so their rows use an fp-based CFA. No libc; entry sfu_entry. */
#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE void fill(volatile char *p, long n) {
  for (long i = 0; i < n; i++) p[i] = (char)i;
}

NOINLINE long with_vla(long n) {
  char buf[n];
  fill(buf, n);
  return buf[n / 2];
}

NOINLINE long with_alloca(long n) {
  volatile char *p = __builtin_alloca(n);
  fill(p, n);
  return p[0] + with_vla(n / 2 + 1);
}

void sfu_entry(void) {
  sink = with_alloca(sink + 16);
  for (;;) {
  }
}
