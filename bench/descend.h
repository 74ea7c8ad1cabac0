// The benches' 64-deep stack: noipa functions calling each other in a cycle of 8 (descend_0 ..
// descend_7), then bench_bottom, where the bench does what it measures. Shared by bench_walk
// (four unwinders walking it) and bench_profile (a profiler's sample of it). Include it once per
// program, after declaring `struct Ctx` and `extern "C" int bench_bottom(Ctx *)`; compile that
// file with -Wa,--gsframe (and -fno-omit-frame-pointer where frame records are walked too).
#pragma once

extern "C" {

extern volatile int g_descend_sink;
volatile int g_descend_sink;

#define DESCEND(i, next)                                       \
  __attribute__((noipa)) int descend_##i(int depth, Ctx *c) { \
    int r = depth ? next(depth - 1, c) : bench_bottom(c);     \
    g_descend_sink = r; /* a real call, not a tail jump */    \
    return r + i;                                              \
  }
int descend_0(int, Ctx *);
DESCEND(7, descend_0)
DESCEND(6, descend_7)
DESCEND(5, descend_6)
DESCEND(4, descend_5)
DESCEND(3, descend_4)
DESCEND(2, descend_3)
DESCEND(1, descend_2)
DESCEND(0, descend_1)
#undef DESCEND

}  // extern "C"
