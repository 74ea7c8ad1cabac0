// The table-driven part of `make bench`: walks over synthetic SFrame tables whose size is chosen,
// so the cost of the lookup can be seen apart from the stack the program happens to have. It is
// linked with the core built without the row cache (bench/no-row-cache.config): every step
// searches the table, as a cache miss does, so these figures are the lookup's, not the cache's
// (with the cache, a table of 100 functions would be all hits and one of 100,000 nearly all
// misses).
//
//   scale F    F functions of 64 bytes (an x86_64 V2 table, sorted, 4 rows each); 64 stacks of 64
//              frames each, every return address in a function picked at random over the whole
//              table. ns/frame = the time of one pass over the 64 stacks / 4096 frames.
//   cold F     the same walks, the table (and its block index) flushed from every cache level
//              (clflush of each line) before each walk: the lookups' cost when a panic or a
//              profiler tick finds the table cold. Median over the walks, / 64 frames.
//   worst-step the slowest single step (one sfu_walk_next from frame 1 to frame 2) over
//              adversarial valid tables: the longest function registration accepts (its last row;
//              its rows alternate, so that no block-index bucket can hold them and the step searches),
//              alone and as the last function of a sorted table of 2^24 functions registered
//              without a block index and with one, each also with the TLBs cold; the largest
//              unsorted FDE list (its last function); a sorted list of 2^20 functions. Each step
//              runs with the table flushed from the caches and the branch predictor taught
//              nothing of its path (lookups at random PCs first); median of 31 steps per case,
//              the largest of those medians.
//
// The stacks are ordinary memory declared to the walker; the text is never read, so the functions'
// addresses need no code behind them. Nothing here is a test: sfu_backtrace's answers are checked
// once against the return addresses planted, then only timed.
//
//   bench_tables [--results FILE] [--rounds N]
// prints the "bench: scale|cold|worst-step ..." lines; with --results also writes their markdown
// section to FILE (bench_walk puts it into bench/results.md).
#include <emmintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "bench/pin_cpu.h"
#include "sfu/unwind.h"
#include "sfu_autoconf.h"
#include "support/sframe_builder.h"

namespace {

using sfu::test::FdeSpec;
using sfu::test::FreSpec;
using sfu::test::TableSpec;

static_assert(CONFIG_SFU_ROW_CACHE == 0, "built with bench/no-row-cache.config: the lookup, not the cache");

struct BenchLine {
  std::string what;  // "scale", "cold", "worst-step"
  uint32_t functions;
  double ns;  // per frame; per step for worst-step
};

struct WorstCase {
  std::string table;
  double ns;
};

constexpr int kFramesPerWalk = 64;
constexpr int kStacks = 64;
constexpr uint32_t kFuncSize = 64;
constexpr uint32_t kRaOffset = 20;   // inside the row CFA = SP + 32
constexpr uint32_t kFrameBytes = 32;  // locals 16, saved rbp at CFA - 16, RA at CFA - 8
constexpr uint64_t kTextBase = 0x100000000000ull;

double now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

[[noreturn]] void die(const std::string &what) {
  fprintf(stderr, "bench_tables: %s\n", what.c_str());
  exit(1);
}

void flush(const void *p, size_t n) {
  const char *c = static_cast<const char *>(p);
  for (size_t i = 0; i < n; i += 64) _mm_clflush(c + i);
  if (n) _mm_clflush(c + n - 1);
  _mm_mfence();
}

// One registered synthetic table and the memory its index (if the API has one) lives in.
struct Table {
  std::vector<uint8_t> sec;
  std::unique_ptr<sfu_module> mod{new sfu_module{}};
  std::vector<uint64_t> index;  // 8-byte aligned storage for the block index
  uint64_t text_start = 0, text_end = 0;

