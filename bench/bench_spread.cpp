// ns/frame of sfunwind and libunwind on a stack spread over many functions (issue 24): 64 return
// addresses in 64 distinct functions drawn at random from the F that bench/gen_spread.py wrote
// (-O2 -fomit-frame-pointer -Wa,--gsframe: SFrame rows from gas, DWARF CFI for libunwind, no frame
// records), walked in one process by
//   sfu        sfu_capture_here + sfu_backtrace, the program's table registered with plain
//              sfu_register (no block index), the default configuration
//   libunwind  nongnu libunwind unw_backtrace
// Both walk 65 frames: spread_bottom's own and the 64 generated ones. Both walks' return addresses
// are checked against the chain first. ns/frame = (median ns per descent with the walk - median
// without) / 65, batches interleaved round after round on one pinned CPU, as bench_walk does.
// The row cache's hits: with --hits, walks the stack through the row cache's counters instead
// (CONFIG_SFU_ROW_CACHE_STATS: this program linked with a core that counts) and prints the
// share of lookups the cache served once the walks are warm.
//
//   bench_spread [--rounds N] [--hits] [--pcs] [--hits-from P] [--out FILE]
// prints "bench: spread F functions sfu N ns/frame, libunwind N ns/frame, cache hits P%" (P from
// --hits-from, what the counting twin printed); --out also writes the line to FILE; --pcs prints
// the walk's lookup PCs instead, one a line.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <vector>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "bench/pin_cpu.h"
#include "bench/spread.h"
#include "bench/this_process.h"
#include "sfu/unwind.h"

namespace {

constexpr int kDepth = 64;            // generated frames
constexpr int kFrames = kDepth + 1;   // and spread_bottom's
constexpr double kBatchNs = 5e5;      // a batch: short, so that few are preempted on a shared machine
enum Method { kNone, kSfu, kLibunwind, kMethods };
const char *const kNames[kMethods] = {"none", "sfu", "libunwind"};

sfu_module g_module;
sfu_stack g_stack;
sfu_walk_config g_cfg;
uint64_t g_pcs[kFrames + 4];
int g_n;

}  // namespace

volatile int spread_sink;

extern "C" __attribute__((noipa)) int spread_bottom(const spread_chain *c) {
  switch (c->method) {
    case kSfu: {
      sfu_regs regs;
      sfu_capture_here(&regs);
      sfu_stop why;
      g_n = int(sfu_backtrace(&regs, &g_cfg, g_pcs, kFrames, &why));
      break;
    }
    case kLibunwind:
      g_n = unw_backtrace(reinterpret_cast<void **>(g_pcs), kFrames);
      break;
    default:
      g_n = 0;
  }
  return g_n;
}

namespace {

spread_chain g_chain;

int run(int method) {
  g_chain.method = method;
  return g_chain.fn[kDepth - 1](kDepth - 1, &g_chain);
}

double now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

double batch(int method, long iters) {
  double t0 = now_ns();
  for (long i = 0; i < iters; i++) run(method);
  return (now_ns() - t0) / double(iters);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

[[noreturn]] void die(const char *what) {
  fprintf(stderr, "bench_spread: %s\n", what);
  exit(1);
}

void setup() {
  sfu_table_desc desc{};
  // The text is every executable segment (table_holding's span): the .plt, which the table covers
  // too, may sit in a segment of its own before .text.
  if (!table_holding(reinterpret_cast<const void *>(spread_fns[0]), desc))
    die("no PT_GNU_SFRAME in the program");
  // As the README's first example registers: the table alone, no index memory.
  if (sfu_error e = sfu_register(&g_module, &desc, "bench_spread")) die(sfu_error_name(e));
  if (!this_thread_walk(g_stack, g_cfg, kFrames)) die("pthread_getattr_np");
  // 64 distinct functions, drawn with a fixed seed (every run walks the same stack).
  if (spread_count < unsigned(kDepth)) die("fewer functions than frames");
  std::vector<unsigned> all(spread_count);
  for (unsigned i = 0; i < spread_count; i++) all[i] = i;
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int k = 0; k < kDepth; k++) {
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    std::swap(all[size_t(k)], all[size_t(k) + x % (spread_count - unsigned(k))]);
    g_chain.fn[k] = spread_fns[all[size_t(k)]];
  }
  for (int i = 0; i < 8; i++) g_chain.k[i] = i + 1;
  pin_to_current_cpu();
}

// Both walks: spread_bottom's frame, then one return address in each chain function, fn[0] up
// to fn[63] (each function's call sites lie inside it: the address after the call).
void check(int method) {
  run(method);
  bool ok = g_n == kFrames;
  for (int k = 0; ok && k < kDepth; k++) {
    uint64_t f = uint64_t(uintptr_t(g_chain.fn[k])), ra = g_pcs[k + 1];
    ok = ra > f && ra - f < 64;
  }
  if (!ok) {
    fprintf(stderr, "bench_spread: %s walked %d frames, not the chain's\n", kNames[method], g_n);
    exit(1);
  }
}

}  // namespace

