// The per-PC row cache (CONFIG_SFU_ROW_CACHE): the row a walk used for a lookup PC, kept so the
// next walk through that PC skips the function search and the row scan. Two-way set-associative,
// in .bss, shared by every CPU and interrupt level without locks (row_cache.cpp says how).
#pragma once

#include <stdint.h>

#include "atomic.h"
#include "config.h"
#include "sframe/index.h"
#include "sframe/rule.h"
#include "sframe/table.h"
#include "sfu/unwind.h"

namespace sfu::unwind {

// One entry; row_cache.cpp keeps the array and fills it. 64 bytes, one cache line: the set is
// found with a shift, not a multiply.
struct alignas(64) RowCacheEntry {
  uint32_t seq;      // odd while being written
  uint32_t unused;
  uint64_t serial;   // the registration the row came from (next_registration_serial); 0: empty
  uint64_t pc;
  uint64_t plain;    // the row in plain_word's form, or 0
  uint64_t rule[3];  // CFA, RA, FP as sframe::pack_rule packs them (the row's flags in the CFA's word)
};
static_assert(sizeof(RowCacheEntry) == 64, "an entry is one cache line");
// Eight ways per set: a stack's return addresses are spread over the text at random, and with
// fewer ways some sets get more of them than they hold and lose every one of those rows on every
// walk (64 return addresses over 100,000 functions: 2 ways of 128 sets kept 84-89% of them from one
// walk to the next, 8 of 32 keep all; docs/performance.md). A probe reads the ways in order, each
// one line, and stops at the PC's: most rows sit in the first ways (a fill takes the first empty
// one). A fill takes an empty way, or the one holding the same PC for an older registration, else
// the way after the one filled last (row_cache.cpp).
inline constexpr uint32_t kRowCacheEntries = config::kRowCacheEntries;
inline constexpr uint32_t kRowCacheWays = kRowCacheEntries >= 8 ? 8 : kRowCacheEntries ? kRowCacheEntries : 1;
inline constexpr uint32_t kRowCacheSets = kRowCacheEntries ? kRowCacheEntries / kRowCacheWays : 1;
extern RowCacheEntry g_row_cache[kRowCacheEntries ? kRowCacheEntries : 1];

// The first entry of pc's set. The set comes from pc + 1 (for a return address, the address
// itself, which a walk has in hand before it subtracts 1): its bits 2-8 folded with bits 9-15,
// computed as the set's byte offset directly, two shifts, an exclusive or and a mask, no multiply
// (a walk computes it on its longest chain of dependent instructions).
inline RowCacheEntry *row_cache_set_of(uint64_t pc) {
  constexpr unsigned kSetShift = __builtin_ctz(kRowCacheWays * sizeof(RowCacheEntry));
  static_assert(kSetShift >= 2 && kSetShift <= 9, "the fold needs 4 <= set bytes <= 512");
  uint64_t a = pc + 1;
  uint64_t offset = ((a << (kSetShift - 2)) ^ (a >> (9 - kSetShift))) & (uint64_t(kRowCacheSets - 1) << kSetShift);
  return reinterpret_cast<RowCacheEntry *>(reinterpret_cast<char *>(g_row_cache) + offset);
}

// The number of pc's set.
inline uint32_t row_cache_set(uint64_t pc) { return uint32_t(row_cache_set_of(pc) - g_row_cache) / kRowCacheWays; }

// The rows compilers write for nearly every instruction: CFA = SP or FP plus an offset, RA saved
// at CFA plus an offset, FP unchanged or saved at CFA plus an offset, no flag that changes the
// walk (outermost, signal frame, repeating block). sp and fp: the ABI's register numbers.
inline bool plain_rules(const sfu_row &row, uint8_t sp, uint8_t fp) {
  if (row.flags & (SFU_ROW_OUTERMOST | SFU_ROW_SIGNAL_FRAME | SFU_ROW_PCMASK)) return false;
  if (row.cfa.kind != SFU_RULE_REGISTER || (row.cfa.reg != sp && row.cfa.reg != fp)) return false;
  if (row.ra.kind != SFU_RULE_AT_CFA) return false;
  return row.fp.kind == SFU_RULE_UNCHANGED || row.fp.kind == SFU_RULE_AT_CFA;
}

// A plain row in one word, what the walk's common path (walker.cpp, plain_run) reads: marks in
// bits 0-7, the FP's offset from the CFA in 8-23 (16 bits, signed), the CFA's offset from SP or
// FP in 24-43 and the RA slot's offset from SP or FP (the CFA's and the RA's together) in 44-63
// (20 bits, signed: a frame of up to 512 KiB). 0: not plain, or an offset too large. The RA
// slot's offset is the top field, one shift from the word: the walk's chain of dependent
// instructions runs from this word to that slot.
constexpr uint64_t kPlainRow = 1, kPlainCfaOnFp = 2, kPlainFpSaved = 4, kPlainRaSigned = 8;
constexpr int64_t kPlainOffsetLimit = int64_t(1) << 19;
inline uint64_t plain_word(const sfu_row &row, uint8_t sp, uint8_t fp) {
  if (!plain_rules(row, sp, fp)) return 0;
  bool fp_saved = row.fp.kind == SFU_RULE_AT_CFA;
  int64_t cfa = row.cfa.offset, ra = cfa + row.ra.offset, fpo = fp_saved ? row.fp.offset : 0;
  auto fits = [](int64_t v) { return v >= -kPlainOffsetLimit && v < kPlainOffsetLimit; };
  if (!fits(cfa) || !fits(ra) || fpo != int16_t(fpo)) return 0;
  return kPlainRow | (row.cfa.reg == fp ? kPlainCfaOnFp : 0) | (fp_saved ? kPlainFpSaved : 0) |
         ((row.flags & SFU_ROW_RA_SIGNED) ? kPlainRaSigned : 0) | uint64_t(uint16_t(fpo)) << 8 |
         (uint64_t(cfa) & 0xfffff) << 24 | uint64_t(ra) << 44;
}
inline int64_t plain_fp_offset(uint64_t w) { return int16_t(uint16_t(w >> 8)); }
inline int64_t plain_cfa_offset(uint64_t w) { return int64_t(w << 20) >> 44; }
inline int64_t plain_ra_offset(uint64_t w) { return int64_t(w) >> 44; }  // from SP or FP

// The serial of module m's registration, which keys its rows in the cache; 0 once it is
// unregistered (retire_rows), which no entry matches. Read once per walk step or run, atomically:
// an unregistration on another CPU may write it meanwhile.
[[gnu::always_inline]] inline uint64_t module_serial(const sfu_module &m) {
  return __atomic_load_n(&m.serial, __ATOMIC_RELAXED);
}

// Whether entry e holds the row of registration `serial` (a module's, never 0) for pc, given
// `seen`, what the entry's count held when the probe began: the count even and unchanged around
// the copy of the fields, or the copy is not used. Apart from probe() so that tests can make the
// entry change between that first read and the rest, as a fill on another CPU would.
template <class Copy>
[[gnu::always_inline]] inline bool probe_as_seen(const RowCacheEntry &e, uint32_t seen, uint64_t serial, uint64_t pc,
                                                 Copy &&copy) {
  // Another PC: a miss needs no consistent copy (the other way is probed next).
  if ((seen & 1) || __atomic_load_n(&e.pc, __ATOMIC_RELAXED) != pc) return false;
  uint64_t held = __atomic_load_n(&e.serial, __ATOMIC_RELAXED);
  copy(e);
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  return __atomic_load_n(&e.seq, __ATOMIC_RELAXED) == seen && held == serial;  // PC, row: one fill
}

template <class Copy>
[[gnu::always_inline]] inline bool probe(const RowCacheEntry &e, uint64_t serial, uint64_t pc, Copy &&copy) {
  return probe_as_seen(e, __atomic_load_n(&e.seq, __ATOMIC_ACQUIRE), serial, pc, copy);
}

// The plain word of pc's row if a way of its set holds it for registration `serial` (a module's,
// never 0), else 0. The walk's common path: one word, inline.
[[gnu::always_inline]] inline uint64_t cached_plain_word(uint64_t serial, uint64_t pc) {
  if (kRowCacheEntries == 0) return 0;
  const RowCacheEntry *set = row_cache_set_of(pc);
  uint64_t w = 0;
  auto copy = [&](const RowCacheEntry &e) { w = __atomic_load_n(&e.plain, __ATOMIC_RELAXED); };
  if (probe(set[0], serial, pc, copy)) [[likely]]  // where a fill puts most rows: the path kept short
    return w;
  for (uint32_t way = 1; way < kRowCacheWays; way++)
    if (probe(set[way], serial, pc, copy)) return w;
  return 0;
}

// Whether the cache holds the row of this registration of module `m` for pc; if so, fills the
// rules and the flags of *row (what a walk uses), nothing else. Inline: a cached step's probe.
[[gnu::always_inline]] inline bool cached_row(const sfu_module &m, uint64_t pc, sfu_row &row) {
  if (kRowCacheEntries == 0) return false;  // no load of the serial either
  uint64_t serial = module_serial(m);
  if (serial == 0) return false;
  uint64_t w[3];
  auto copy = [&](const RowCacheEntry &e) {
    for (int i = 0; i < 3; i++) w[i] = __atomic_load_n(&e.rule[i], __ATOMIC_RELAXED);
  };
  const RowCacheEntry *set = row_cache_set_of(pc);
  for (uint32_t way = 0; way < kRowCacheWays; way++)
    if (probe(set[way], serial, pc, copy)) {
      sframe::unpack_rules(w[0], w[1], w[2], row);
      return true;
    }
  return false;
}

// CONFIG_SFU_ROW_CACHE_STATS: steps the cache served, steps that searched. Relaxed adds to one
// shared word each (a line that moves between CPUs that walk at once: off by default).
extern uint64_t g_row_cache_hits, g_row_cache_misses;
[[gnu::always_inline]] inline void count_hits(uint64_t n) {
  if constexpr (config::kRowCacheStats) __atomic_fetch_add(&g_row_cache_hits, n, __ATOMIC_RELAXED);
}
[[gnu::always_inline]] inline void count_miss() {
  if constexpr (config::kRowCacheStats) __atomic_fetch_add(&g_row_cache_misses, 1, __ATOMIC_RELAXED);
}

// Keeps the row the index or sfu_table_find gave for pc, unless another CPU or an interrupted
// fill holds the entry.
void remember_row(const sfu_module &m, uint64_t pc, const sfu_row &row);

// A fill, in the steps remember_row takes one after the other: claim, key, row, publish. Apart so
// that tests can put between two steps what another CPU or an interrupt would (a probe, another
// fill, an unregistration).

// Claims e for a fill given `seen`, what its count held when the fill read it: the count made odd
// from that even value. False (nothing to do) when it was odd, an interrupted or concurrent fill,
// or when it is no longer that value: another writer claimed the entry since.
[[gnu::always_inline]] inline bool fill_claim_as_seen(RowCacheEntry &e, uint32_t seen) {
  if ((seen & 1) || !compare_and_swap(&e.seq, seen, seen + 1)) return false;
  __atomic_thread_fence(__ATOMIC_RELEASE);  // the odd count is seen before any new field
  return true;
}

// The same from the count read now, returned in seq.
[[gnu::always_inline]] inline bool fill_claim(RowCacheEntry &e, uint32_t &seq) {
  seq = __atomic_load_n(&e.seq, __ATOMIC_RELAXED);
  return fill_claim_as_seen(e, seq);
}

[[gnu::always_inline]] inline void fill_key(RowCacheEntry &e, uint64_t serial, uint64_t pc) {
  __atomic_store_n(&e.serial, serial, __ATOMIC_RELAXED);
  __atomic_store_n(&e.pc, pc, __ATOMIC_RELAXED);
}

[[gnu::always_inline]] inline void fill_row(RowCacheEntry &e, const sfu_row &row, uint64_t plain) {
  __atomic_store_n(&e.plain, plain, __ATOMIC_RELAXED);
  __atomic_store_n(&e.rule[0], sframe::pack_rule(row.cfa, row.flags), __ATOMIC_RELAXED);
  __atomic_store_n(&e.rule[1], sframe::pack_rule(row.ra, 0), __ATOMIC_RELAXED);
  __atomic_store_n(&e.rule[2], sframe::pack_rule(row.fp, 0), __ATOMIC_RELAXED);
}

// A store, then a load of another word, in that order on every CPU (the one place the cache
// needs it: fill_publish and retire_rows). One CPU (CONFIG_SFU_SMP=n): an interrupt sees this
// CPU's stores in program order, so the compiler's order is enough.
[[gnu::always_inline]] inline void store_load_fence() {
  if constexpr (config::kSmp)
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
  else
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

// Ends a fill of module m's row under `serial` (what m's serial was when the fill began): the
// count even again. If m was unregistered meanwhile, the entry is left empty: retire_rows on the
// unregistering CPU may have scanned the cache before this fill's key was there to see. Either
// that scan sees the key, or this load sees the serial retire_rows cleared (each side stores,
// fences, then loads what the other stores), so no unregistered module's row outlives its
// unregistration, whatever walk was filling one.
[[gnu::always_inline]] inline void fill_publish(RowCacheEntry &e, uint32_t seq, const sfu_module &m, uint64_t serial) {
  store_load_fence();
  if (module_serial(m) != serial) __atomic_store_n(&e.serial, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&e.seq, seq + 2, __ATOMIC_RELEASE);
}

// At unregistration, after the module was withdrawn from walks and before its text can be
// registered again: sets m's serial to 0 (its walks still running find and keep nothing more)
// and empties every entry that holds a row of it, and fills that finish later empty theirs
// (fill_publish). So an unregistered module's rows are never served again, even when the counter
// wraps and gives its number to another registration. Takes time in the cache's size, in normal
// context.
void retire_rows(sfu_module &m);

// The row of registered module `m` that covers pc (which lies in its text) when the cache does
// not hold it (cached_row), as sfu_table_find finds it: from the block index, else searched; a
// row from either is kept in the cache (a hit costs less than a bucket, and the walk's runs of
// plain steps read only the cache). Errors are not cached; where the index says no row applies,
// the answer is SFU_E_NO_FUNCTION (the walker treats SFU_E_NO_ROW alike). Inline, so that a
// walk's deepest call chain is the search's alone.
[[gnu::always_inline]] inline sfu_error find_and_keep_row(const sfu_module &m, uint64_t pc, sfu_row &row) {
  sfu_error e = SFU_OK;
  switch (sframe::find_in_index(m.table, pc, row)) {
    case sframe::IndexAnswer::kRow: break;
    case sframe::IndexAnswer::kNoRow: return SFU_E_NO_FUNCTION;
    case sframe::IndexAnswer::kSearch:
      // Built for size, a table validated at registration is searched without checking it again.
      if constexpr (config::kForSize && config::kValidateOnRegister)
        e = sframe::find_validated(m.table, pc, row);
      else
        e = sfu_table_find(&m.table, pc, &row);
      break;
  }
  if (kRowCacheEntries && e == SFU_OK) remember_row(m, pc, row);  // no cache: no call
  return e;
}

// A number for a new registration (never 0, which marks an empty cache entry). A number comes
// back after 2^64 - 1 registrations, when the counter wraps; retire_rows has left no row of its
// last holder in the cache by then, so the new holder meets none. 64 bits, not 32, for a walk
// running on a module as it is unregistered: a run of plain steps under way (walker.cpp,
// plain_run) goes on probing with the number it read, and would be served the rows of a module
// registered at the same text under the same number. With 32 bits that takes a module that stayed
// registered through 2^32 - 1 others, unregistered just as the counter comes round to its number,
// during such a run (rare, but a long run of loading and unloading modules gets there); with 64,
// centuries of registrations.
uint64_t next_registration_serial();

#ifdef SFU_HOSTED
// Tests only (the host build): sets the number the last registration took, so that a test
// reaches the wrap without 2^64 registrations.
void set_last_registration_serial(uint64_t serial);
#endif

}  // namespace sfu::unwind