  void registration(const TableSpec &spec, uint64_t text_size, bool indexed = true) {
    sec = sfu::test::build_section(spec);
    text_start = kTextBase;
    text_end = kTextBase + text_size;
    sfu_module_desc d{};
    d.table.section = sec.data();
    d.table.size = sec.size();
    d.table.section_addr = spec.section_addr;
    d.table.text_start = text_start;
    d.table.text_end = text_end;
    d.table.abi = SFU_ABI_AMD64_LE;
    d.name = "synthetic";
    if (indexed) {  // the block index (sfu_index_size)
      size_t bytes = sfu_index_size(&d.table);
      index.assign((bytes + 7) / 8, 0);
      d.index = index.data();
      d.index_size = bytes;
    }
    if (sfu_error e = sfu_register_module(mod.get(), &d)) die(std::string("synthetic table refused: ") + sfu_error_name(e));
  }
  void unregister() { sfu_unregister(mod.get()); }
  // Lookups at random PCs of the text, so that the branch predictor has learnt nothing of the
  // next lookup's path (a panic's lookup finds it so): without this, repeating one step teaches
  // it the search's turns and the search's loads run ahead of its compares.
  void mislead_branches() {
    static uint64_t x = 0x2545f4914f6cdd1dull;
    sfu_row r;
    for (int i = 0; i < 256; i++) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      sfu_table_find(&mod->table, text_start + x % (text_end - text_start), &r);
    }
  }
  void flush_all() {
    flush(sec.data(), sec.size());
    flush(index.data(), index.size() * 8);
  }
};

FreSpec row(uint32_t start, std::vector<int32_t> words) {
  FreSpec r;
  r.start = start;
  r.words = std::move(words);
  return r;
}

// F functions of 64 bytes, each: push %rbp; sub $16; ... add; pop %rbp; ret.
TableSpec scale_spec(uint32_t functions) {
  TableSpec t = sfu::test::table_spec(2, SFU_ABI_AMD64_LE, {});
  t.section_addr = kTextBase - 0x10000000;
  t.fdes.reserve(functions);
  for (uint32_t i = 0; i < functions; i++)
    t.fdes.push_back(sfu::test::fde_spec(kTextBase + uint64_t(i) * kFuncSize, kFuncSize,
                                         {row(0, {8}), row(1, {16, -16}), row(5, {32, -16}), row(56, {8})}));
  return t;
}

// 64 frames whose return addresses are `funcs`' kRaOffset, laid out as scale_spec's rows say.
struct Stack {
  std::vector<uint64_t> words;
  sfu_regs regs{};
  sfu_stack stack{};
  std::vector<uint64_t> want;
};

Stack make_stack(const std::vector<uint32_t> &funcs) {
  Stack s;
  s.words.assign(size_t(kFramesPerWalk + 2) * kFrameBytes / 8, 0);
  uint64_t base = uint64_t(uintptr_t(s.words.data()));
  // Frame k's SP is base + 32k, in function funcs[k]; its RA (the next frame's PC) at SP + 24.
  for (int k = 0; k < kFramesPerWalk; k++) {
    uint64_t pc = kTextBase + uint64_t(funcs[size_t(k)]) * kFuncSize + kRaOffset;
    s.want.push_back(pc);
    if (k > 0) s.words[size_t(k - 1) * 4 + 3] = pc;
    if (k > 0) s.words[size_t(k - 1) * 4 + 2] = base + uint64_t(k) * kFrameBytes + 16;  // saved rbp
  }
  s.regs.pc = s.want[0] - 1;  // frame 0 stopped inside its function (looked up as is)
  s.want[0] = s.regs.pc;
  s.regs.r[SFU_X86_64_RSP] = base;
  s.regs.r[SFU_X86_64_RBP] = base + 16;
  s.regs.valid = (1u << SFU_X86_64_RSP) | (1u << SFU_X86_64_RBP);
  s.stack.lo = base;
  s.stack.hi = base + s.words.size() * 8;
  s.stack.kind = SFU_STACK_TASK;
  return s;
}

int walk(const Stack &s, uint64_t *pcs) {
  sfu_walk_config cfg{};
  cfg.stacks = &s.stack;
  cfg.num_stacks = 1;
  cfg.max_frames = kFramesPerWalk;
  cfg.abi = SFU_ABI_AMD64_LE;
  sfu_stop why;
  return int(sfu_backtrace(&s.regs, &cfg, pcs, kFramesPerWalk, &why));
}

uint64_t g_rng = 0x9e3779b97f4a7c15ull;
uint32_t rnd(uint32_t n) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return uint32_t(g_rng % n);
}

