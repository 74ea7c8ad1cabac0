// The harness of the x86_64 real-code walk test: finds the program's own .sframe through
// PT_GNU_SFRAME, registers it with the executable PT_LOAD's text range, declares the calling
// thread's stack, and compares every sfunwind walk frame by frame with nongnu libunwind
// (DWARF .eh_frame) started from the same registers, up to where the stack leaves the program.
//
// Walks come from three places: probe() in the code under test (registers from sfu_capture_here
// and from unw_getcontext), int3 in leaf functions (SIGTRAP context), and EFLAGS.TF single-stepping
// (SIGTRAP after every instruction). Output ends with "walk-x86: N passed, M failed".
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>

#include "sfu_autoconf.h"  // CONFIG_SFU_MAX_FRAMES: the default frame cap
#include "walk.h"

extern "C" char __start_sfut_text[], __stop_sfut_text[];

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif

namespace {

constexpr int kMaxFrames = 600;    // far above any stack here: the walk must end by itself
constexpr uint32_t kWalkCap = 512;  // max_frames of the full walks
constexpr int kSmallCap = 5;
constexpr int kMaxReports = 12;     // failure lines printed per case

sfu_module g_module;
uint64_t g_text_lo, g_text_hi;  // the executable PT_LOAD: what is registered
uint64_t g_cut_lo, g_cut_hi;    // sfut_text: the code under test

thread_local sfu_stack t_stack;

struct Case {
  const char *name = nullptr;
  long walks = 0, frames = 0, failures = 0;
  long fp_cfa_frames = 0, fp_saved_frames = 0, leaf_frames = 0, tail_checks = 0;
  long outside = 0;  // single-step traps outside the code under test
};
Case g_case;
int g_passed, g_failed;
long g_total_walks, g_total_frames;
volatile int g_sweep;

// --clobber-below-sp: what a kernel interrupt frame would do to the memory under the SP.
bool g_clobber;
constexpr int kClobberBytes = 64;
struct ClobberStats {
  long steps, sfu_changed, lu_changed;
};
ClobberStats g_clobber_stats;

void fail(const char *fmt, ...) {
  g_case.failures++;
  if (g_case.failures > kMaxReports) return;
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  printf("  FAIL %s: %s\n", g_case.name ? g_case.name : "setup", buf);
}

struct SfuTrace {
  sfu_frame f[kMaxFrames];
  int n;
  sfu_stop stop;
};

struct LuTrace {
  uint64_t ip[kMaxFrames];
  uint64_t start[kMaxFrames];  // the function's start, from libunwind's proc info (DWARF FDE)
  int n;
  int step_rc;  // unw_step's last return: 0 at the end, < 0 on error
};

// The buffers are per thread and static: walks run in signal handlers too.
thread_local SfuTrace t_sfu, t_sfu2, t_capped;
thread_local LuTrace t_lu;

void sfu_walk(const sfu_regs &regs, uint32_t max_frames, SfuTrace &t) {
  sfu_walk_config cfg{};
  cfg.stacks = &t_stack;
  cfg.num_stacks = 1;
  cfg.max_frames = max_frames;
  cfg.abi = SFU_ABI_AMD64_LE;
  sfu_cursor c;
  sfu_walk_start(&c, &regs, &cfg);
  t.n = 0;
  while (t.n < kMaxFrames && sfu_walk_next(&c, &t.f[t.n])) t.n++;
  t.stop = sfu_walk_stop(&c);
}

void lu_walk(unw_context_t *uc, bool signal_frame, bool want_start, LuTrace &t) {
  unw_cursor_t c;
  t.n = 0;
  t.step_rc = signal_frame ? unw_init_local2(&c, uc, UNW_INIT_SIGNAL_FRAME) : unw_init_local(&c, uc);
  if (t.step_rc < 0) return;
  do {
    unw_word_t ip = 0;
    unw_get_reg(&c, UNW_REG_IP, &ip);
    t.ip[t.n] = ip;
    t.start[t.n] = 0;
    if (want_start) {
      unw_proc_info_t pi;
      if (unw_get_proc_info(&c, &pi) == 0) t.start[t.n] = pi.start_ip;
    }
    t.n++;
  } while (t.n < kMaxFrames && (t.step_rc = unw_step(&c)) > 0);
}

const char *fn_name(uint64_t pc, char *buf, size_t len) {
  // Names only for messages: libunwind reads the symbol table.
  unw_context_t uc;
  unw_cursor_t c;
  unw_getcontext(&uc);
  unw_init_local(&c, &uc);
  unw_word_t off;
  unw_set_reg(&c, UNW_REG_IP, pc);
  if (unw_get_proc_name(&c, buf, len, &off) != 0) snprintf(buf, len, "?");
  return buf;
}

bool in_text(uint64_t pc) { return pc >= g_text_lo && pc < g_text_hi; }
bool in_cut(uint64_t pc) { return pc >= g_cut_lo && pc < g_cut_hi; }

sfu_regs regs_from(const ucontext_t *uc, bool full) {
  const greg_t *g = uc->uc_mcontext.gregs;
  sfu_regs r{};
  r.pc = uint64_t(g[REG_RIP]);
  r.r[0] = uint64_t(g[REG_RAX]);
  r.r[1] = uint64_t(g[REG_RDX]);
  r.r[2] = uint64_t(g[REG_RCX]);
  r.r[3] = uint64_t(g[REG_RBX]);
  r.r[4] = uint64_t(g[REG_RSI]);
  r.r[5] = uint64_t(g[REG_RDI]);
  r.r[6] = uint64_t(g[REG_RBP]);
  r.r[7] = uint64_t(g[REG_RSP]);
  const int hi[] = {REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13, REG_R14, REG_R15};
  for (int i = 0; i < 8; i++) r.r[8 + i] = uint64_t(g[hi[i]]);
  // unw_getcontext saves the callee-saved registers, rsp and rip; a signal context all 16.
  r.valid = full ? 0xffffu : (1u << 3) | (1u << 6) | (1u << 7) | 0xf000u;
  return r;
}

// What a walk is expected to show beyond agreeing with libunwind.
struct Expect {
  const void *fns[SFUT_SHADOW_MAX + 1];
  int n = -1;            // -1: no expectation (single-step walks)
  bool leaf_top = false;  // frame 0 is a frameless leaf
};

void expect_from_shadow(Expect &e, bool with_probe) {
  e.n = 0;
  if (with_probe) e.fns[e.n++] = sfut_probe_fn;
  for (int i = sfut_depth - 1; i >= 0; i--) e.fns[e.n++] = sfut_shadow[i];
}

bool is_fp_cfa_fn(uint64_t start) {
  for (int i = 0; i < sfut_fp_cfa_count; i++)
    if (start == uint64_t(uintptr_t(sfut_fp_cfa_fns[i]))) return true;
  return false;
}

// Compares sfunwind's frames [from, s.n) with libunwind's; lu frames [0, from) are not
// compared (a capture made at another point of the same function). Returns the frames compared.
// The walk ends by showing the first return address outside the program (main's caller in libc,
// which has no table) as an unvouched last frame: it must be libunwind's frame there. The
// program's own frames, all but that one, are compared below.
int compare(const char *what, const SfuTrace &walked, const LuTrace &lu, int from, const Expect *e) {
  char a[128], b[128];
  int before = int(g_case.failures);
  static SfuTrace s;  // the program's frames; static: the harness is single-threaded
  s = walked;
  const sfu_frame *outside = s.n > 0 ? &s.f[s.n - 1] : nullptr;
  if (!outside || outside->module || outside->reliable || in_text(outside->pc)) {
    fail("%s: the last frame is not an unvouched one outside the program", what);
  } else {
    s.n--;
    if (lu.n > s.n && outside->pc != lu.ip[s.n])
      fail("%s: last frame %#lx outside the program, libunwind's %#lx", what, outside->pc, lu.ip[s.n]);
  }
  if (s.stop != SFU_STOP_END)
    fail("%s: stopped with %s after %d frames (pc %#lx %s), want end-of-stack", what,
         sfu_stop_name(s.stop), s.n, s.n ? s.f[s.n - 1].pc : 0,
         s.n ? fn_name(s.f[s.n - 1].pc - (s.n > 1), a, sizeof a) : "");
  if (lu.n <= s.n) {
    fail("%s: libunwind has %d frames (rc %d), sfunwind %d: the stack never left the program",
         what, lu.n, lu.step_rc, s.n);
  } else if (in_text(lu.ip[s.n])) {
    fail("%s: sfunwind ended after %d frames but libunwind's next frame %#lx (%s) is in the "
         "program", what, s.n, lu.ip[s.n], fn_name(lu.ip[s.n] - 1, a, sizeof a));
  }
  int compared = 0;
  for (int i = from; i < s.n && i < lu.n; i++) {
    if (s.f[i].pc != lu.ip[i]) {
      fail("%s: frame %d: sfunwind %#lx (%s), libunwind %#lx (%s)", what, i, s.f[i].pc,
           fn_name(s.f[i].pc - (i > 0), a, sizeof a), lu.ip[i],
           fn_name(lu.ip[i] - (i > 0), b, sizeof b));
      break;
    }
    compared++;
  }
  uint64_t prev_cfa = 0;
  for (int i = 1; i < s.n; i++) {
    const sfu_frame &f = s.f[i];
    if (f.source != SFU_SOURCE_TABLE || !f.reliable || f.module != &g_module ||
        f.stack_kind != SFU_STACK_TASK || f.index != (i < 255 ? i : 255) || f.cfa <= prev_cfa) {
      fail("%s: frame %d: source %d reliable %d module %p kind %d index %d cfa %#lx (prev %#lx)",
           what, i, f.source, f.reliable, (const void *)f.module, f.stack_kind, f.index, f.cfa,
           prev_cfa);
      break;
    }
    prev_cfa = f.cfa;
  }
  if (s.n > 0 && (s.f[0].source != SFU_SOURCE_REGISTERS || s.f[0].cfa != 0 || !s.f[0].reliable))
    fail("%s: frame 0: source %d cfa %#lx reliable %d", what, s.f[0].source, s.f[0].cfa,
         s.f[0].reliable);

  if (e && e->n >= 0) {
    if (s.n != e->n) fail("%s: %d frames, the shadow stack says %d", what, s.n, e->n);
    for (int i = 0; i < e->n && i < lu.n; i++) {
      if (lu.start[i] != uint64_t(uintptr_t(e->fns[i]))) {
        fail("%s: frame %d is in %s, want %s", what, i, fn_name(lu.ip[i] - (i > 0), a, sizeof a),
             fn_name(uint64_t(uintptr_t(e->fns[i])), b, sizeof b));
        break;
      }
    }
    for (int i = 0; i < lu.n && i < s.n; i++)
      for (const void *tc : sfut_forbidden)
        if (lu.start[i] == uint64_t(uintptr_t(tc)))
          fail("%s: frame %d is the tail caller %s", what, i, fn_name(lu.start[i], a, sizeof a));
    g_case.tail_checks++;
    // The SFrame rows themselves: rbp-based CFA for alloca/VLA frames, rbp saved by greedy,
    // no frame at all in a leaf.
    for (int i = 0; i < s.n && i < lu.n; i++) {
      sfu_row row;
      uint64_t look = i ? s.f[i].pc - 1 : s.f[i].pc;
      if (sfu_table_find(&g_module.table, look, &row) != SFU_OK) {
        fail("%s: frame %d: no SFrame row for %#lx", what, i, look);
        continue;
      }
      if (i > 0 && is_fp_cfa_fn(lu.start[i])) {
        if (row.cfa.kind != SFU_RULE_REGISTER || row.cfa.reg != SFU_X86_64_RBP)
          fail("%s: frame %d (%s): CFA is not rbp-based (reg %d)", what, i,
               fn_name(lu.start[i], a, sizeof a), row.cfa.reg);
        g_case.fp_cfa_frames++;
      }
      if (i > 0 && lu.start[i] == uint64_t(uintptr_t(sfut_fp_saver_fn))) {
        if (row.fp.kind != SFU_RULE_AT_CFA)
          fail("%s: frame %d: greedy's row does not save rbp (fp kind %d)", what, i, row.fp.kind);
        g_case.fp_saved_frames++;
      }
      if (i == 0 && e->leaf_top) {
        if (row.cfa.kind != SFU_RULE_REGISTER || row.cfa.reg != SFU_X86_64_RSP ||
            row.cfa.offset != 8)
          fail("%s: frame 0 (leaf) CFA is r%d+%d, want rsp+8", what, row.cfa.reg, row.cfa.offset);
        g_case.leaf_frames++;
      }
    }
  }
  if (int(g_case.failures) == before) {
    g_case.walks++;
    g_case.frames += compared;
  }
  return compared;
}

// The default frame cap, a small cap and sfu_backtrace, against a full walk s.
void check_caps(const sfu_regs &regs, const SfuTrace &s) {
  // A walk with as many frames as the cap or more stops with frame-cap-reached after exactly
  // cap frames (the cap is checked before the step that would have ended it); a shorter one
  // ends as the full walk did.
  static const int caps[] = {kSmallCap, 0};
  for (int cap : caps) {
    int limit = cap ? cap : CONFIG_SFU_MAX_FRAMES;
    sfu_walk(regs, uint32_t(cap), t_capped);
    int want = s.n < limit ? s.n : limit;
    sfu_stop want_stop = s.n < limit ? s.stop : SFU_STOP_FRAME_CAP;
    if (t_capped.n != want || t_capped.stop != want_stop)
      fail("max_frames %d: %d frames, %s; want %d, %s", cap, t_capped.n,
           sfu_stop_name(t_capped.stop), want, sfu_stop_name(want_stop));
    for (int i = 0; i < t_capped.n && i < s.n; i++)
      if (t_capped.f[i].pc != s.f[i].pc) {
        fail("max_frames %d: frame %d differs from the full walk", cap, i);
        break;
      }
  }

  static thread_local uint64_t pcs[kMaxFrames];
  sfu_walk_config cfg{};
  cfg.stacks = &t_stack;
  cfg.num_stacks = 1;
  cfg.max_frames = kWalkCap;
  cfg.abi = SFU_ABI_AMD64_LE;
  sfu_stop why = SFU_STOP_NONE;
  size_t n = sfu_backtrace(&regs, &cfg, pcs, kMaxFrames, &why);
  bool same = int(n) == s.n && why == s.stop;
  for (size_t i = 0; same && i < n; i++) same = pcs[i] == s.f[i].pc;
  if (!same) fail("sfu_backtrace: %zu frames, %s; the cursor walk %d, %s", n, sfu_stop_name(why), s.n,
                  sfu_stop_name(s.stop));
}

// Informational (--clobber-below-sp): the same step walked again with the bytes under the SP
// overwritten by the interrupted SP value, as the hardware's interrupt frame push would in a
// kernel (no red zone, no stack switch). Counts the steps where either unwinder's answer
// changes: a walk that reads a save slot the function has already popped.
void clobbered_walks(ucontext_t *uc, const sfu_regs &regs) {
  static thread_local SfuTrace clobbered;
  static thread_local LuTrace lu_clobbered;
  uint64_t sp = regs.r[SFU_X86_64_RSP];
  auto *below = reinterpret_cast<uint64_t *>(uintptr_t(sp - kClobberBytes));
  uint64_t saved[kClobberBytes / 8];
  memcpy(saved, below, sizeof saved);
  for (int i = 0; i < kClobberBytes / 8; i++) below[i] = sp;
  sfu_walk(regs, kWalkCap, clobbered);
  lu_walk(reinterpret_cast<unw_context_t *>(uc), true, false, lu_clobbered);
  memcpy(below, saved, sizeof saved);
  g_clobber_stats.steps++;
  auto same_sfu = [&] {
    if (clobbered.n != t_sfu.n || clobbered.stop != t_sfu.stop) return false;
    for (int i = 0; i < t_sfu.n; i++)
      if (clobbered.f[i].pc != t_sfu.f[i].pc) return false;
    return true;
  };
  auto same_lu = [&] {
    for (int i = 0; i < t_sfu.n; i++)  // the frames sfunwind covers
      if (i >= lu_clobbered.n || lu_clobbered.ip[i] != t_lu.ip[i]) return false;
    return true;
  };
  bool s_ok = same_sfu(), l_ok = same_lu();
  if (!s_ok) {
    if (g_clobber_stats.sfu_changed < 10) {
      char a[128];
      printf("  clobber: at %#lx (%s) sfunwind gives %d frames, %s (%d, %s unclobbered)\n",
             regs.pc, fn_name(regs.pc, a, sizeof a), clobbered.n, sfu_stop_name(clobbered.stop),
             t_sfu.n, sfu_stop_name(t_sfu.stop));
    }
    g_clobber_stats.sfu_changed++;
  }
  if (!l_ok) g_clobber_stats.lu_changed++;
}

void on_sigtrap(int, siginfo_t *, void *ctx) {
  auto *uc = static_cast<ucontext_t *>(ctx);
  uint64_t rip = uint64_t(uc->uc_mcontext.gregs[REG_RIP]);
  if (g_sweep && !in_cut(rip)) {
    g_case.outside++;
    return;
  }
  sfu_regs regs = regs_from(uc, true);
  sfu_walk(regs, kWalkCap, t_sfu);
  lu_walk(reinterpret_cast<unw_context_t *>(uc), true, !g_sweep, t_lu);
  if (g_sweep) {
    char what[64];
    snprintf(what, sizeof what, "step at %#lx", rip);
    compare(what, t_sfu, t_lu, 0, nullptr);
    if (g_clobber) clobbered_walks(uc, regs);
    return;
  }
  static thread_local Expect e;
  expect_from_shadow(e, false);
  e.leaf_top = sfut_leaf_trap != 0;
  compare("int3", t_sfu, t_lu, 0, &e);
  check_caps(regs, t_sfu);
}

struct Found {
  uint64_t self;
  bool found;
  sfu_table_desc desc;
};

int on_object(dl_phdr_info *info, size_t, void *arg) {
  auto *f = static_cast<Found *>(arg);
  const ElfW(Phdr) *sframe = nullptr, *text = nullptr;
  for (int i = 0; i < info->dlpi_phnum; i++) {
    const ElfW(Phdr) &p = info->dlpi_phdr[i];
    if (p.p_type == PT_GNU_SFRAME) sframe = &p;
    if (p.p_type == PT_LOAD && (p.p_flags & PF_X)) {
      uint64_t lo = info->dlpi_addr + p.p_vaddr;
      if (f->self >= lo && f->self < lo + p.p_memsz) text = &p;
    }
  }
  if (!text) return 0;
  if (!sframe) return 1;  // our object, but no .sframe: fail in the caller
  f->found = true;
  f->desc.section = reinterpret_cast<const void *>(info->dlpi_addr + sframe->p_vaddr);
  f->desc.size = sframe->p_memsz;
  f->desc.section_addr = info->dlpi_addr + sframe->p_vaddr;
  f->desc.text_start = info->dlpi_addr + text->p_vaddr;
  f->desc.text_end = f->desc.text_start + text->p_memsz;
  f->desc.abi = SFU_ABI_AMD64_LE;
  return 1;
}

void begin(const char *name) {
  g_case = Case{};
  g_case.name = name;
}

void end() {
  const Case &c = g_case;
  const char *n = c.name;
  if (!strcmp(n, "alloca-vla") && (c.fp_cfa_frames == 0 || c.fp_saved_frames == 0))
    fail("no rbp-based frame (%ld) or no frame with rbp saved (%ld) was walked", c.fp_cfa_frames,
         c.fp_saved_frames);
  if (!strcmp(n, "leaf") && c.leaf_frames == 0) fail("no walk started in a leaf");
  if (c.walks == 0 && c.failures == 0 && strcmp(n, "register")) fail("no walk was made");
  printf("%s %s: %ld walks, %ld frames compared with libunwind", c.failures ? "FAIL" : "PASS", n,
         c.walks, c.frames);
  if (c.fp_cfa_frames) printf(", %ld rbp-based frames", c.fp_cfa_frames);
  if (c.leaf_frames) printf(", %ld leaf tops", c.leaf_frames);
  if (c.outside) printf(", %ld steps outside the code under test", c.outside);
  if (c.failures) printf(", %ld failures", c.failures);
  printf("\n");
  fflush(stdout);
  (c.failures ? g_failed : g_passed)++;
  g_total_walks += c.walks;
  g_total_frames += c.frames;
}

}  // namespace

