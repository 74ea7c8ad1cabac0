// The row cache's storage and its writer side (the layout and the probe, a step's hot path, are
// inline in row_cache.h). Each entry is a sequence lock of one writer at a time: the writer makes
// the count odd with a compare-and-swap (a writer that finds it odd, or loses the swap, caches
// nothing), stores, and makes it even again; a reader copies the entry and uses the copy only if
// the count was even and unchanged around it. An NMI that walks while the code it interrupted
// fills an entry sees the count odd and searches the table instead. The key is the lookup PC and
// the registration's serial, and an unregistration empties its module's entries (retire_rows, with
// fill_publish for the walks still filling): an unregistered module's rows are never served
// again, even if its memory is reused or its serial given again after the counter wraps.
#include "unwind/row_cache.h"

#include "atomic.h"
#include "config.h"
#include "sframe/format.h"

namespace sfu::unwind {

RowCacheEntry g_row_cache[kRowCacheEntries ? kRowCacheEntries : 1];  // zeroed: every entry empty
#ifdef CONFIG_SFU_ROW_CACHE_STATS
uint64_t g_row_cache_hits, g_row_cache_misses;
#endif

namespace {

uint64_t g_last_serial;
uint8_t g_last_filled[kRowCacheSets];  // per set, the way filled last: a hint, read and written racily

void remember(RowCacheEntry &e, const sfu_module &m, uint64_t serial, uint64_t pc, const sfu_row &row,
              uint64_t plain) {
  uint32_t seq;
  if (!fill_claim(e, seq)) return;
  fill_key(e, serial, pc);
  fill_row(e, row, plain);
  fill_publish(e, seq, m, serial);
}

}  // namespace

void remember_row(const sfu_module &m, uint64_t pc, const sfu_row &row) {
  uint64_t serial = module_serial(m);
  if (kRowCacheEntries == 0 || serial == 0) return;
  RowCacheEntry *set = row_cache_set_of(pc);
  uint32_t s = row_cache_set(pc);
  // An empty way, or the one holding this PC for an older registration; else the way after the
  // one filled last (the oldest fill). Two CPUs choosing at once may pick the same way or fill
  // two: either is a valid cache, only a less useful one.
  uint32_t way = (__atomic_load_n(&g_last_filled[s], __ATOMIC_RELAXED) + 1u) % kRowCacheWays;
  for (uint32_t w = 0; w < kRowCacheWays; w++)
    if (__atomic_load_n(&set[w].serial, __ATOMIC_RELAXED) == 0 || __atomic_load_n(&set[w].pc, __ATOMIC_RELAXED) == pc) {
      way = w;
      break;
    }
  __atomic_store_n(&g_last_filled[s], uint8_t(way), __ATOMIC_RELAXED);
  uint8_t abi = m.table.abi;
  remember(set[way], m, serial, pc, row, plain_word(row, sframe::abi_sp_reg(abi), sframe::abi_fp_reg(abi)));
}

void retire_rows(sfu_module &m) {
  uint64_t serial = module_serial(m);
  __atomic_store_n(&m.serial, 0, __ATOMIC_RELAXED);
  if (kRowCacheEntries == 0 || serial == 0) return;
  store_load_fence();  // the 0 before the scan's loads: fill_publish's other half
  // An entry is emptied by its serial alone, without claiming it: a fill in progress keeps its
  // odd count (readers ignore the entry until it ends), and an entry another registration filled
  // since this load is at worst emptied too, a miss, never a wrong row.
  for (RowCacheEntry &e : g_row_cache)
    if (__atomic_load_n(&e.serial, __ATOMIC_RELAXED) == serial) __atomic_store_n(&e.serial, 0, __ATOMIC_RELAXED);
}

}  // namespace sfu::unwind

extern "C" int sfu_row_cache_counts(uint64_t *hits, uint64_t *misses) {
  using namespace sfu::unwind;
  uint64_t h = 0, m = 0;
  if constexpr (sfu::config::kRowCacheStats) {
    h = __atomic_load_n(&g_row_cache_hits, __ATOMIC_RELAXED);
    m = __atomic_load_n(&g_row_cache_misses, __ATOMIC_RELAXED);
  }
  if (hits) *hits = h;
  if (misses) *misses = m;
  return sfu::config::kRowCacheStats;
}

namespace sfu::unwind {

uint64_t next_registration_serial() {
  uint64_t last = __atomic_load_n(&g_last_serial, __ATOMIC_RELAXED);
  uint64_t next;
  do next = last + 1 == 0 ? 1 : last + 1;
  while (!compare_and_swap(&g_last_serial, last, next));
  return next;
}

#ifdef SFU_HOSTED
void set_last_registration_serial(uint64_t serial) { __atomic_store_n(&g_last_serial, serial, __ATOMIC_RELAXED); }
#endif

}  // namespace sfu::unwind
