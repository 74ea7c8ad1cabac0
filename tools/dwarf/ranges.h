// Address range lists (DW_AT_ranges): .debug_ranges (DWARF 2-4: address pairs, base-address
// selection entries) and .debug_rnglists (DWARF 5: every DW_RLE_* entry kind, the x-forms read
// through .debug_addr). Host code; used by the source lookup (source.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "tools/dwarf/debug_info.h"

namespace sfu::tools::dwarf {

// DW_RLE_* (DWARF 5, 7.25).
inline constexpr uint8_t kRleEndOfList = 0, kRleBaseAddressx = 1, kRleStartxEndx = 2, kRleStartxLength = 3,
                         kRleOffsetPair = 4, kRleBaseAddress = 5, kRleStartEnd = 6, kRleStartLength = 7;

struct AddressRange {
  uint64_t low = 0, high = 0;  // [low, high)
  bool operator==(const AddressRange &) const = default;
};

// What kinds of entry a list held, for readers that take only some (GNU binutils 2.40 stops at
// the first entry read through .debug_addr).
struct RangeListKinds {
  bool indexed = false;       // a base_addressx, startx_endx or startx_length entry
  size_t before_indexed = 0;  // ranges read before the first such entry
};

// Reads the list at `offset` of the unit's range section (.debug_ranges for a unit of version 4
// or less, .debug_rnglists for 5), every entry up to its end marker, with `base` the unit's base
// address (its DW_AT_low_pc). Empty ranges are kept; callers skip them.
bool read_range_list(const DebugInfoReader &reader, const Unit &unit, uint64_t offset, uint64_t base,
                     std::vector<AddressRange> &out, DebugError &err, RangeListKinds *kinds = nullptr);

}  // namespace sfu::tools::dwarf
