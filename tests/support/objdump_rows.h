// Test helper: reads the functions and rows out of `objdump --sframe` text and turns each row
// into the rules it states, so decoded rows can be compared with what binutils printed.
#pragma once

#include <stdint.h>

#include <string>
#include <vector>

#include "sfu/sframe.h"

namespace sfu::test {

struct ObjdumpRow {
  uint64_t address;  // absolute, or the offset inside the block for PCMASK functions
  std::string cfa, fp, ra;  // column texts, "[s]" stripped from ra
  bool ra_signed = false;
  bool ra_undefined = false;
};

struct ObjdumpFunction {
  uint64_t pc;
  uint32_t size;
  std::string attrs;  // "", "S", "F", "SF"
  bool pauth_key_b = false;
  bool pcmask = false;
  std::vector<ObjdumpRow> rows;
};

// Parses every "func idx" block of the text.
std::vector<ObjdumpFunction> parse_objdump_functions(const std::string &text);

// The rules a row's columns state, for a table of this ABI and fixed RA/FP offsets. Where the
// text cannot tell two rules apart (flex "c+16": value or slot) `alt` holds the other reading.
struct ExpectedRule {
  sfu_rule rule;
  bool has_alt = false;
  sfu_rule alt;
};
struct ExpectedRow {
  ExpectedRule cfa, ra, fp;
  bool outermost = false;
  bool ra_signed = false;
};
ExpectedRow expected_rules(const ObjdumpRow &row, uint8_t abi, int8_t fixed_ra, int8_t fixed_fp);

bool rule_matches(const ExpectedRule &want, const sfu_rule &got);
std::string describe(const sfu_rule &r);

}  // namespace sfu::test
