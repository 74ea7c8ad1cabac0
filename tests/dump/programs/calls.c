/* Non-inlined functions calling each other down to a leaf: frames with and without saved
 * registers. No libc: sfu_entry is the entry symbol; the program is only dumped, never run. */
#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE long leaf(long x) { return x * 3 + 1; }

NOINLINE long middle(long x) {
  long a = leaf(x);
  long b = leaf(a + x);
  return a ^ b;
}

NOINLINE long top(long x) {
  long total = 0;
  for (long i = 0; i < x; i++) total += middle(i) + leaf(total);
  return total;
}

void sfu_entry(void) {
  sink = top(sink);
  for (;;) {
  }
}
