#include "support/walks.h"

#include <string.h>

#include <stdexcept>

#include "unwind/row_cache.h"

namespace sfu::test {

std::vector<uint64_t> Walked::pcs() const {
  std::vector<uint64_t> out;
  for (const sfu_frame &f : frames) out.push_back(f.pc);
  return out;
}

Walked walk(const sfu_regs &regs, const sfu_walk_config &config) {
  Walked w;
  sfu_cursor c;
  sfu_walk_start(&c, &regs, &config);
  sfu_frame f;
  while (sfu_walk_next(&c, &f)) w.frames.push_back(f);
  w.stop = sfu_walk_stop(&c);
  return w;
}

Walked walk_uncached(const sfu_regs &regs, const sfu_walk_config &config) {
  Walked w;
  sfu_cursor c;
  sfu_walk_start(&c, &regs, &config);
  sfu_frame f;
  for (;;) {
    memset(static_cast<void *>(sfu::unwind::g_row_cache), 0, sizeof sfu::unwind::g_row_cache);
    if (!sfu_walk_next(&c, &f)) break;
    w.frames.push_back(f);
  }
  w.stop = sfu_walk_stop(&c);
  return w;
}

bool same_walk(const Walked &a, const Walked &b) {
  if (a.stop != b.stop || a.frames.size() != b.frames.size()) return false;
  for (size_t i = 0; i < a.frames.size(); i++) {
    const sfu_frame &x = a.frames[i], &y = b.frames[i];
    if (x.pc != y.pc || x.sp != y.sp || x.cfa != y.cfa || x.module != y.module || x.source != y.source ||
        x.reliable != y.reliable || x.stack_kind != y.stack_kind || x.index != y.index)
      return false;
  }
  return true;
}

Walked walk_checked(const sfu_regs &regs, const sfu_walk_config &config) {
  Walked w = walk_uncached(regs, config);
  for (int pass = 0; pass < 2; pass++)
    if (!same_walk(w, walk(regs, config))) throw std::logic_error("a walk through the row cache differs from step by step");
  return w;
}

}  // namespace sfu::test
