// The only way a walk reads memory: 8-byte aligned words inside a declared stack, through the
// kernel's no-fault hook when it has one. Nothing else is ever dereferenced.
#pragma once

#include <stdint.h>

#include "call_levels.h"
#include "config.h"
#include "sframe/bytes.h"
#include "sfu/unwind.h"

namespace sfu::unwind {

// Whether stack s holds [addr, addr + len); its top, hi, counts (an outermost frame's CFA).
inline bool holds(const sfu_stack &s, uint64_t addr, uint64_t len) {
  return addr >= s.lo && addr <= s.hi && len <= s.hi - addr;
}

// Index of the first declared stack holding [addr, addr + len), or -1. Built for size, one copy
// serves the walk's start, its CFA check and its reads.
SFU_SIZE_SHARED int first_stack_holding(const sfu_walk_config &c, uint64_t addr, uint64_t len) {
  for (uint32_t i = 0; i < c.num_stacks; i++)
    if (holds(c.stacks[i], addr, len)) return int(i);
  return -1;
}

// The same with stack `hint` (the one the walk is on; -1 for none) tried first: an address at its
// top belongs to it even where another stack, declared before it, begins there.
inline int stack_holding(const sfu_walk_config &c, uint64_t addr, uint64_t len, int hint = -1) {
  if (hint >= 0 && uint32_t(hint) < c.num_stacks && holds(c.stacks[hint], addr, len)) return hint;
  return first_stack_holding(c, addr, len);
}

// Whether some declared stack holds [addr, addr + len), stack `hint` tried first: only sooner, the
// answer is the same, so built for size every stack is asked in order (one loop, not two).
inline bool in_stacks(const sfu_walk_config &c, uint64_t addr, uint64_t len, int hint) {
  return stack_holding(c, addr, len, config::kForSize ? -1 : hint) >= 0;
}

// Whether a walk may read the word at addr: aligned, inside a declared stack (hint: as for
// in_stacks).
inline bool readable(const sfu_walk_config &c, uint64_t addr, int hint) {
  return addr % 8 == 0 && in_stacks(c, addr, 8, hint);
}

// The word at addr, read directly: declared stack memory is mapped by contract, so one aligned
// access, not split or elided, in the byte order of the walk's ABI.
inline uint64_t load_stack_word(uint64_t addr, bool big_endian) {
  uint64_t word = *reinterpret_cast<const volatile uint64_t *>(uintptr_t(addr));
  return big_endian == sframe::kNativeBigEndian ? word : __builtin_bswap64(word);
}

// Reads the word at addr in the byte order of the walk's ABI (host builds walk other
// architectures' stacks; a target build walks its own, so the order is native), through the
// kernel's no-fault hook if it has one. hint: as for in_stacks. SFU_STOP_READ_REFUSED: refused,
// out undefined: the stop a step returns as it is, with no test of its own. Built for size,
// folded into its one caller there (a step's reads), which otherwise passes its 5 arguments on.
SFU_SIZE_INLINE sfu_stop read_stack_word(const sfu_walk_config &c, uint64_t addr, bool big_endian, uint64_t &out,
                                         int hint) {
  // A target build walks its own ABI's stacks, in the CPU's byte order.
  if (SFU_BUILD_ABI != 0) big_endian = sframe::kNativeBigEndian;
  if (!readable(c, addr, hint)) return SFU_STOP_READ_REFUSED;
  if (sfu_hook_read_nofault) {
    // Copied into out itself, then put in order: no buffer, so no frame beyond the save area.
    if (sfu_hook_read_nofault(&out, addr, 8) != 0) return SFU_STOP_READ_REFUSED;
    out = sframe::load_field<8>(reinterpret_cast<const uint8_t *>(&out), big_endian);
    return SFU_STOP_NONE;
  }
  out = load_stack_word(addr, big_endian);
  return SFU_STOP_NONE;
}

// The same as yes or no. False: refused, out undefined.
inline bool read_word(const sfu_walk_config &c, uint64_t addr, bool big_endian, uint64_t &out, int hint = -1) {
  return read_stack_word(c, addr, big_endian, out, hint) == SFU_STOP_NONE;
}

// The same for a step's common path, the stack the walk is on (stack `hint`, given resolved) asked
// first: inline where the kernel has no hook. (read_word's hook path is not split out for both to
// share: one more call level would cost a 160-byte save area on s390x, and inlining read_word
// everywhere costs 2 KB of code.)
inline bool read_word_inline(const sfu_walk_config &c, const sfu_stack &on, uint64_t addr, bool big_endian,
                             uint64_t &out, int hint) {
  // Built for size, one copy of the read: read_word's.
  if (config::kForSize || sfu_hook_read_nofault || addr % 8 != 0 || !holds(on, addr, 8))
    return read_word(c, addr, big_endian, out, hint);
  out = load_stack_word(addr, big_endian);
  return true;
}

}  // namespace sfu::unwind
