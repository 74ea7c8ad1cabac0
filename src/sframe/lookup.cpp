// sfu_table_find: PC -> function -> row. Bounded: a binary search over the sorted functions of
// one index block (of the whole table without an index), or a linear scan of an unsorted table
// (at most CONFIG_SFU_MAX_UNSORTED_FDES functions: open refuses more); then one pass over the
// function's rows (at most CONFIG_SFU_MAX_FUNCTION_ROWS), reading only each row's start and info
// byte; only the row that applies is decoded in full.
#include "call_levels.h"
#include "config.h"
#include "search.h"
#include "sframe/index.h"
#include "sframe/table.h"

namespace sfu::sframe {
namespace {

bool covers(uint64_t start, uint32_t size, uint64_t pc) { return pc >= start && pc - start < size; }

// The size field of FDE `index` (open checked the FDE array fits).
uint32_t fde_size_field(const sfu_table &t, uint32_t index) {
  uint32_t at = t.fdes_at + index * t.fde_size + (t.version == kVersion3 ? 8 : 4);
  return uint32_t(load_field<4>(t.sec + at, table_big_endian(t)));
}

// The index of the function covering pc, or -1. Not inlined on s390x (call_levels.h), nor is the
// row scan: both are leaves that need no frame there, and sfu_table_find, left holding only the
// Fde and Fre across its calls, spills nothing (its frame is on a step's deepest call chain).
SFU_S390X_LEAF int64_t find_fde_index(const sfu_table &t, uint64_t pc) {
  uint32_t first = 0, end = t.num_fdes;
  if (t.flags & SFU_F_FDE_SORTED) {
    // Last FDE whose start is <= pc: among all of them, or only those the block index leaves.
    uint32_t lo = 0, hi = t.num_fdes;
    // Without CONFIG_SFU_BLOCK_INDEX registration builds none, and an index a kernel built itself
    // only narrows the search to the function the whole search finds: not read, not linked.
    const uint8_t *index = config::kBlockIndex ? __atomic_load_n(&t.index, __ATOMIC_ACQUIRE) : nullptr;
    if (index) {
      uint64_t b = (pc - t.text_start) / SFU_INDEX_BLOCK;  // the caller checked pc is in the text
      if (b + 1 < t.index_entries) {
        uint32_t here = index_first_fde(index, b), next = index_first_fde(index, b + 1);
        hi = next < t.num_fdes ? next : t.num_fdes;
        lo = here < hi ? here : hi;
      }
    }
    uint32_t n = lo + count_starting_at_or_before(hi - lo, pc, [&](uint32_t i) { return fde_start(t, lo + i); });
    if (n == 0) return -1;
    first = n - 1;  // the one function that may cover pc
    end = n;
  }
  // An unsorted table's functions in turn; a sorted one's candidate. One copy of the check.
  for (uint32_t i = first; i < end; i++)
    if (covers(fde_start(t, i), fde_size_field(t, i), pc)) return i;
  return -1;
}

// The offset rows are matched against: from the function start, or inside the repeating block.
uint32_t row_key(const sfu_table &t, const Fde &f, uint64_t pc) {
  uint64_t off = pc - f.start;
  if (!f.pcmask()) return uint32_t(off);
  if (is_v1(t.version)) return uint32_t(off & kV1PcmaskMask);
  return f.rep_size ? uint32_t(off % f.rep_size) : 0;
}

// The section offset of the last row of function f starting at or before pc, 0 for none (no row
// starts at section offset 0: the header is there), or the error negated. Each row's start (1, 2
// or 4 bytes, by the function's row type) and info byte are read, nothing else; a row running
// past the FRE data, or with an invalid word size, ends the scan with the error a full read would
// give. One loop for the three start sizes: with the row cache a scan runs only on a miss, so
// code counts more than the choice of load per row.
SFU_S390X_LEAF int64_t scan_rows(const sfu_table &t, const Fde &f, uint64_t pc) {
  const uint32_t key = row_key(t, f, pc);
  const bool big = table_big_endian(t);
  const uint32_t addr = fre_addr_size(f.fre_type());  // the caller checked the type
  uint32_t at = f.fres_at, best = 0;
  for (uint32_t j = 0; j < f.num_fres; j++) {
    if (!fre_head_fits(t, at, addr)) return -SFU_E_FRE_OUT_OF_BOUNDS;
    const uint8_t *q = t.sec + at;
    uint32_t start = load_width(q, addr, big);
    if (start > key) break;
    uint8_t info = q[addr];
    uint8_t code = fre_word_size_code(info);
    if (code == kWordSizeInvalid) return -SFU_E_BAD_OFFSET_SIZE;
    best = at;
    at += addr + 1 + (uint32_t(fre_word_count(info)) << code);
  }
  return best;
}

}  // namespace

// Only where the walk uses it (row_cache.h): elsewhere it would keep find_fde_index from being
// folded into sfu_table_find (a call level more on a step's deepest chain).
#if defined(CONFIG_SFU_OPTIMIZE_SIZE) && defined(CONFIG_SFU_VALIDATE_ON_REGISTER)
sfu_error find_validated(const sfu_table &t, uint64_t pc, sfu_row &row) {
  int64_t i = find_fde_index(t, pc);
  if (i < 0) return SFU_E_NO_FUNCTION;
  // Validation read this function and every row of it without an error: none is checked again.
  Fde fde;
  (void)read_fde(t, uint32_t(i), fde);
  const uint32_t key = row_key(t, fde, pc);
  Fre fre;
  uint32_t at = fde.fres_at, best = 0;  // no row starts at section offset 0: the header is there
  for (uint32_t j = 0; j < fde.num_fres; j++, at = fre.end) {
    (void)read_fre(t, fde, at, fre);
    if (fre.start > key) break;
    best = at;
  }
  if (!best) return SFU_E_NO_ROW;
  (void)read_fre(t, fde, best, fre);
  return decode_fre(t, fde, fre, row);
}
#endif

}  // namespace sfu::sframe

using namespace sfu::sframe;

extern "C" enum sfu_error sfu_table_find(const struct sfu_table *table, uint64_t pc,
                                         struct sfu_row *row) {
  if (!table || !row) return SFU_E_NULL_ARGUMENT;
  if (!table->ready) return SFU_E_NOT_INITIALIZED;
  const sfu_table &t = *table;
  if (t.text_end != 0 && (pc < t.text_start || pc >= t.text_end)) return SFU_E_NO_FUNCTION;
  int64_t i = find_fde_index(t, pc);
  if (i < 0) return SFU_E_NO_FUNCTION;
  Fde fde;
  if (sfu_error e = read_fde(t, uint32_t(i), fde)) return e;
  // Validation refused such a function already; a table only opened is bounded here.
  if (fde.num_fres > sfu::config::kMaxFunctionRows) return SFU_E_TOO_MANY_ROWS;
  if (fde.fre_type() > kFreTypeAddr4) return SFU_E_BAD_FRE_TYPE;
  int64_t best = scan_rows(t, fde, pc);
  if (best < 0) return sfu_error(-best);
  if (!best) return SFU_E_NO_ROW;
  Fre fre;
  if (sfu_error e = read_fre(t, fde, uint32_t(best), fre)) return e;
  return row_from_fre(t, fde, fre, *row);
}
