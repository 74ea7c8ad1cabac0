// Test helper: a walk's frames, step by step or through the row cache, and their comparison.
// Needs no fake memory (no sfu_hook_read_nofault): binaries that walk real memory use it too.
#pragma once

#include <string>
#include <vector>

#include "sfu/unwind.h"

namespace sfu::test {

// The frames of a walk and why it stopped.
struct Walked {
  std::vector<sfu_frame> frames;
  sfu_stop stop;
  std::vector<uint64_t> pcs() const;
};
Walked walk(const sfu_regs &regs, const sfu_walk_config &config);
// The same walk with the row cache emptied before every step, so that every step takes the
// walker's general path (its runs of plain steps need a cached row): the reference a walk
// through the cache must equal.
Walked walk_uncached(const sfu_regs &regs, const sfu_walk_config &config);
// Whether two walks gave the same frames, every field, and the same stop; where they first
// differ, in words (empty if they do not).
bool same_walk(const Walked &a, const Walked &b);
std::string walk_difference(const Walked &a, const Walked &b);
// The walk step by step (walk_uncached), then twice through the row cache (the first fills it,
// the second finds every row: the walker's runs of plain steps); throws std::logic_error if they
// differ. The walk tests use it, so each of their walks checks those runs against the general
// path.
Walked walk_checked(const sfu_regs &regs, const sfu_walk_config &config);

}  // namespace sfu::test
