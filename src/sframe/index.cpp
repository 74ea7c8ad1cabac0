// sfu_index_size and sfu_table_index: the block index, built once at registration (index.h has
// its layout and the walk's lookup). Built for size with the rest of registration (Makefile).
//
// Two sweeps in address order, both linear: every bucket's first_fde, as sfu_table_find uses it,
// with every bucket "not described"; then, for a validated table, the rows: each function gives
// "from address a on, row id" events in rising order, gathered per block and written into the
// block's bucket once the events have passed its end.
#include "sframe/index.h"
#include "sframe/table.h"

namespace sfu::sframe {
namespace {

// While building, an id wider than a byte: a stretch of text no bucket can describe (a row the
// full palette lacks, a repeating-block function). A block holding any of it is not described.
constexpr uint16_t kUndescribed = 0x100;

// The table's distinct rows: the palette, and the hash that finds a row's id in it.
struct Palette {
  uint64_t *rows;  // kPaletteSlots rows of kPaletteRowWords
  uint8_t *hash;   // kHashSlots ids, kNoRowId: empty
  uint32_t used;

  // The id of the row's rules and flags, added if new; kUndescribed when the palette is full.
  uint16_t id_of(const sfu_row &r) {
    const uint64_t w[kPaletteRowWords] = {pack_rule(r.cfa, r.flags), pack_rule(r.ra, 0), pack_rule(r.fp, 0)};
    uint64_t mix = (w[0] ^ (w[1] << 21 | w[1] >> 43) ^ (w[2] << 42 | w[2] >> 22)) * 0x9e3779b97f4a7c15ull;
    uint32_t h = uint32_t(mix >> 32);
    // The hash is never full (at most kPaletteRows of its slots are used): an empty slot ends the
    // probe well before the bound.
    for (uint32_t probe = 0; probe < kHashSlots; probe++, h++) {
      uint8_t &slot = hash[h % kHashSlots];
      if (slot == kNoRowId) {
        if (used == kPaletteRows) return kUndescribed;
        for (uint32_t i = 0; i < kPaletteRowWords; i++) rows[used * kPaletteRowWords + i] = w[i];
        slot = uint8_t(used);
        return uint16_t(used++);
      }
      const uint64_t *p = rows + slot * kPaletteRowWords;
      if (p[0] == w[0] && p[1] == w[1] && p[2] == w[2]) return slot;
    }
    return kUndescribed;
  }
};

// The buckets' rows, gathered one block at a time from events in rising address order.
struct Blocks {
  uint8_t *buckets;
  uint32_t blocks;  // without the sentinel, which stays not described
  uint32_t block;   // the one being gathered
  uint32_t n;       // its changes so far
  bool full;        // it has more than kMaxChanges
  uint16_t cur;     // the id in effect since the last event
  // One change more than a bucket holds: the last may yet be undone by an event at its place.
  uint8_t starts[kMaxChanges + 1];
  uint16_t ids[kMaxChanges + 2];

  Blocks(uint8_t *b, uint32_t count) : buckets(b), blocks(count), block(0), n(0), full(false), cur(kNoRowId) {
    ids[0] = kNoRowId;
  }

  // Writes the gathered block's bucket if it can be described; the next block starts with cur.
  void next_block() {
    bool described = !full && n <= kMaxChanges && block < blocks;
    for (uint32_t i = 0; i <= n; i++) described = described && ids[i] < kUndescribed;
    if (described) {
      uint8_t *b = buckets + uint64_t(block) * kBucketSize;
      b[kCountAt] = uint8_t(n);
      for (uint32_t i = 0; i < n; i++) b[kStartsAt + i] = starts[i];
      for (uint32_t i = 0; i <= n; i++) b[kStartsAt + n + i] = uint8_t(ids[i]);
    }
    block++;
    n = 0;
    full = false;
    ids[0] = cur;
  }

