// An image's GNU build-id, as the device finds it in the note its linker fragments keep: what
// crash records and backtrace module lines name an image by.
#pragma once

#include <cstdint>
#include <vector>

#include "tools/elf/elf_file.h"

namespace sfu::tools {

// The build-id from .note.gnu.build-id, else from any note section that holds one (read with the
// core's own note reader). False when the image has none.
bool read_build_id(const ElfImage &elf, std::vector<uint8_t> &out);

}  // namespace sfu::tools
