// sfu_crash_take after its read of the state word: the checks, then one compare-and-swap from
// `seen`. Apart so that tests can make the state change between the read and the swap, as a
// capture on another CPU would.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "sfu/crash.h"

namespace sfu::crash {

sfu_error take_as_seen(sfu_crash_view &view, void *area, size_t size, uint32_t seen);

}  // namespace sfu::crash
