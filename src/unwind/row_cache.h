// The per-PC row cache (CONFIG_SFU_ROW_CACHE): the row a walk used for a lookup PC, kept so the
// next walk through that PC skips the function search and the row scan.
#pragma once

#include <stdint.h>

#include "sfu/unwind.h"

namespace sfu::unwind {

// The row of registered module `m` that covers pc, as sfu_table_find finds it, from the cache
// when it holds one for this registration of m. Only what a walk uses is filled: the rules and
// the flags. Errors are not cached.
sfu_error find_row(const sfu_module &m, uint64_t pc, sfu_row &row);

// A number for a new registration (never 0, which marks an empty cache entry).
uint32_t next_registration_serial();

}  // namespace sfu::unwind
