// The block index's layout (index.cpp builds it at registration) and the walk's lookup through
// it: one bucket, one cache line, per SFU_INDEX_BLOCK bytes of text, and a palette of the table's
// distinct rows. Inline: find_in_index is a step's hot path and adds no call level.
//
// Index memory, from the caller's pointer rounded up to a cache line:
//   hash     kHashSlots palette ids by the hash of their row (kNoRowId: empty); building only
//   palette  kPaletteSlots rows of three words, rule.h's packing (CFA with the flags, RA, FP)
//   buckets  one per block of text, then a sentinel; the table's index points at the first
// A bucket:
//   [0, 4)       first_fde: functions starting at or before the block's first byte (native order)
//   [4]          n: row changes inside the block, 0 to kMaxChanges; kNotDescribed: search the table
//   [5, 5+n)     starts: the rising offsets in the block (each > 0) where the row changes
//   [5+n, 6+2n)  ids: palette ids, ids[0] at the block's first byte, ids[i] from starts[i-1];
//                kNoRowId where no row applies (no function, or before its function's first row)
#pragma once

#include <stdint.h>

#include "config.h"
#include "sframe/rule.h"
#include "sfu/sframe.h"

namespace sfu::sframe {

inline constexpr uint32_t kBucketSize = SFU_INDEX_BUCKET;
inline constexpr uint32_t kIndexAlign = 64;  // a bucket is one cache line
inline constexpr uint32_t kCountAt = 4, kStartsAt = 5;
inline constexpr uint32_t kMaxChanges = (kBucketSize - kStartsAt - 1) / 2;  // 29: n starts, n + 1 ids
inline constexpr uint8_t kNotDescribed = 0xff;
inline constexpr uint8_t kNoRowId = 0xff;
inline constexpr uint32_t kPaletteRowWords = 3, kPaletteRowBytes = kPaletteRowWords * 8;
inline constexpr uint32_t kPaletteSlots = 256;  // ids 0 to 254; 255 is kNoRowId
inline constexpr uint32_t kPaletteRows = kPaletteSlots - 1;
inline constexpr uint32_t kPaletteBytes = kPaletteSlots * kPaletteRowBytes;
inline constexpr uint32_t kHashSlots = 2 * kPaletteSlots;  // at most half full: short probes
static_assert(SFU_INDEX_FIXED == kIndexAlign + kHashSlots + kPaletteBytes, "sframe.h's size is this layout's");
static_assert(kPaletteBytes % kIndexAlign == 0 && kHashSlots % kIndexAlign == 0, "buckets stay aligned");
static_assert(SFU_INDEX_BLOCK <= 256, "an offset in a block is one byte");

// Bucket b's first_fde.
inline uint32_t index_first_fde(const uint8_t *buckets, uint64_t b) {
  uint32_t v;
  __builtin_memcpy(&v, __builtin_assume_aligned(buckets + b * kBucketSize, 4), 4);
  return v;
}

// The bucket that answers for the text offset `at` (pc - text_start, below the text's size).
inline const uint8_t *index_bucket(const uint8_t *index, uint64_t at) {
  return index + at / SFU_INDEX_BLOCK * kBucketSize;
}

enum class IndexAnswer {
  kRow,     // the rules and flags of *row are filled (nothing else of it)
  kNoRow,   // no row applies: what sfu_table_find says with SFU_E_NO_FUNCTION or SFU_E_NO_ROW
  kSearch,  // no index, or a block it does not describe: ask sfu_table_find
};

// What the index says for pc, which the caller knows lies in [t.text_start, t.text_end). At most
// kMaxChanges byte compares.
[[gnu::always_inline]] inline IndexAnswer find_in_index(const sfu_table &t, uint64_t pc, sfu_row &row) {
  // Without CONFIG_SFU_BLOCK_INDEX no index is read (sfu_table_find ignores one too): searched.
  if (!config::kBlockIndex) return IndexAnswer::kSearch;
  const uint8_t *index = __atomic_load_n(&t.index, __ATOMIC_ACQUIRE);  // built before published
  if (!index) return IndexAnswer::kSearch;
  const uint64_t at = pc - t.text_start;
  const uint8_t *b = index_bucket(index, at);
  const uint32_t n = b[kCountAt];
  if (n > kMaxChanges) return IndexAnswer::kSearch;  // kNotDescribed
  const uint32_t off = uint32_t(at % SFU_INDEX_BLOCK);
  uint32_t k = 0;
  while (k < n && b[kStartsAt + k] <= off) k++;
  const uint32_t id = b[kStartsAt + n + k];
  if (id == kNoRowId) return IndexAnswer::kNoRow;
  uint64_t w[kPaletteRowWords];
  __builtin_memcpy(w, __builtin_assume_aligned(index - kPaletteBytes + id * kPaletteRowBytes, 8), sizeof w);
  unpack_rules(w[0], w[1], w[2], row);
  return IndexAnswer::kRow;
}

}  // namespace sfu::sframe