void scale(uint32_t functions, int rounds, std::vector<BenchLine> &out) {
  Table t;
  t.registration(scale_spec(functions), uint64_t(functions) * kFuncSize);
  std::vector<Stack> stacks;
  for (int i = 0; i < kStacks; i++) {
    std::vector<uint32_t> funcs;
    for (int k = 0; k < kFramesPerWalk; k++) funcs.push_back(rnd(functions));
    stacks.push_back(make_stack(funcs));
  }
  uint64_t pcs[kFramesPerWalk];
  for (const Stack &s : stacks) {
    int n = walk(s, pcs);
    if (n != kFramesPerWalk || !std::equal(pcs, pcs + n, s.want.begin()))
      die("synthetic walk of " + std::to_string(functions) + " functions went wrong");
  }
  std::vector<double> warm;
  for (int r = 0; r < rounds; r++) {
    double t0 = now_ns();
    for (int rep = 0; rep < 4; rep++)
      for (const Stack &s : stacks) walk(s, pcs);
    warm.push_back((now_ns() - t0) / (4.0 * kStacks * kFramesPerWalk));
  }
  std::vector<double> cold;
  for (int rep = 0; rep < 3; rep++)
    for (const Stack &s : stacks) {
      t.flush_all();
      double t0 = now_ns();
      walk(s, pcs);
      cold.push_back((now_ns() - t0) / kFramesPerWalk);
    }
  t.unregister();
  out.push_back({"scale", functions, median(warm)});
  out.push_back({"cold", functions, median(cold)});
}

// Every translation the TLBs hold replaced by others: one byte of each 4 KiB page of 256 MiB
// read, more pages than any core's second-level TLB maps (AMD Zen 4: 3,072 entries; Intel: 2,048).
void evict_tlb() {
  constexpr size_t kBytes = size_t(256) << 20, kPage = 4096;
  static std::vector<uint8_t> pages(kBytes, 1);
  uint8_t sum = 0;
  for (size_t i = 0; i < kBytes; i += kPage) sum = uint8_t(sum + pages[i]);
  __asm__ volatile("" ::"r"(sum));  // the reads happen
}

// One step from a frame in `pc` whose row is CFA = SP + 16, RA at CFA - 8: its time with the
// table flushed first (and, with cold_tlb, no translation of its pages left either).
double step_ns(Table &t, uint64_t pc, int reps, bool cold_tlb = false) {
  std::vector<uint64_t> words(8, 0);
  uint64_t base = uint64_t(uintptr_t(words.data()));
  words[1] = t.text_start;  // the caller: some PC in the table's text
  sfu_stack st{base, base + words.size() * 8, SFU_STACK_TASK};
  sfu_regs regs{};
  regs.pc = pc;
  regs.r[SFU_X86_64_RSP] = base;
  regs.valid = 1u << SFU_X86_64_RSP;
  sfu_walk_config cfg{};
  cfg.stacks = &st;
  cfg.num_stacks = 1;
  cfg.abi = SFU_ABI_AMD64_LE;
  std::vector<double> v;
  for (int r = 0; r < reps; r++) {
    sfu_cursor c;
    sfu_frame f;
    sfu_walk_start(&c, &regs, &cfg);
    if (!sfu_walk_next(&c, &f)) die("worst-step: no first frame");
    t.mislead_branches();
    t.flush_all();
    if (cold_tlb) evict_tlb();
    double t0 = now_ns();
    int ok = sfu_walk_next(&c, &f);
    double dt = now_ns() - t0;
    if (!ok || f.pc != t.text_start) die(std::string("worst-step: the step failed: ") + sfu_stop_name(sfu_walk_stop(&c)));
    v.push_back(dt);
  }
  return median(v);
}

// The largest row count and unsorted FDE count registration accepts (without a cap, a size
// that already shows the step unbounded).
#ifdef CONFIG_SFU_MAX_FUNCTION_ROWS
constexpr uint32_t kMaxRows = CONFIG_SFU_MAX_FUNCTION_ROWS;
#else
constexpr uint32_t kMaxRows = 1u << 20;
#endif
#ifdef CONFIG_SFU_MAX_SORTED_FDES
constexpr uint32_t kMaxSorted = CONFIG_SFU_MAX_SORTED_FDES;
#else
constexpr uint32_t kMaxSorted = 1u << 24;  // no cap: a table as large as the reviewer's
#endif
#ifdef CONFIG_SFU_MAX_UNSORTED_FDES
constexpr uint32_t kMaxUnsorted = CONFIG_SFU_MAX_UNSORTED_FDES;
#else
constexpr uint32_t kMaxUnsorted = 1u << 20;
#endif

// The longest function registration accepts, at `start`: V3 flexible rows of six 4-byte words (29
// bytes a row, the largest a row can be; V3 counts a function's rows in 16 bits), else V2 rows of
// two 4-byte words (13 bytes); 4-byte row starts. Two rows take turns, so that every block of the
// function changes row 64 times: more than a block-index bucket holds, so a step in it searches
// (the last row, odd, is CFA = SP + 16).
FdeSpec longest_function(uint64_t start, bool v3) {
  FdeSpec f = sfu::test::fde_spec(start, kMaxRows * 4, {});
  f.flex = v3;
  f.fre_type = 2;
  f.fres.reserve(kMaxRows);
  for (uint32_t i = 0; i < kMaxRows; i++) {
    int32_t cfa = i % 2 ? 16 : 24;
    FreSpec r = v3 ? row(i * 4, {int32_t((7u << 3) | 1), cfa, 2, -8, 2, -16}) : row(i * 4, {cfa, -16});
    r.word_size = 4;
    f.fres.push_back(std::move(r));
  }
  return f;
}

