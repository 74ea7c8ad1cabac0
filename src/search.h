// The one binary search of the core: over n records sorted by start address, how many start at
// or before pc (the last such record is that count minus one; 0: none). start(i) reads record
// i's start. log2(n) + 1 probes, no allocation: SFrame FDEs and symbol-table entries both use it.
#pragma once

#include <stdint.h>

namespace sfu {

template <class Start>
uint32_t count_starting_at_or_before(uint32_t n, uint64_t pc, Start &&start) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (start(mid) <= pc)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace sfu
