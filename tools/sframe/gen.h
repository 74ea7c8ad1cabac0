// `sfu gen`: SFrame rows from DWARF CFI. For every function with CFI, the CFA, RA and FP rules
// of each address range in the decoder's terms (sfu_row), written by the SFrame writer. A
// function with any range SFrame cannot say is left out whole, with the reason: never a wrong row.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/dwarf/cfi.h"
#include "tools/sframe/encode.h"

namespace sfu::tools {

struct LeftOut {
  uint64_t start = 0, end = 0;
  uint64_t at = 0;     // the first address whose rules could not be said
  std::string reason;  // "CFA based on r10 needs V3", "overlaps another function", ...
};

struct Generated {
  std::vector<EncodeFunction> functions;  // sorted by start, equal consecutive rows merged
  std::vector<LeftOut> left_out;
  size_t rows() const;
};

// Converts every FDE (sorted by start, as read_image_cfi returns them) for `opt` (version, abi).
// Given the FDEs to use up, it lets each FDE's rows go once converted, so the CFI rows and the
// SFrame rows are not both held whole (the FDEs are left without rows).
void generate_rows(const std::vector<cfi::Fde> &fdes, const EncodeOptions &opt, Generated &out);
void generate_rows(std::vector<cfi::Fde> &&fdes, const EncodeOptions &opt, Generated &out);

}  // namespace sfu::tools