void worst_step(std::vector<BenchLine> &out, std::vector<WorstCase> &cases) {
  constexpr int kReps = 31;
  const bool v3 = kMaxRows <= 0xffff;
  const std::string longest = std::to_string(kMaxRows) + (v3 ? " rows (V3 flexible, 29 bytes each)" : " rows (V2, 13 bytes each)");
  // The longest function alone, the PC in its last row.
  {
    TableSpec spec = sfu::test::table_spec(v3 ? 3 : 2, SFU_ABI_AMD64_LE, {});
    spec.section_addr = kTextBase - 0x10000000;
    spec.fdes.push_back(longest_function(kTextBase, v3));
    Table t;
    t.registration(spec, uint64_t(kMaxRows) * 4);
    double ns = step_ns(t, kTextBase + uint64_t(kMaxRows) * 4 - 1, kReps);
    cases.push_back({"one function of " + longest + ", last row", ns});
    t.unregister();
  }
  // The worst that registration accepts at once: the longest function as the last of the largest
  // sorted table, registered without a block index (the binary search over every function, then
  // every row), and with one; each with the TLBs cold as well.
  {
    TableSpec spec = sfu::test::table_spec(v3 ? 3 : 2, SFU_ABI_AMD64_LE, {});
    spec.section_addr = kTextBase - 0x10000000;
    spec.fdes.reserve(kMaxSorted);
    for (uint32_t i = 0; i + 1 < kMaxSorted; i++)
      spec.fdes.push_back(sfu::test::fde_spec(kTextBase + uint64_t(i) * 16, 16, {row(0, {16})}));
    const uint64_t last = kTextBase + uint64_t(kMaxSorted - 1) * 16;
    spec.fdes.push_back(longest_function(last, v3));
    const uint64_t text = uint64_t(kMaxSorted - 1) * 16 + uint64_t(kMaxRows) * 4;
    for (bool indexed : {false, true}) {
      Table t;
      t.registration(spec, text, indexed);
      std::string what = "one function of " + longest + ", last of a sorted table of " + std::to_string(kMaxSorted) +
                         " functions, " + (indexed ? "block index" : "no block index");
      double ns = step_ns(t, last + uint64_t(kMaxRows) * 4 - 1, kReps);
      cases.push_back({what, ns});
      ns = step_ns(t, last + uint64_t(kMaxRows) * 4 - 1, kReps, true);
      cases.push_back({what + ", TLBs cold", ns});
      t.unregister();
    }
  }
  // The largest unsorted list: the PC in the last function of the list.
  {
    TableSpec spec = sfu::test::table_spec(2, SFU_ABI_AMD64_LE, {});
    spec.section_addr = kTextBase - 0x10000000;
    spec.flags = 0;  // not sorted
    for (uint32_t i = 0; i < kMaxUnsorted; i++)
      spec.fdes.push_back(sfu::test::fde_spec(kTextBase + uint64_t(kMaxUnsorted - 1 - i) * 16, 16, {row(0, {16})}));
    Table t;
    t.registration(spec, uint64_t(kMaxUnsorted) * 16);
    double ns = step_ns(t, kTextBase + 1, kReps);
    cases.push_back({"unsorted list of " + std::to_string(kMaxUnsorted) + " functions, the last one", ns});
    t.unregister();
  }
  // A sorted list of 2^20 functions: without an index, the binary search at its longest (the
  // registration here gives one, whose buckets describe these blocks: kept as the large table).
  {
    constexpr uint32_t kN = 1u << 20;
    TableSpec spec = sfu::test::table_spec(2, SFU_ABI_AMD64_LE, {});
    spec.section_addr = kTextBase - 0x10000000;
    for (uint32_t i = 0; i < kN; i++) spec.fdes.push_back(sfu::test::fde_spec(kTextBase + uint64_t(i) * 16, 16, {row(0, {16})}));
    Table t;
    t.registration(spec, uint64_t(kN) * 16);
    double ns = step_ns(t, kTextBase + uint64_t(kN - 1) * 16 + 1, kReps);
    cases.push_back({"sorted list of " + std::to_string(kN) + " functions, the last one", ns});
    t.unregister();
  }
  double worst = 0;
  for (const WorstCase &c : cases) worst = std::max(worst, c.ns);
  out.push_back({"worst-step", 0, worst});
}

