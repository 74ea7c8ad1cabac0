// The --image arguments of `sfu crash`, `minidump` and `stackwalk`: each ELF (or ELF@ADDRESS,
// cli.h) loaded as a crash image, its build-id read and, with `lines`, its DWARF.
#pragma once

#include <vector>

#include "tools/commands/cli.h"
#include "tools/crash/report.h"

namespace sfu::tools::cli {

// Loads every --image of `o` into `out`. False with the status to exit with: usage (none given, or
// a malformed ELF@ADDRESS) or a refused image, its message printed.
bool load_crash_images(const Command &self, const Options &o, bool lines, std::vector<crash::CrashImage> &out,
                       int &status);

}  // namespace sfu::tools::cli
