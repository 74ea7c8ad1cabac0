// The rule sets of STACK CFI records ("NAME: EXPRESSION ..."), read and applied as Breakpad's
// processor does (src/processor/cfi_frame_info.cc): the rules in force at an address are the
// STACK CFI INIT record's, then each later STACK CFI record's up to that address, a later rule
// for a name replacing the earlier one. Applying them gives the caller's registers from the
// callee's.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "tools/breakpad/postfix.h"

namespace sfu::tools::breakpad {

struct CfiRules {
  std::string cfa, ra;                          // ".cfa" and ".ra" rules ("" when none yet)
  std::map<std::string, std::string> registers;  // every other name's rule, by name
};

// Adds the rules of `text` to `rules` (the text of one STACK CFI INIT or STACK CFI record after
// its addresses). Names are tokens ending in ':' (at least one character before it); the tokens
// up to the next name, joined by single spaces, are that name's expression. Breakpad's parser
// stops at the first bad rule (expression tokens before any name, a name without an expression,
// a bare ":"), keeping the rules before it: so does this one, and returns false with `why`.
bool parse_cfi_rules(const std::string &text, CfiRules &rules, std::string *why = nullptr);

// The caller's registers, from the callee's (`callee`: the valid ones, by their .sym names) and
// the rules: false unless both .cfa and .ra evaluate. .cfa is evaluated first and then known to
// the others as ".cfa"; every register rule that evaluates gives a value (one that does not is
// left out, as Breakpad does); `caller` also gets ".cfa" and ".ra". Each expression sees the
// callee's values, never another rule's result.
bool cfi_caller_registers(const CfiRules &rules, const Values &callee, const Memory &memory, Values &caller,
                          std::string *why = nullptr);

}  // namespace sfu::tools::breakpad
