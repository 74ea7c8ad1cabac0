#include "support/walks.h"

#include <stdio.h>
#include <string.h>

#include <stdexcept>
#include <string>

#include "unwind/row_cache.h"

namespace sfu::test {

std::vector<uint64_t> Walked::pcs() const {
  std::vector<uint64_t> out;
  for (const sfu_frame &f : frames) out.push_back(f.pc);
  return out;
}

namespace {

// The cursor's walk; with `uncached`, the row cache emptied before every step.
Walked walk_steps(const sfu_regs &regs, const sfu_walk_config &config, bool uncached) {
  Walked w;
  sfu_cursor c;
  sfu_walk_start(&c, &regs, &config);
  sfu_frame f;
  for (;;) {
    if (uncached) memset(static_cast<void *>(sfu::unwind::g_row_cache), 0, sizeof sfu::unwind::g_row_cache);
    if (!sfu_walk_next(&c, &f)) break;
    w.frames.push_back(f);
  }
  w.stop = sfu_walk_stop(&c);
  return w;
}

}  // namespace

Walked walk(const sfu_regs &regs, const sfu_walk_config &config) { return walk_steps(regs, config, false); }

Walked walk_uncached(const sfu_regs &regs, const sfu_walk_config &config) { return walk_steps(regs, config, true); }

// Where two walks first differ, in words; empty if they do not.
std::string walk_difference(const Walked &a, const Walked &b) {
  char buf[256];
  for (size_t i = 0; i < a.frames.size() && i < b.frames.size(); i++) {
    const sfu_frame &x = a.frames[i], &y = b.frames[i];
    if (x.pc != y.pc || x.sp != y.sp || x.cfa != y.cfa || x.module != y.module || x.source != y.source ||
        x.reliable != y.reliable || x.stack_kind != y.stack_kind || x.index != y.index) {
      snprintf(buf, sizeof buf,
               "frame %zu: pc %#llx/%#llx sp %#llx/%#llx cfa %#llx/%#llx source %u/%u reliable %u/%u", i,
               (unsigned long long)x.pc, (unsigned long long)y.pc, (unsigned long long)x.sp,
               (unsigned long long)y.sp, (unsigned long long)x.cfa, (unsigned long long)y.cfa, x.source, y.source,
               x.reliable, y.reliable);
      return buf;
    }
  }
  if (a.frames.size() != b.frames.size() || a.stop != b.stop) {
    snprintf(buf, sizeof buf, "%zu/%zu frames, stop %s/%s", a.frames.size(), b.frames.size(), sfu_stop_name(a.stop),
             sfu_stop_name(b.stop));
    return buf;
  }
  return "";
}

bool same_walk(const Walked &a, const Walked &b) { return walk_difference(a, b).empty(); }

Walked walk_checked(const sfu_regs &regs, const sfu_walk_config &config) {
  Walked w = walk_uncached(regs, config);
  for (int pass = 0; pass < 2; pass++) {
    std::string d = walk_difference(w, walk(regs, config));
    if (!d.empty())
      throw std::logic_error("a walk through the row cache differs from step by step (pass " + std::to_string(pass) +
                             ", step by step/cached): " + d);
  }
  return w;
}

}  // namespace sfu::test
