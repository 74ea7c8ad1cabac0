// The only way a walk reads memory: 8-byte aligned words inside a declared stack, through the
// kernel's no-fault hook when it has one. Nothing else is ever dereferenced.
#pragma once

#include <stdint.h>

#include "sfu/unwind.h"

namespace sfu::unwind {

// Index of the declared stack holding [addr, addr + len), or -1.
inline int stack_holding(const sfu_walk_config &c, uint64_t addr, uint64_t len) {
  for (uint32_t i = 0; i < c.num_stacks; i++) {
    const sfu_stack &s = c.stacks[i];
    if (addr >= s.lo && addr <= s.hi && len <= s.hi - addr) return int(i);
  }
  return -1;
}

// Whether some declared stack holds [addr, addr + len): stack `hint` (the one the walk is on) is
// tried first, the others only if it does not.
inline bool in_stacks(const sfu_walk_config &c, uint64_t addr, uint64_t len, int hint) {
  if (hint >= 0 && uint32_t(hint) < c.num_stacks) {
    const sfu_stack &s = c.stacks[hint];
    if (addr >= s.lo && addr <= s.hi && len <= s.hi - addr) return true;
  }
  return stack_holding(c, addr, len) >= 0;
}

// Reads the word at addr in the byte order of the walk's ABI (host builds walk other
// architectures' stacks; a target build walks its own, so the order is native). hint: as for
// in_stacks.
bool read_word(const sfu_walk_config &c, uint64_t addr, bool big_endian, uint64_t &out, int hint = -1);

}  // namespace sfu::unwind
