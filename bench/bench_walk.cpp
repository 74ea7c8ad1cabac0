// Nanoseconds per frame of four unwinders on one stack, in one process (host x86_64):
//   sfu        sfunwind: sfu_capture_here + sfu_backtrace over this program's own .sframe
//   fp         a plain frame-pointer walk: [rbp] saved rbp, [rbp + 8] return address
//   libunwind  nongnu libunwind unw_backtrace (DWARF .eh_frame, its per-thread trace cache)
//   libgcc     libgcc_s _Unwind_Backtrace + _Unwind_GetIP (DWARF .eh_frame)
//
// This whole file is compiled with -O2 -fno-omit-frame-pointer -Wa,--gsframe, so the same
// stack has frame records, SFrame rows and DWARF CFI. The stack (bench/descend.h): 64 frames of noipa functions
// calling each other in a cycle of 8 (descend_0 .. descend_7), then bottom(), which runs the
// method; every method walks exactly kFrames frames, all inside the recursion. The cost of
// building the stack is measured alone (method "none") and subtracted:
//   ns/frame = (median ns per descent with the walk - median ns per descent without) / kFrames
// Batches of each method run interleaved, round after round, on one pinned CPU; the median is
// over the rounds. Before timing, every method's return addresses are checked against the
// frame-pointer walk's, so no method is timed doing the wrong thing.
//
//   bench_walk [--results FILE] [--tables FILE] [--footprint FILE] [--rounds N]
// prints "bench: <method> <ns> ns/frame" per method; with --results also writes the markdown
// table (and the sections read from --tables, bench_tables's, and --footprint) to FILE.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <unwind.h>  // gcc's, for the types; the functions are taken from libgcc_s by dlsym

#include <algorithm>
#include <string>
#include <vector>

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include "bench/pin_cpu.h"
#include "bench/this_process.h"
#include "sfu/unwind.h"
#include "sfu_autoconf.h"

namespace {

constexpr int kDepth = 64;   // recursion frames
constexpr int kFrames = 64;  // frames each method walks
constexpr int kCycle = 8;    // distinct recursion functions

enum Method { kNone, kSfu, kFp, kLibunwind, kLibgcc, kMethods };
const char *const kNames[kMethods] = {"none", "sfu", "fp", "libunwind", "libgcc"};

struct Ctx {
  int method;
  int n;
  uint64_t pcs[kFrames + 4];
};

sfu_module g_module;
sfu_stack g_stack;
sfu_walk_config g_cfg;
uint64_t g_text_lo, g_text_hi;

using GccBacktrace = _Unwind_Reason_Code (*)(_Unwind_Trace_Fn, void *);
using GccGetIp = _Unwind_Ptr (*)(_Unwind_Context *);
GccBacktrace gcc_backtrace;
GccGetIp gcc_get_ip;

_Unwind_Reason_Code gcc_frame(_Unwind_Context *uc, void *arg) {
  auto *c = static_cast<Ctx *>(arg);
  c->pcs[c->n++] = gcc_get_ip(uc);
  return c->n >= kFrames ? _URC_END_OF_STACK : _URC_NO_REASON;
}

}  // namespace

extern "C" {

// Frame 0 of every walk (for sfu: the capture point in it; for fp: its frame record).
__attribute__((noipa)) int bench_bottom(Ctx *c) {
  switch (c->method) {
    case kSfu: {
      sfu_regs regs;
      sfu_capture_here(&regs);
      sfu_stop why;
      c->n = int(sfu_backtrace(&regs, &g_cfg, c->pcs, kFrames, &why));
      break;
    }
    case kFp: {
      auto *fp = static_cast<const uint64_t *>(__builtin_frame_address(0));
      int n = 0;
      while (n < kFrames && uint64_t(uintptr_t(fp)) >= g_stack.lo &&
             uint64_t(uintptr_t(fp)) + 16 <= g_stack.hi) {
        c->pcs[n++] = fp[1];
        fp = reinterpret_cast<const uint64_t *>(uintptr_t(fp[0]));
      }
      c->n = n;
      break;
    }
    case kLibunwind:
      c->n = unw_backtrace(reinterpret_cast<void **>(c->pcs), kFrames);
      break;
    case kLibgcc:
      c->n = 0;
      gcc_backtrace(gcc_frame, c);
      break;
    default:
      c->n = 0;
  }
  return c->n;
}

}  // extern "C"

#include "bench/descend.h"

namespace {

int run(Ctx &c) { return descend_0(kDepth - 1, &c); }

double now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

double batch(int method, long iters) {
  Ctx c{};
  c.method = method;
  double t0 = now_ns();
  for (long i = 0; i < iters; i++) run(c);
  return (now_ns() - t0) / double(iters);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}
double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[size_t(q * double(v.size() - 1) + 0.5)];
}

[[noreturn]] void die(const char *what) {
  fprintf(stderr, "bench_walk: %s\n", what);
  exit(1);
}

