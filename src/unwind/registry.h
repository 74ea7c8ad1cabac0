// The registry's slots, for readers inside the core that need every registered module rather than
// the one holding a PC (crash records list them all). Lock-free, as sfu_module_for_pc.
#pragma once

#include "config.h"
#include "sfu/unwind.h"

namespace sfu::unwind {

inline constexpr unsigned kModuleSlots = CONFIG_SFU_MAX_MODULES;

// The module published in slot i (0 <= i < kModuleSlots), or nullptr: an empty slot, or i out of
// range. An acquire load, so the module's fields are seen as registration wrote them.
const sfu_module *module_in_slot(unsigned i);

}  // namespace sfu::unwind
