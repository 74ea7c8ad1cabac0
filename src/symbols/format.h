// The .sfu_symbols layout (docs/symbols.md), every constant once: the reader here and the
// writer in tools/symbols/ both use these.
#pragma once

#include <stdint.h>

#include "sfu/symbols.h"

namespace sfu::symbols {

// Read in the table's byte order, the magic is this number; read the other way, it is not, so
// the first four bytes say the byte order ("SFSY" in a big-endian table, "YSFS" little-endian).
inline constexpr uint32_t kMagic = 0x53465359;
// Version 2 added prefixes shared with an earlier name (the entry's back and prefix fields);
// a version 1 table, written by an older sfu gen, is refused as bad-symbols-version.
inline constexpr uint8_t kVersion = 2;
inline constexpr uint8_t kKnownFlags = 0;  // none defined in version 2

// Header field offsets; the header is followed by the token pairs, the entries, the names.
namespace hdr {
inline constexpr uint32_t kMagic = 0, kVersion = 4, kFlags = 5, kReserved = 6;
inline constexpr uint32_t kNumSymbols = 8, kNamesSize = 12, kTokenMap = 16;
}  // namespace hdr
inline constexpr uint32_t kTokenMapSize = 32;  // one bit per code 0-255
inline constexpr uint32_t kHeaderSize = hdr::kTokenMap + kTokenMapSize;

// A token is the pair of codes it stands for.
inline constexpr uint32_t kTokenSize = 2;

// An entry: the function's start relative to the section's address (signed); its size (low 28
// bits) and `back` (top 4 bits); where its own codes start in the encoded names (low 24 bits,
// they end where the next entry's start) and `prefix` (top 8 bits). A name is the first `prefix`
// characters of entry i - back's name, then its own codes; back and prefix are both 0 or both not.
namespace entry {
inline constexpr uint32_t kStart = 0, kSize = 4, kName = 8;
inline constexpr uint32_t kSizeBits = 28, kOffsetBits = 24;
inline constexpr uint32_t kSizeMask = (1u << kSizeBits) - 1, kOffsetMask = (1u << kOffsetBits) - 1;
inline constexpr uint32_t kMaxBack = 0xf, kMaxPrefix = 0xff;
}  // namespace entry
inline constexpr uint32_t kEntrySize = 12;

// Sections of 2 GiB or more are refused, so offset arithmetic never wraps in 32 bits.
inline constexpr uint64_t kMaxSectionSize = 0x7fffffff;

inline constexpr uint32_t kNameMax = SFU_SYMBOL_NAME_MAX;
inline constexpr uint32_t kTokenDepth = SFU_SYMBOL_TOKEN_DEPTH;
inline constexpr uint32_t kPrefixDepth = SFU_SYMBOL_PREFIX_DEPTH;

// Is code c a token in this map (bit c % 8 of byte c / 8)?
constexpr bool is_token(const uint8_t *map, uint8_t c) { return (map[c >> 3] >> (c & 7)) & 1; }

}  // namespace sfu::symbols
