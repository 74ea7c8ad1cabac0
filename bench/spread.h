/* The interface between bench/bench_spread.cpp and the functions bench/gen_spread.py writes. */
#pragma once

#ifdef __cplusplus
extern "C" {
#endif

struct spread_chain;
typedef int (*spread_fn)(int depth, const struct spread_chain *c);

/* The stack's functions, fn[depth - 1] called at depth; k: values the shapes use. */
struct spread_chain {
  spread_fn fn[64];
  int k[8];
  int method;
};

int spread_bottom(const struct spread_chain *c);  /* bench_spread.cpp: runs the walk */
extern volatile int spread_sink;
extern const spread_fn spread_fns[];
extern const unsigned spread_count;

#ifdef __cplusplus
}
#endif
