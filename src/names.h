// Names kept as one block of NUL-terminated strings, the i-th found by counting NULs: no table of
// pointers (8 bytes a name on 64-bit, more than a third of the names' own size). Only printing
// asks for a name, so the scan's cost does not matter.
#pragma once

namespace sfu {

// The i-th name of `block`; i must be below the number of names in it.
inline const char *nth_name(const char *block, unsigned i) {
  const char *p = block;
  for (; i > 0; i--)
    while (*p++) {
    }
  return p;
}

}  // namespace sfu
