// The .sfu_symbols layout (docs/symbols.md), every constant once: the reader here and the
// writer in tools/symbols/ both use these.
#pragma once

#include <stdint.h>

#include "sfu/symbols.h"

namespace sfu::symbols {

// Read in the table's byte order, the magic is this number; read the other way, it is not, so
// the first four bytes say the byte order ("SFSY" in a big-endian table, "YSFS" little-endian).
inline constexpr uint32_t kMagic = 0x53465359;
inline constexpr uint8_t kVersion = 1;
inline constexpr uint8_t kKnownFlags = 0;  // none defined in version 1

// Header field offsets; the header is followed by the token pairs, the entries, the names.
namespace hdr {
inline constexpr uint32_t kMagic = 0, kVersion = 4, kFlags = 5, kReserved = 6;
inline constexpr uint32_t kNumSymbols = 8, kNamesSize = 12, kTokenMap = 16;
}  // namespace hdr
inline constexpr uint32_t kTokenMapSize = 32;  // one bit per code 0-255
inline constexpr uint32_t kHeaderSize = hdr::kTokenMap + kTokenMapSize;

// A token is the pair of codes it stands for.
inline constexpr uint32_t kTokenSize = 2;

// An entry: the function's start relative to the section's address (signed), its size, and
// where its name starts in the encoded names (it ends where the next entry's starts).
namespace entry {
inline constexpr uint32_t kStart = 0, kSize = 4, kName = 8;
}  // namespace entry
inline constexpr uint32_t kEntrySize = 12;

// Sections of 2 GiB or more are refused, so offset arithmetic never wraps in 32 bits.
inline constexpr uint64_t kMaxSectionSize = 0x7fffffff;

inline constexpr uint32_t kNameMax = SFU_SYMBOL_NAME_MAX;
inline constexpr uint32_t kTokenDepth = SFU_SYMBOL_TOKEN_DEPTH;

// Is code c a token in this map (bit c % 8 of byte c / 8)?
constexpr bool is_token(const uint8_t *map, uint8_t c) { return (map[c >> 3] >> (c & 7)) & 1; }

}  // namespace sfu::symbols