  // From text offset `at` on (not below the last event's), row `id`.
  void event(uint64_t at, uint16_t id) {
    while (block < blocks && block < at / SFU_INDEX_BLOCK) next_block();
    if (id == cur) return;
    cur = id;
    if (full) return;
    uint32_t off = uint32_t(at % SFU_INDEX_BLOCK);
    // At the same place as the last change (or the block's start), the row before covers no byte.
    if (n ? starts[n - 1] == off : off == 0) {
      ids[n] = id;
      if (n && ids[n - 1] == id) n--;
      return;
    }
    if (n == kMaxChanges + 1) {
      full = true;
      return;
    }
    starts[n] = uint8_t(off);
    ids[++n] = id;
  }
};

// The rows of a validated, sorted table into the buckets. A record that cannot be read (which
// validation rules out) leaves its block and every later one not described.
void describe_rows(const sfu_table &t, Palette &palette, Blocks &blocks) {
  for (uint32_t i = 0; i < t.num_fdes; i++) {
    Fde f;
    if (read_fde(t, i, f)) return;
    if (f.size == 0) continue;  // covers no PC
    const uint64_t start = f.start - t.text_start;
    // Rows of a repeating block are matched modulo its size: not a stretch a bucket can hold.
    blocks.event(start, f.pcmask() ? kUndescribed : kNoRowId);
    uint32_t at = f.fres_at;
    for (uint32_t j = 0; j < f.num_fres && !f.pcmask(); j++) {
      Fre fre;
      if (read_fre(t, f, at, fre)) return;
      if (fre.start >= f.size) break;  // a row at the very end matches no PC
      sfu_row r;
      rules_of_fre(t, f, fre, r);
      blocks.event(start + fre.start, palette.id_of(r));
      at = fre.end;
    }
    blocks.event(start + f.size, kNoRowId);
  }
  blocks.event(uint64_t(blocks.blocks) * SFU_INDEX_BLOCK, kNoRowId);  // every block left: no row
}

}  // namespace
}  // namespace sfu::sframe

using namespace sfu::sframe;

extern "C" size_t sfu_index_size(const struct sfu_table_desc *desc) {
  if (!desc || desc->text_end <= desc->text_start) return 0;
  uint64_t blocks = (desc->text_end - desc->text_start - 1) / SFU_INDEX_BLOCK + 1;
  // 4 GiB of index or more: not indexed (and first_fde, index_entries stay 32-bit).
  if (blocks + 1 >= ((uint64_t(1) << 32) - SFU_INDEX_FIXED) / kBucketSize) return 0;
  return size_t((blocks + 1) * kBucketSize + SFU_INDEX_FIXED);
}

extern "C" enum sfu_error sfu_table_index(struct sfu_table *table, void *memory, size_t size) {
  if (!table || !memory) return SFU_E_NULL_ARGUMENT;
  if (!table->ready) return SFU_E_NOT_INITIALIZED;
  sfu_table_desc d{};
  d.text_start = table->text_start;
  d.text_end = table->text_end;
  size_t need = sfu_index_size(&d);
  if (need == 0 || size < need || uintptr_t(memory) % 8 != 0) return SFU_E_BAD_INDEX_MEMORY;
  if (!(table->flags & SFU_F_FDE_SORTED)) return SFU_OK;  // searched linearly, bounded at open
  const sfu_table &t = *table;
  uint8_t *hash = static_cast<uint8_t *>(memory) + (-uintptr_t(memory) % kIndexAlign);
  uint8_t *palette = hash + kHashSlots, *buckets = palette + kPaletteBytes;
  const uint32_t entries = uint32_t((need - SFU_INDEX_FIXED) / kBucketSize);
  // First_fde of bucket b: how many functions start at or before block b's first byte. One sweep:
  // starts rise in a sorted table (in one only opened they may not, and the counts are then merely
  // useless: each is still at most num_fdes, so a lookup through them reads only inside the
  // section).
  uint32_t n = 0;
  for (uint32_t b = 0; b < entries; b++) {
    uint64_t at = t.text_start + uint64_t(b) * SFU_INDEX_BLOCK;
    while (n < t.num_fdes && fde_start(t, n) <= at) n++;
    uint8_t *bucket = buckets + uint64_t(b) * kBucketSize;
    __builtin_memcpy(__builtin_assume_aligned(bucket, 4), &n, 4);
    bucket[kCountAt] = kNotDescribed;
  }
  // Rows only from a validated table: the row records of one only opened are not checked, and its
  // lookups check each row they use.
  if (t.ready == 2) {
    for (uint32_t i = 0; i < kHashSlots; i++) hash[i] = kNoRowId;
    Palette p{reinterpret_cast<uint64_t *>(palette), hash, 0};
    Blocks blocks(buckets, entries - 1);
    describe_rows(t, p, blocks);
  }
  __atomic_store_n(&table->index_entries, entries, __ATOMIC_RELAXED);
  __atomic_store_n(&table->index, buckets, __ATOMIC_RELEASE);
  return SFU_OK;
}