int main(int argc, char **argv) {
  int rounds = 51;
  bool hits = false, pcs = false;
  const char *hits_from = nullptr, *out = nullptr;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
      rounds = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--hits")) {
      hits = true;
    } else if (!strcmp(argv[i], "--pcs")) {
      pcs = true;
    } else if (!strcmp(argv[i], "--hits-from") && i + 1 < argc) {
      hits_from = argv[++i];
    } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      out = argv[++i];
    } else {
      fprintf(stderr, "usage: %s [--rounds N] [--hits] [--pcs] [--hits-from P] [--out FILE]\n", argv[0]);
      return 2;
    }
  }
  setup();
  check(kSfu);
  check(kLibunwind);
  for (int k = 0; k < kDepth; k++)
    if (uint64_t(uintptr_t(g_chain.fn[k])) >= g_module.table.text_end) die("a function outside the table's text");

  if (pcs) {  // the lookup PCs of one walk's steps (the last frame is given, not stepped from)
    run(kSfu);
    for (int i = 0; i + 1 < g_n; i++) printf("0x%llx\n", (unsigned long long)(i ? g_pcs[i] - 1 : g_pcs[i]));
    return 0;
  }
  if (hits) {
    // Warm, then count: the share of a warm walk's lookups the cache serves.
    for (int i = 0; i < 100; i++) run(kSfu);
    uint64_t h0, m0, h1, m1;
    if (!sfu_row_cache_counts(&h0, &m0)) die("this core does not count (CONFIG_SFU_ROW_CACHE_STATS)");
    for (int i = 0; i < 1000; i++) run(kSfu);
    sfu_row_cache_counts(&h1, &m1);
    uint64_t h = h1 - h0, m = m1 - m0;
    printf("%.1f\n", h + m ? 100.0 * double(h) / double(h + m) : 0.0);
    return 0;
  }

  long iters[kMethods];
  for (int m = 0; m < kMethods; m++) {
    batch(m, 2000);
    iters[m] = std::max(100L, long(kBatchNs / batch(m, 2000)));
  }
  std::vector<double> samples[kMethods];
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < kMethods; k++) {
      int m = (k + r) % kMethods;
      samples[m].push_back(batch(m, iters[m]));
    }
  double base = median(samples[kNone]);
  double per[kMethods];
  for (int m = 0; m < kMethods; m++) per[m] = (median(samples[m]) - base) / kFrames;
  char line[256];
  snprintf(line, sizeof line, "bench: spread %u functions sfu %.1f ns/frame, libunwind %.1f ns/frame, cache hits %s%%",
           spread_count, per[kSfu], per[kLibunwind], hits_from ? hits_from : "?");
  printf("%s\n", line);
  if (out) {
    FILE *f = fopen(out, "w");
    if (!f) die("cannot write --out");
    fprintf(f, "%s\n", line);
    fclose(f);
  }
  return 0;
}
