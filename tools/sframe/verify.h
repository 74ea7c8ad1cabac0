// `sfu verify`: an image's .sframe rules checked against its DWARF CFI, whoever wrote the table.
// Deliberately not built on the generator's row translation: it reads the table back through the
// decoder and asks, range by range, whether each SFrame rule says what the CFI rule says. It
// shares with the generator the CFI reader (rows, cfi::simple_expression) and one ABI fact
// (sp_follows_cfa); a fault in those would be in both.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/dwarf/cfi.h"
#include "tools/sframe/rows.h"

namespace sfu::tools {

struct Mismatch {
  uint64_t address = 0;     // start of the range
  std::string sframe, cfi;  // both sides' rules, as text
};

struct VerifyReport {
  size_t functions = 0;    // functions with CFI
  size_t ranges = 0;           // ranges compared (every address where either side changes)
  size_t pcmask_addresses = 0;  // of those, addresses inside PLT-like (PCMASK) SFrame functions:
                                // every one is compared, the CFI's CFA expression evaluated there
  std::vector<Mismatch> mismatches;
  std::vector<uint64_t> not_covered;  // CFI function starts with no SFrame function
};

// Compares every CFI function with the SFrame rows of the same addresses.
void verify_rows(const std::vector<cfi::Fde> &fdes, const std::vector<SframeFunction> &sframe,
                 uint8_t abi, VerifyReport &out);

// Does SFrame rule `s` for register `reg` say what the CFI rule `c` (nullptr: no rule) says?
bool rule_agrees(const sfu_rule &s, const cfi::RegRule *c, uint32_t reg);
bool cfa_agrees(const sfu_rule &s, const cfi::CfaRule &c);

}  // namespace sfu::tools
