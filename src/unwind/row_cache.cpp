// The row cache: direct-mapped, in .bss, shared by every CPU and interrupt level without locks.
// Each entry is a sequence lock of one writer at a time: the writer makes the count odd with a
// compare-and-swap (a writer that finds it odd, or loses the swap, caches nothing), stores, and
// makes it even again; a reader copies the entry and uses the copy only if the count was even
// and unchanged around it. An NMI that walks while the code it interrupted fills an entry sees
// the count odd and searches the table instead. The key is the lookup PC and the registration's
// serial: an unregistered module's rows are never served again, even if its memory is reused.
#include "unwind/row_cache.h"

#include "atomic.h"
#include "config.h"

namespace sfu::unwind {
namespace {

constexpr uint32_t kEntries = config::kRowCacheEntries;

struct Entry {
  uint32_t seq;     // odd while being written
  uint32_t serial;  // the registration the row came from; 0: empty
  uint64_t pc;
  uint64_t rule[3];  // CFA, RA, FP, packed (pack below)
};

Entry g_entries[kEntries ? kEntries : 1];  // zeroed: every entry empty
uint32_t g_last_serial;

// A rule in one word: kind, register, the row's flags (kept in the CFA's word) and the offset.
static_assert(SFU_ROW_PCMASK <= 0xff, "row flags must fit the byte they are cached in");
uint64_t pack(const sfu_rule &r, uint32_t flags) {
  return uint64_t(r.kind) | uint64_t(r.reg) << 8 | uint64_t(flags & 0xff) << 16 | uint64_t(uint32_t(r.offset)) << 32;
}
sfu_rule unpack(uint64_t w) {
  sfu_rule r{};
  r.kind = uint8_t(w);
  r.reg = uint8_t(w >> 8);
  r.offset = int32_t(uint32_t(w >> 32));
  return r;
}

Entry &entry_for(uint64_t pc) {
  // Fibonacci hashing: the top bits of the product mix every bit of the PC.
  constexpr int kShift = 64 - __builtin_ctz(kEntries ? kEntries : 1);
  return g_entries[kEntries > 1 ? (pc * 0x9e3779b97f4a7c15ull) >> kShift : 0];
}

bool cached(const Entry &e, uint32_t serial, uint64_t pc, sfu_row &row) {
  uint32_t seq = __atomic_load_n(&e.seq, __ATOMIC_ACQUIRE);
  if (seq & 1) return false;
  uint32_t s = __atomic_load_n(&e.serial, __ATOMIC_RELAXED);
  uint64_t p = __atomic_load_n(&e.pc, __ATOMIC_RELAXED);
  uint64_t w[3] = {__atomic_load_n(&e.rule[0], __ATOMIC_RELAXED), __atomic_load_n(&e.rule[1], __ATOMIC_RELAXED),
                   __atomic_load_n(&e.rule[2], __ATOMIC_RELAXED)};
  __atomic_thread_fence(__ATOMIC_ACQUIRE);
  if (__atomic_load_n(&e.seq, __ATOMIC_RELAXED) != seq || s != serial || p != pc) return false;
  row.cfa = unpack(w[0]);
  row.ra = unpack(w[1]);
  row.fp = unpack(w[2]);
  row.flags = uint32_t(w[0] >> 16) & 0xff;
  return true;
}

void remember(Entry &e, uint32_t serial, uint64_t pc, const sfu_row &row) {
  uint32_t seq = __atomic_load_n(&e.seq, __ATOMIC_RELAXED);
  if ((seq & 1) || !compare_and_swap(&e.seq, seq, seq + 1)) return;
  __atomic_thread_fence(__ATOMIC_RELEASE);  // the odd count is seen before any new field
  __atomic_store_n(&e.serial, serial, __ATOMIC_RELAXED);
  __atomic_store_n(&e.pc, pc, __ATOMIC_RELAXED);
  __atomic_store_n(&e.rule[0], pack(row.cfa, row.flags), __ATOMIC_RELAXED);
  __atomic_store_n(&e.rule[1], pack(row.ra, 0), __ATOMIC_RELAXED);
  __atomic_store_n(&e.rule[2], pack(row.fp, 0), __ATOMIC_RELAXED);
  __atomic_store_n(&e.seq, seq + 2, __ATOMIC_RELEASE);
}

}  // namespace

bool cached_row(const sfu_module &m, uint64_t pc, sfu_row &row) {
  return kEntries != 0 && m.serial != 0 && cached(entry_for(pc), m.serial, pc, row);
}

void remember_row(const sfu_module &m, uint64_t pc, const sfu_row &row) {
  if (kEntries != 0 && m.serial != 0) remember(entry_for(pc), m.serial, pc, row);
}

uint32_t next_registration_serial() {
  uint32_t last = __atomic_load_n(&g_last_serial, __ATOMIC_RELAXED);
  uint32_t next;
  do next = last + 1 == 0 ? 1 : last + 1;
  while (!compare_and_swap(&g_last_serial, last, next));
  return next;
}

}  // namespace sfu::unwind