extern "C" void sfut_thread_setup(void) {
  pthread_attr_t attr;
  void *addr = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
  }
  t_stack.lo = uint64_t(uintptr_t(addr));
  t_stack.hi = t_stack.lo + size;
  t_stack.kind = SFU_STACK_TASK;
}

extern "C" void sfut_setup(int argc, char **argv) {
  setvbuf(stdout, nullptr, _IOLBF, 0);
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--clobber-below-sp")) {
      g_clobber = true;
    } else {
      fprintf(stderr, "usage: %s [--clobber-below-sp]\n", argv[0]);
      exit(2);
    }
  }
  begin("register");
  Found f{};
  f.self = uint64_t(uintptr_t(&sfut_setup));
  dl_iterate_phdr(on_object, &f);
  if (!f.found) {
    fail("no PT_GNU_SFRAME in the program");
  } else if (sfu_error e = sfu_register(&g_module, &f.desc, "x86_walk_tests")) {
    fail("sfu_register: %s", sfu_error_name(e));
  } else {
    g_text_lo = f.desc.text_start;
    g_text_hi = f.desc.text_end;
    g_cut_lo = uint64_t(uintptr_t(__start_sfut_text));
    g_cut_hi = uint64_t(uintptr_t(__stop_sfut_text));
    printf("registered .sframe at %#lx (%zu bytes, SFrame V%d, %u functions, %u rows) for text "
           "%#lx-%#lx; code under test %#lx-%#lx\n",
           f.desc.section_addr, f.desc.size, g_module.table.version, g_module.table.num_fdes,
           g_module.table.num_fres, g_text_lo, g_text_hi, g_cut_lo, g_cut_hi);
    if (g_module.table.version != 1) fail("SFrame version %d: gas 2.40 writes 1", g_module.table.version);
    if (g_cut_lo < g_text_lo || g_cut_hi > g_text_hi || g_cut_lo >= g_cut_hi)
      fail("sfut_text is not inside the registered text");
    if (sfu_module_for_pc(uint64_t(uintptr_t(sfut_probe_fn))) != &g_module)
      fail("sfu_module_for_pc does not find the probe");
  }
  end();

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = on_sigtrap;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTRAP, &sa, nullptr);
}

