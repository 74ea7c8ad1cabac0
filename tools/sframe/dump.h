// `sfu dump` text: a validated SFrame table printed exactly as binutils 2.46
// `objdump --sframe` prints it, from "Contents of the SFrame section .sframe:" on.
#pragma once

#include <string>

#include "sfu/sframe.h"

namespace sfu::tools {

// Appends the dump of `table` (opened and fully validated: sfu_table_open, then
// sfu_table_validate) to `out`. Version 1
// tables, which 2.46 refuses, are printed in the same format as versions 2 and 3.
sfu_error dump_table(const sfu_table &table, std::string &out);

}  // namespace sfu::tools
