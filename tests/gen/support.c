/* What the compilers may call even in freestanding code (struct copies, large initializers),
 * and the opaque helpers every other file uses. Byte loops through volatile pointers, so no
 * compiler can turn them back into calls to themselves. */
#include "gen.h"

volatile long gen_sink;
volatile int gen_zero;
volatile int gen_one = 1;

void *memset(void *dst, int c, size_t n) {
  volatile unsigned char *d = dst;
  for (size_t i = 0; i < n; i++) d[i] = (unsigned char)c;
  return dst;
}

void *memcpy(void *dst, const void *src, size_t n) {
  volatile unsigned char *d = dst;
  const volatile unsigned char *s = src;
  for (size_t i = 0; i < n; i++) d[i] = s[i];
  return dst;
}

void *memmove(void *dst, const void *src, size_t n) {
  volatile unsigned char *d = dst;
  const volatile unsigned char *s = src;
  if (d < s) {
    for (size_t i = 0; i < n; i++) d[i] = s[i];
  } else {
    for (size_t i = n; i > 0; i--) d[i - 1] = s[i - 1];
  }
  return dst;
}

int memcmp(const void *a, const void *b, size_t n) {
  const volatile unsigned char *x = a, *y = b;
  for (size_t i = 0; i < n; i++)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

NOINLINE long opaque(long x) {
  gen_sink = x;
  return x + gen_zero;
}

NOINLINE void consume(volatile void *p, size_t n) {
  volatile unsigned char *b = p;
  long s = 0;
  for (size_t i = 0; i < n; i += 64) s += b[i];
  gen_sink = s;
}