void setup() {
  sfu_table_desc desc{};
  if (!table_holding(reinterpret_cast<const void *>(&bench_bottom), desc)) die("no PT_GNU_SFRAME in the program");
  // Registered as a kernel registers its image: with memory for the block index.
  if (sfu_error e = register_indexed(g_module, "bench_walk", desc)) die(sfu_error_name(e));
  g_text_lo = desc.text_start;
  g_text_hi = desc.text_end;

  if (!this_thread_walk(g_stack, g_cfg, kFrames)) die("pthread_getattr_np");

  // libgcc's own unwinder: libunwind.so exports _Unwind_Backtrace too, so ask libgcc_s by name.
  void *gcc = dlopen("libgcc_s.so.1", RTLD_NOW);
  if (!gcc) die("dlopen libgcc_s.so.1");
  gcc_backtrace = reinterpret_cast<GccBacktrace>(dlsym(gcc, "_Unwind_Backtrace"));
  gcc_get_ip = reinterpret_cast<GccGetIp>(dlsym(gcc, "_Unwind_GetIP"));
  Dl_info info;
  if (!gcc_backtrace || !gcc_get_ip || !dladdr(reinterpret_cast<void *>(gcc_backtrace), &info) ||
      !strstr(info.dli_fname, "libgcc_s"))
    die("_Unwind_Backtrace is not libgcc_s's");

  pin_to_current_cpu();
}

// Every method must walk kFrames frames and agree with the frame-pointer walk on the return
// addresses they share. The walks start at different points (sfu: the capture in bench_bottom;
// fp: bench_bottom's frame record; libunwind and libgcc: inside their own entry function), so
// each list is aligned on the frame-pointer walk's first return address.
void check_methods() {
  Ctx ref{};
  ref.method = kFp;
  run(ref);
  if (ref.n != kFrames) die("frame-pointer walk is short");
  for (int m = kSfu; m < kMethods; m++) {
    Ctx c{};
    c.method = m;
    run(c);
    int at = -1;
    for (int i = 0; i < c.n && at < 0; i++)
      if (c.pcs[i] == ref.pcs[0]) at = i;
    bool ok = c.n == kFrames && at >= 0 && at <= 2;
    for (int i = at; ok && i < c.n; i++) ok = c.pcs[i] == ref.pcs[i - at];
    if (!ok) {
      fprintf(stderr, "bench_walk: %s walked %d frames, aligned at %d, and disagrees\n", kNames[m],
              c.n, at);
      exit(1);
    }
  }
}

std::string slurp(const char *path) {
  std::string s;
  if (FILE *f = fopen(path, "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
    fclose(f);
  }
  return s;
}

std::string cpu_model() {
  std::string all = slurp("/proc/cpuinfo");
  size_t at = all.find("model name");
  if (at == std::string::npos) return "unknown";
  size_t colon = all.find(':', at), end = all.find('\n', at);
  return all.substr(colon + 2, end - colon - 2);
}

// The section of bench_spread's lines (bench/bench_spread.cpp), which the Makefile collected.
void write_spread(FILE *out, const char *path) {
  std::string text = slurp(path);
  if (text.empty()) die((std::string(path) + " is empty or missing").c_str());
  fprintf(out, "\n## Walk speed on a stack spread over many functions (host x86_64)\n\n");
  fprintf(out,
          "bench/bench_spread.cpp, one program per F: F functions bench/gen_spread.py writes in C (four shapes of "
          "frame: none, a local array, one or two callee-saved registers), compiled `-O2 -fomit-frame-pointer "
          "-Wa,--gsframe` (gas's SFrame, DWARF CFI, no frame records); a chain of 64 distinct ones drawn at random "
          "(fixed seed) calls down to spread_bottom, which walks 65 frames (its own and the 64 return addresses). "
          "sfu: sfu_capture_here + sfu_backtrace, the program's table registered with plain `sfu_register` (no "
          "block index) and the default configuration (row cache of %d entries); libunwind: unw_backtrace, same "
          "stack, same process. Both walks' return addresses are checked against the chain first. Batches of "
          "0.5 ms, interleaved, pinned to one CPU; ns/frame = (median ns per descent with the walk - median "
          "without) / 65. cache hits: the share of a warm walk's lookups the row cache served, counted by the "
          "same program linked with a core built with CONFIG_SFU_ROW_CACHE_STATS (bench/row-cache-stats.config). "
          "Both programs are linked without PIE, the generated code from a 64 KiB boundary, so they walk the "
          "same addresses (make bench compares their lookup PCs) on the same sets of the cache, run after "
          "run.\n\n",
          CONFIG_SFU_ROW_CACHE);
  fprintf(out, "```\n%s```\n", text.c_str());
}

}  // namespace