std::string bench_line(const BenchLine &l) {
  char buf[128];
  if (l.what == "worst-step")
    snprintf(buf, sizeof buf, "bench: worst-step %.0f ns", l.ns);
  else
    snprintf(buf, sizeof buf, "bench: %s %u functions %.1f ns/frame", l.what.c_str(), l.functions, l.ns);
  return buf;
}

void write_section(FILE *out, int rounds, const std::vector<BenchLine> &lines, const std::vector<WorstCase> &cases) {
  fprintf(out, "## Lookup cost against table size, cold tables, the longest step\n\n");
  fprintf(out, "bench/bench_tables.cpp, linked with the core built without the row cache "
               "(bench/no-row-cache.config): every step looks its row up in the table, as a cache miss does, "
               "through the block index the table is registered with (one 64-byte bucket; the table is searched "
               "where a bucket cannot describe its block), and before it scans the stack up to "
               "CONFIG_SFU_INDEX_PREFETCH (%d) bytes above SP for return addresses whose buckets it prefetches. "
               "Synthetic x86_64 V2 tables of F functions of 64 bytes (4 rows each, "
               "sorted), registered as a kernel registers its image; 64 stacks of 64 frames of 32 bytes (16 of "
               "locals, 0, the saved FP, the return address) in plain memory, "
               "each return address in a function drawn at random over the whole table. scale: one pass "
               "over the 64 stacks, 4 times, / 16384 frames, median of %d rounds. cold: each walk timed "
               "alone after clflush of every line of the table (and its block index), median of 192 walks "
               "/ 64 frames. worst-step: one sfu_walk_next (frame 1 to frame 2) with the table flushed "
               "first and the branch predictor taught nothing of the lookup's path (256 lookups at random "
               "PCs of the table before), median of 31, on each adversarial table below (\"TLBs cold\": 256 MiB "
               "read a byte per page before, so that no translation of the table is left); the line gives "
               "the largest. A step costs a fixed part, a binary search of log2(N) + 1 probes over the N "
               "functions (N: those starting in the pc's block with a block index), and a scan of at most "
               "CONFIG_SFU_MAX_FUNCTION_ROWS (%d) rows (or, for a table without the sorted flag, a pass over at "
               "most CONFIG_SFU_MAX_UNSORTED_FDES (%d) functions).\n\n",
          CONFIG_SFU_INDEX_PREFETCH, rounds, CONFIG_SFU_MAX_FUNCTION_ROWS, CONFIG_SFU_MAX_UNSORTED_FDES);
  fprintf(out, "| functions | ns/frame, warm | ns/frame, cold |\n| ---: | ---: | ---: |\n");
  for (size_t i = 0; i + 1 < lines.size(); i += 2)
    if (lines[i].what == "scale") fprintf(out, "| %u | %.1f | %.1f |\n", lines[i].functions, lines[i].ns, lines[i + 1].ns);
  fprintf(out, "\n| adversarial table | one step, cold (ns) |\n| --- | ---: |\n");
  for (const WorstCase &c : cases) fprintf(out, "| %s | %.0f |\n", c.table.c_str(), c.ns);
  fprintf(out, "\n```\n");
  for (const BenchLine &l : lines) fprintf(out, "%s\n", bench_line(l).c_str());
  fprintf(out, "```\n");
}

}  // namespace

int main(int argc, char **argv) {
  const char *results = nullptr;
  int rounds = 51;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--results") && i + 1 < argc) {
      results = argv[++i];
    } else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) {
      rounds = atoi(argv[++i]);
    } else {
      fprintf(stderr, "usage: %s [--results FILE] [--rounds N]\n", argv[0]);
      return 2;
    }
  }
  pin_to_current_cpu();
  std::vector<BenchLine> lines;
  std::vector<WorstCase> cases;
  for (uint32_t f : {100u, 1000u, 10000u, 100000u}) scale(f, rounds, lines);
  worst_step(lines, cases);
  for (const BenchLine &l : lines) printf("%s\n", bench_line(l).c_str());
  if (!results) return 0;
  FILE *out = fopen(results, "w");
  if (!out) die("cannot write the results file");
  write_section(out, rounds, lines, cases);
  fclose(out);
  return 0;
}
