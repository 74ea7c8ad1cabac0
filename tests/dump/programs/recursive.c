/* Recursion, direct and mutual: the same rows reached from many frames. No libc; entry
 * sfu_entry. */
#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE long fib(long n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

NOINLINE long is_odd(long n);
NOINLINE long is_even(long n) { return n == 0 ? 1 : is_odd(n - 1) + sink; }
NOINLINE long is_odd(long n) { return n == 0 ? 0 : is_even(n - 1) + sink; }

void sfu_entry(void) {
  sink = fib(sink) + is_even(sink);
  for (;;) {
  }
}