int main(int argc, char **argv) {
  const char *results = nullptr, *tables = nullptr, *footprint = nullptr, *spread = nullptr;
  int rounds = 101;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--results") && i + 1 < argc) {
      results = argv[++i];
    } else if (!strcmp(argv[i], "--tables") && i + 1 < argc) {
      tables = argv[++i];
    } else if (!strcmp(argv[i], "--footprint") && i + 1 < argc) {
      footprint = argv[++i];
    } else if (!strcmp(argv[i], "--spread") && i + 1 < argc) {
      spread = argv[++i];
    } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
      rounds = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: %s [--results FILE] [--tables FILE] [--footprint FILE] [--spread FILE] [--rounds N]\n",
              argv[0]);
      return 2;
    }
  }
  setup();
  check_methods();

  // Warm up (libunwind and libgcc fill their caches), then size each batch to about 0.5 ms: short,
  // so that few batches are preempted on a shared machine.
  long iters[kMethods];
  for (int m = 0; m < kMethods; m++) {
    batch(m, 2000);
    double per = batch(m, 2000);
    iters[m] = std::max(100L, long(5e5 / per));
  }
  std::vector<double> samples[kMethods];
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < kMethods; k++) {
      int m = (k + r) % kMethods;  // rotate the order round by round
      samples[m].push_back(batch(m, iters[m]));
    }

  double base = median(samples[kNone]);
  double per_frame[kMethods], q1[kMethods], q3[kMethods];
  for (int m = 0; m < kMethods; m++) {
    per_frame[m] = (median(samples[m]) - base) / kFrames;
    q1[m] = (quantile(samples[m], 0.25) - base) / kFrames;
    q3[m] = (quantile(samples[m], 0.75) - base) / kFrames;
  }
  for (int m = kSfu; m < kMethods; m++) printf("bench: %s %.1f ns/frame\n", kNames[m], per_frame[m]);
  fflush(stdout);

  if (!results) return 0;
  FILE *out = fopen(results, "w");
  if (!out) die("cannot write the results file");
  char date[64];
  time_t t = time(nullptr);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", gmtime(&t));
  utsname u;
  uname(&u);
  fprintf(out, "# sfunwind benchmark results\n\n");
  fprintf(out, "Written by `make bench` (bench/bench_walk.cpp, the table lookups by bench/bench_tables.cpp, "
               "the footprint by bench/footprint.cpp). "
               "Speed targets are not asserted anywhere.\n\n");
  fprintf(out, "## Walk speed (host x86_64)\n\n");
  fprintf(out, "- machine: %s, %ld CPUs online, Linux %s\n", cpu_model().c_str(),
          sysconf(_SC_NPROCESSORS_ONLN), u.release);
  fprintf(out, "- date: %s\n", date);
  fprintf(out, "- compiler: gcc %s; libunwind %d.%d.%d (Debian libunwind-dev); libgcc_s of that gcc\n",
          __VERSION__, UNW_VERSION_MAJOR, UNW_VERSION_MINOR, UNW_VERSION_EXTRA);
  fprintf(out,
          "- how: one process, one stack of %d frames of noipa functions (a cycle of %d) compiled "
          "with `-O2 -fno-omit-frame-pointer -Wa,--gsframe` (SFrame V%d from gas, frame records "
          "and DWARF CFI on the same code). At the bottom each method walks exactly %d frames, "
          "all inside the recursion; every method's return addresses are first checked against "
          "the frame-pointer walk's. Batches of about 0.5 ms per method, interleaved, %d rounds, "
          "pinned to one CPU; ns/frame = (median ns per descent with the walk - median without "
          "any walk, %.0f ns) / %d. Host core: `build/host/libsfu.a` (-O2, not sanitized). On a "
          "shared virtual machine the medians move by about 20%% from run to run: compare "
          "methods within one run.\n",
          kDepth, kCycle, g_module.table.version, kFrames, rounds, base, kFrames);
  fprintf(out, "- sfu = sfu_capture_here + sfu_backtrace (the program's table registered with its block index; "
               "the default configuration, so with its row cache of %d entries: every step of this walk after the first "
               "is a cache hit, taken by the walker's run of plain steps); fp = a loop over [rbp], [rbp + 8] with a "
               "stack-bounds check; libunwind = unw_backtrace (its fast trace path with a "
               "per-thread cache); libgcc = _Unwind_Backtrace + _Unwind_GetIP from libgcc_s.so.1 "
               "(looked up by dlsym: libunwind.so exports the same names).\n\n", CONFIG_SFU_ROW_CACHE);
  fprintf(out, "| method | ns/frame (median) | interquartile range | ns per %d-frame walk |\n",
          kFrames);
  fprintf(out, "| --- | ---: | ---: | ---: |\n");
  for (int m = kSfu; m < kMethods; m++)
    fprintf(out, "| %s | %.1f | %.1f - %.1f | %.0f |\n", kNames[m], per_frame[m], q1[m], q3[m],
            per_frame[m] * kFrames);
  fprintf(out, "\nThe same lines as `make bench` prints:\n\n```\n");
  for (int m = kSfu; m < kMethods; m++) fprintf(out, "bench: %s %.1f ns/frame\n", kNames[m], per_frame[m]);
  fprintf(out, "```\n");
  if (spread) write_spread(out, spread);
  for (const char *section : {tables, footprint}) {
    if (!section) continue;
    std::string text = slurp(section);
    if (text.empty()) die((std::string(section) + " is empty or missing").c_str());
    fprintf(out, "\n%s", text.c_str());
  }
  fclose(out);
  return 0;
}
