// The cost of one profiler sample (sfu/profile.h) of the benches' 64-deep stack (bench/descend.h),
// host x86_64, against the host core built with CONFIG_SFU_PROFILE=y (configs/profile.config).
//
// At the bottom of the stack the registers are captured once (sfu_capture_here, as a timer
// interrupt would hand them over), then sfu_profile_sample runs in batches of about 0.5 ms into a
// profile of 64 stacks of 64 frames: each sample walks 65 frames (one more than kept, to know the
// stack was cut), hashes the 64 it keeps, finds their entry and adds one to its count. The program's
// table is registered with its block index and the default row cache, as bench_walk's is. Before
// timing, the printed profile is checked: one stack of 64 frames, the walk's (sfu_backtrace's
// addresses, less one for return addresses), counted once per sample, each cut at the depth.
//
//   bench_profile [--rounds N] [--markdown FILE]
// prints "bench: profile-sample N ns" (N: the median over the rounds of ns per sample); with
// --markdown also writes a section for bench/results.md to FILE.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <string>
#include <vector>

#include "bench/pin_cpu.h"
#include "bench/this_process.h"
#include "sfu/profile.h"
#include "sfu/unwind.h"

namespace {

constexpr int kDepth = 64;      // recursion frames, as bench_walk
constexpr uint32_t kKept = 64;  // frames a profile stack keeps
constexpr uint32_t kStacks = 64;

struct Ctx {
  long iters;  // samples to take at the bottom; 0: only check
  double ns;   // their time
  uint64_t pcs[kKept + 1];
  size_t n;
};

sfu_module g_module;
sfu_stack g_stack;
sfu_walk_config g_cfg;
sfu_profile g_profile;
std::vector<uint64_t> g_memory(SFU_PROFILE_MEMORY_SIZE(kStacks, kKept) / 8);

double now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

[[noreturn]] void die(const char *what) {
  fprintf(stderr, "bench_profile: %s\n", what);
  exit(1);
}

}  // namespace

extern "C" __attribute__((noipa)) int bench_bottom(Ctx *c) {
  sfu_regs regs;
  sfu_capture_here(&regs);
  sfu_stop why;
  c->n = sfu_backtrace(&regs, &g_cfg, c->pcs, kKept, &why);
  double t0 = now_ns();
  for (long i = 0; i < c->iters; i++) sfu_profile_sample(&g_profile, &regs, &g_cfg);
  c->ns = now_ns() - t0;
  return int(c->n);
}

#include "bench/descend.h"

namespace {

void run(Ctx &c) { descend_0(kDepth - 1, &c); }

void setup() {
  sfu_table_desc desc{};
  if (!table_holding(reinterpret_cast<const void *>(&bench_bottom), desc)) die("no PT_GNU_SFRAME in the program");
  if (sfu_error e = register_indexed(g_module, "bench_profile", desc)) die(sfu_error_name(e));
  if (!this_thread_walk(g_stack, g_cfg, 0)) die("pthread_getattr_np");
  pin_to_current_cpu();
}

void init_profile() {
  sfu_profile_params params{kStacks, kKept, 0, nullptr};
  if (sfu_error e = sfu_profile_init(&g_profile, g_memory.data(), g_memory.size() * 8, &params))
    die(sfu_error_name(e));
}

// The profile of `samples` samples holds exactly the walk's stack, each sample counted and cut.
void check(long samples) {
  init_profile();
  Ctx c{};
  c.iters = samples;
  run(c);
  if (c.n != kKept) die("the walk of the bench stack is short");
  std::string want = "sfu-profile-stack " + std::to_string(samples) + " frame-cap-reached";
  for (size_t i = 0; i < c.n; i++) {
    char buf[32];
    snprintf(buf, sizeof buf, " 0x%llx", static_cast<unsigned long long>(c.pcs[i] - (i ? 1 : 0)));
    want += buf;
  }
  std::string text;
  sfu_sink sink{[](void *ctx, char ch) { static_cast<std::string *>(ctx)->push_back(ch); }, &text};
  sfu_profile_print(&sink, &g_profile);
  size_t at = text.find("sfu-profile-stack ");
  if (at == std::string::npos || text.compare(at, want.size(), want) != 0 ||
      text.find("sfu-profile-stack ", at + 1) != std::string::npos)
    die(("the profile is not the walk's stack:\n" + text).c_str());
  if (sfu_profile_lost(&g_profile, SFU_PROFILE_CUT_AT_DEPTH) != uint64_t(samples) ||
      sfu_profile_samples(&g_profile) != uint64_t(samples))
    die("the samples are not all counted, cut at the depth");
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

int main(int argc, char **argv) {
  int rounds = 101;
  const char *markdown = nullptr;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
      rounds = atoi(argv[++i]);
    } else if (!strcmp(argv[i], "--markdown") && i + 1 < argc) {
      markdown = argv[++i];
    } else {
      fprintf(stderr, "usage: %s [--rounds N] [--markdown FILE]\n", argv[0]);
      return 2;
    }
  }
  setup();
  check(3);
  init_profile();
  Ctx c{};
  c.iters = 2000;
  run(c);  // warm: the row cache filled, the stack's entry claimed
  long iters = std::max(100L, long(5e5 / (c.ns / double(c.iters))));
  std::vector<double> per_sample;
  for (int r = 0; r < rounds; r++) {
    c.iters = iters;
    run(c);
    per_sample.push_back(c.ns / double(iters));
  }
  double ns = median(per_sample);
  printf("bench: profile-sample %.0f ns\n", ns);
  fflush(stdout);
  if (markdown) {
    FILE *out = fopen(markdown, "w");
    if (!out) die("cannot write the markdown file");
    std::sort(per_sample.begin(), per_sample.end());
    fprintf(out,
            "## Profiler sample (host x86_64)\n\n"
            "bench/bench_profile.cpp: sfu_profile_sample of the 64-deep bench stack (bench/descend.h) into a "
            "profile of %u stacks of %u frames, from registers captured once at its bottom: a walk of %u frames, "
            "the hash of the %u kept, their entry found and its count added. The host core built with "
            "configs/profile.config; batches of %ld samples, %d rounds, pinned to one CPU. Median %.0f ns per "
            "sample (interquartile %.0f - %.0f).\n\n```\nbench: profile-sample %.0f ns\n```\n",
            kStacks, kKept, kKept + 1, kKept, iters, rounds, ns, per_sample[per_sample.size() / 4],
            per_sample[per_sample.size() * 3 / 4], ns);
    fclose(out);
  }
  return 0;
}
