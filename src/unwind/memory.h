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

// Reads the word at addr in the byte order of the walk's ABI (host builds walk other
// architectures' stacks; a target build walks its own, so the order is native).
bool read_word(const sfu_walk_config &c, uint64_t addr, bool big_endian, uint64_t &out);

}  // namespace sfu::unwind