extern "C" void sfut_case_begin(const char *name) { begin(name); }
extern "C" void sfut_case_end(void) { end(); }

extern "C" void sfut_sweep_mode(int on) { g_sweep = on; }

extern "C" void sfut_check_probe(const struct sfu_regs *captured, unw_context_t *uc) {
  static thread_local Expect e;
  expect_from_shadow(e, true);
  // 1. Both unwinders from libunwind's context: every frame, frame 0 included.
  sfu_regs regs = regs_from(reinterpret_cast<const ucontext_t *>(uc), false);
  sfu_walk(regs, kWalkCap, t_sfu);
  lu_walk(uc, false, true, t_lu);
  compare("probe", t_sfu, t_lu, 0, &e);
  check_caps(regs, t_sfu);
  // 2. sfunwind from sfu_capture_here's registers, a few instructions earlier in the same
  // probe: frame 0 is its own PC in the probe, every caller must be the same.
  if (captured->r[SFU_X86_64_RSP] != regs.r[SFU_X86_64_RSP])
    fail("sfu_capture_here: rsp %#lx, unw_getcontext %#lx in the same frame",
         captured->r[SFU_X86_64_RSP], regs.r[SFU_X86_64_RSP]);
  sfu_walk(*captured, kWalkCap, t_sfu2);
  if (t_sfu2.n > 0 && t_sfu2.f[0].pc != captured->pc) fail("capture: frame 0 is not the capture PC");
  compare("capture", t_sfu2, t_lu, 1, &e);
}

extern "C" int sfut_finish(void) {
  if (g_clobber)
    printf("walk-x86: clobber-below-sp: of %ld single steps, %ld change sfunwind's walk, %ld "
           "libunwind's\n",
           g_clobber_stats.steps, g_clobber_stats.sfu_changed, g_clobber_stats.lu_changed);
  printf("walk-x86: %ld walks, %ld frames compared with libunwind\n", g_total_walks, g_total_frames);
  printf("walk-x86: %d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
