// `sfu diff`: two SFrame tables of the same code compared row by row (say gas's and `sfu gen`'s):
// equal when every address both describe gets the same rules, whatever the encoding.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/sframe/rows.h"

namespace sfu::tools {

struct RowDifference {
  uint64_t address = 0;
  std::string first, second;  // each side's row as text
};

struct DiffReport {
  size_t functions = 0;  // functions in both tables
  size_t ranges = 0;     // ranges compared
  std::vector<RowDifference> differences;
  std::vector<uint64_t> only_first, only_second;  // function starts described by one side only
  std::vector<uint64_t> skipped;  // in both, PLT-like (PCMASK) in either: not compared
};

void diff_tables(const std::vector<SframeFunction> &first, const std::vector<SframeFunction> &second,
                 DiffReport &out);

}  // namespace sfu::tools
