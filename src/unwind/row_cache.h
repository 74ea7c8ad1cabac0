// The per-PC row cache (CONFIG_SFU_ROW_CACHE): the row a walk used for a lookup PC, kept so the
// next walk through that PC skips the function search and the row scan.
#pragma once

#include <stdint.h>

#include "sfu/unwind.h"

namespace sfu::unwind {

// Whether the cache holds the row of this registration of module `m` for pc; if so, fills the
// rules and the flags of *row (what a walk uses), nothing else.
bool cached_row(const sfu_module &m, uint64_t pc, sfu_row &row);

// Keeps the row sfu_table_find gave for pc, unless another CPU or an interrupted fill holds the
// entry.
void remember_row(const sfu_module &m, uint64_t pc, const sfu_row &row);

// The row of registered module `m` that covers pc, as sfu_table_find finds it: from the cache,
// or searched and kept. Errors are not cached. Inline, so that a walk's deepest call chain is
// the search's alone.
inline sfu_error find_row(const sfu_module &m, uint64_t pc, sfu_row &row) {
  if (cached_row(m, pc, row)) return SFU_OK;
  sfu_error e = sfu_table_find(&m.table, pc, &row);
  if (e == SFU_OK) remember_row(m, pc, row);
  return e;
}

// A number for a new registration (never 0, which marks an empty cache entry).
uint32_t next_registration_serial();

}  // namespace sfu::unwind
