// The per-PC row cache (CONFIG_SFU_ROW_CACHE): the row a walk used for a lookup PC, kept so the
// next walk through that PC skips the function search and the row scan. Two-way set-associative,
// in .bss, shared by every CPU and interrupt level without locks (row_cache.cpp says how).
#pragma once

#include <stdint.h>

#include "config.h"
#include "sframe/index.h"
#include "sframe/rule.h"
#include "sfu/unwind.h"

namespace sfu::unwind {

// One entry; row_cache.cpp keeps the array and fills it.
struct RowCacheEntry {
  uint32_t seq;      // odd while being written
  uint32_t serial;   // the registration the row came from; 0: empty
  uint64_t pc;
  uint64_t rule[3];  // CFA, RA, FP as sframe::pack_rule packs them (the row's flags in the CFA's word)
};
// Two ways per set: two hot PCs whose hash meets keep both their rows (one way: they would evict
// each other on every walk). A fill takes an empty way, or the one holding the same PC for an
// older registration, else the way not filled last (row_cache.cpp).
inline constexpr uint32_t kRowCacheEntries = config::kRowCacheEntries;
inline constexpr uint32_t kRowCacheWays = kRowCacheEntries >= 2 ? 2 : 1;
inline constexpr uint32_t kRowCacheSets = kRowCacheEntries ? kRowCacheEntries / kRowCacheWays : 1;
extern RowCacheEntry g_row_cache[kRowCacheEntries ? kRowCacheEntries : 1];

// The set of pc: Fibonacci hashing, the top bits of the product mixing every bit of the PC.
inline uint32_t row_cache_set(uint64_t pc) {
  constexpr int kShift = 64 - __builtin_ctz(kRowCacheSets);
  return kRowCacheSets > 1 ? uint32_t((pc * 0x9e3779b97f4a7c15ull) >> kShift) : 0;
}

// Whether entry e holds the row of registration `serial` for pc; if so, fills the rules and the
// flags of *row. The count is even and unchanged around the copy, or the copy is not used.
inline bool probe_row(const RowCacheEntry &e, uint32_t serial, uint64_t pc, sfu_row &row) {
  uint32_t seq = __atomic_load_n(&e.seq, __ATOMIC_ACQUIRE);
  // Another PC: a miss needs no consistent copy (the other way is probed next).
  if ((seq & 1) || __atomic_load_n(&e.pc, __ATOMIC_RELAXED) != pc) return false;
  uint32_t held = __atomic_load_n(&e.serial, __ATOMIC_RELAXED);
  uint64_t w0 = __atomic_load_n(&e.rule[0], __ATOMIC_RELAXED), w1 = __atomic_load_n(&e.rule[1], __ATOMIC_RELAXED),
           w2 = __atomic_load_n(&e.rule[2], __ATOMIC_RELAXED);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (__atomic_load_n(&e.seq, __ATOMIC_RELAXED) != seq || held != serial) return false;  // PC, rules: one fill
  sframe::unpack_rules(w0, w1, w2, row);
  return true;
}

// Whether the cache holds the row of this registration of module `m` for pc; if so, fills the
// rules and the flags of *row (what a walk uses), nothing else. Inline: a cached step's probe.
[[gnu::always_inline]] inline bool cached_row(const sfu_module &m, uint64_t pc, sfu_row &row) {
  if (kRowCacheEntries == 0 || m.serial == 0) return false;
  const RowCacheEntry *set = &g_row_cache[row_cache_set(pc) * kRowCacheWays];
  for (uint32_t w = 0; w < kRowCacheWays; w++)
    if (probe_row(set[w], m.serial, pc, row)) return true;
  return false;
}

// Keeps the row sfu_table_find gave for pc, unless another CPU or an interrupted fill holds the
// entry.
void remember_row(const sfu_module &m, uint64_t pc, const sfu_row &row);

// The row of registered module `m` that covers pc (which lies in its text), as sfu_table_find
// finds it: from the block index, else from the cache, else searched and kept. Errors are not
// cached; where the index says no row applies, the answer is SFU_E_NO_FUNCTION (the walker treats
// SFU_E_NO_ROW alike). Inline, so that a walk's deepest call chain is the search's alone.
[[gnu::always_inline]] inline sfu_error find_row(const sfu_module &m, uint64_t pc, sfu_row &row) {
  switch (sframe::find_in_index(m.table, pc, row)) {
    case sframe::IndexAnswer::kRow: return SFU_OK;
    case sframe::IndexAnswer::kNoRow: return SFU_E_NO_FUNCTION;
    case sframe::IndexAnswer::kSearch: break;
  }
  if (cached_row(m, pc, row)) return SFU_OK;
  sfu_error e = sfu_table_find(&m.table, pc, &row);
  if (e == SFU_OK) remember_row(m, pc, row);
  return e;
}

// A number for a new registration (never 0, which marks an empty cache entry).
uint32_t next_registration_serial();

}  // namespace sfu::unwind
