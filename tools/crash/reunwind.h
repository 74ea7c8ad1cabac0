// Walking a crash record's stack again on the host: the core's own walker (the host build reads
// every architecture), over the images' SFrame tables, from the record's registers, reading
// memory only from the record's stack windows, and how that walk compares with the device's.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sfu/crash.h"

namespace sfu::tools::crash {

// The SFrame table of one record module, as its image gives it.
struct ModuleTable {
  std::vector<uint8_t> section;
  uint64_t section_addr = 0;
};

struct Reunwound {
  std::vector<sfu_frame> frames;  // module pointers are meaningless once it returns
  sfu_stop stop = SFU_STOP_NONE;
  std::vector<std::string> differences;  // "frame 3: ..." : the walks disagree
  std::vector<std::string> notes;        // where the host could not follow (windows ended, ...)
  std::string error;                     // a table the core refused: nothing was walked
};

// Registers tables[i] for record module i (nullptr: none) with the module's recorded text range
// and the table where it ran (its link address + biases[i]: tables and code at link addresses,
// stack words at run-time ones), walks with the record's walk settings over its windows,
// unregisters, and compares with the record's frames. False (with out.error) when a table is
// refused.
bool reunwind(const sfu_crash_view &view, const std::vector<const ModuleTable *> &tables,
              const std::vector<uint64_t> &biases, Reunwound &out);

// What sfu_hook_read_nofault serves while reunwind runs: bytes of the record's windows only
// (0 on success, -1 for anything else). The command defines the hook with this; the unit tests'
// hook serves their fake memory instead.
int read_window_memory(void *dst, uint64_t src, size_t len);

}  // namespace sfu::tools::crash
