// sfu_table_find: PC -> function -> row. Bounded: a binary search over sorted FDEs (a linear
// scan of at most num_fdes entries otherwise), then one pass over the function's rows.
#include "search.h"
#include "sframe/table.h"

namespace sfu::sframe {
namespace {

bool covers(const Fde &f, uint64_t pc) { return pc >= f.start && pc - f.start < f.size; }

sfu_error find_fde(const sfu_table &t, uint64_t pc, Fde &out) {
  if (t.flags & SFU_F_FDE_SORTED) {
    // Last FDE whose start is <= pc.
    uint32_t lo = count_starting_at_or_before(t.num_fdes, pc, [&](uint32_t i) { return fde_start(t, i); });
    if (lo == 0) return SFU_E_NO_FUNCTION;
    if (sfu_error e = read_fde(t, lo - 1, out)) return e;
    return covers(out, pc) ? SFU_OK : SFU_E_NO_FUNCTION;
  }
  for (uint32_t i = 0; i < t.num_fdes; i++) {
    if (sfu_error e = read_fde(t, i, out)) return e;
    if (covers(out, pc)) return SFU_OK;
  }
  return SFU_E_NO_FUNCTION;
}

// The offset rows are matched against: from the function start, or inside the repeating block.
uint32_t row_key(const sfu_table &t, const Fde &f, uint64_t pc) {
  uint64_t off = pc - f.start;
  if (!f.pcmask()) return uint32_t(off);
  if (t.version == kVersion1) return uint32_t(off & kV1PcmaskMask);
  return f.rep_size ? uint32_t(off % f.rep_size) : 0;
}

}  // namespace
}  // namespace sfu::sframe

using namespace sfu::sframe;

extern "C" enum sfu_error sfu_table_find(const struct sfu_table *table, uint64_t pc,
                                         struct sfu_row *row) {
  if (!table || !row) return SFU_E_NULL_ARGUMENT;
  if (!table->ready) return SFU_E_NOT_INITIALIZED;
  const sfu_table &t = *table;
  if (t.text_end != 0 && (pc < t.text_start || pc >= t.text_end)) return SFU_E_NO_FUNCTION;
  Fde fde;
  if (sfu_error e = find_fde(t, pc, fde)) return e;
  uint32_t key = row_key(t, fde, pc);
  // The row is the last one starting at or before the key. Rows rise (validated); on a table
  // registered without validation this still reads only inside the FRE sub-section. Two
  // buffers take turns, so the scan copies no row.
  Fre bufs[2];
  Fre *next = &bufs[0], *best = nullptr;
  uint32_t at = fde.fres_at;
  for (uint32_t j = 0; j < fde.num_fres; j++) {
    if (sfu_error e = read_fre(t, fde, at, *next)) return e;
    if (next->start > key) break;
    at = next->end;
    Fre *read = next;
    next = best ? best : &bufs[1];
    best = read;
  }
  if (!best) return SFU_E_NO_ROW;
  return row_from_fre(t, fde, *best, *row);
}
