// What a result may be, for tests that throw damaged tables at the decoder (the corruption
// tests and the fuzzer share this so the two cannot drift apart).
#pragma once

#include <string.h>

#include "sframe/format.h"
#include "sfu/sframe.h"

namespace sfu::test {

// SFU_OK, or an error with a real name.
inline bool is_named(sfu_error e) {
  const char *name = sfu_error_name(e);
  if (e == SFU_OK) return strcmp(name, "ok") == 0;
  return strcmp(name, "unknown-error") != 0 && strcmp(name, "ok") != 0;
}

// A lookup reports on the function and row it reads, never on the header or the whole table:
// open and validate settled those. (The FDE info checks are validation's: a lookup only reads
// the fields it needs, within bounds.)
inline bool is_lookup_error(sfu_error e) {
  switch (e) {
    case SFU_E_NO_FUNCTION:
    case SFU_E_NO_ROW:
    case SFU_E_ATTR_OUT_OF_BOUNDS:
    case SFU_E_BAD_FRE_TYPE:
    case SFU_E_FRE_OUT_OF_BOUNDS:
    case SFU_E_BAD_OFFSET_SIZE:
    case SFU_E_BAD_WORD_COUNT:
    case SFU_E_BAD_FLEX_RULE:
    case SFU_E_BAD_REGISTER:
    case SFU_E_CFA_OFFSET_RANGE:
    case SFU_E_TOO_MANY_ROWS:  // a table only opened: the function's row count, read at lookup
      return true;
    default:
      return false;
  }
}

// What every SFU_OK row must satisfy, validated table or not: nullptr when sane, else why not.
inline const char *row_problem(const sfu_table &t, uint64_t pc, const sfu_row &r) {
  // The function found covers the PC (PCMASK functions too: the block repeats inside it).
  if (pc < r.func_start || pc - r.func_start >= r.func_size) return "function does not cover pc";
  // The row starts at or before the PC (for PCMASK, inside the block, so before it as well).
  if (r.row_start > pc - r.func_start) return "row starts after pc";
  for (const sfu_rule *rule : {&r.cfa, &r.ra, &r.fp})
    if (rule->kind > SFU_RULE_AT_REGISTER) return "rule kind out of range";
  constexpr uint32_t kKnownFlags = SFU_ROW_RA_SIGNED | SFU_ROW_SIGNAL_FRAME | SFU_ROW_OUTERMOST |
                                   SFU_ROW_PAUTH_KEY_B | SFU_ROW_FLEX | SFU_ROW_PCMASK;
  if (r.flags & ~kKnownFlags) return "unknown row flag";
  bool outermost = r.flags & SFU_ROW_OUTERMOST;
  if (outermost != (r.ra.kind == SFU_RULE_UNDEFINED)) return "RA undefined iff outermost broken";
  if (outermost && r.cfa.kind != SFU_RULE_UNDEFINED) return "outermost row with a CFA rule";
  if (!outermost && r.cfa.kind != SFU_RULE_REGISTER && r.cfa.kind != SFU_RULE_AT_REGISTER)
    return "CFA rule not register-based";
  if (r.fp.kind == SFU_RULE_UNDEFINED) return "FP rule undefined";
  if ((r.flags & (SFU_ROW_SIGNAL_FRAME | SFU_ROW_FLEX)) && t.version != 3) return "V3 flag in V1/V2 row";
  if ((r.flags & SFU_ROW_PAUTH_KEY_B) && !sframe::abi_aarch64(t.abi)) return "B key outside AArch64";
  if ((r.flags & SFU_ROW_PCMASK) && t.version == 1 && r.row_start > 0xff) return "V1 PCMASK row past mask";
  return nullptr;
}

// Field by field, exactly (the structs have padding): the same lookup twice must give the
// identical row, not just an equivalent one (sframe/rule.h's same_rules compares meaning).
inline bool same_rule_exactly(const sfu_rule &a, const sfu_rule &b) {
  return a.kind == b.kind && a.reg == b.reg && a.offset == b.offset;
}
inline bool same_row_exactly(const sfu_row &a, const sfu_row &b) {
  return a.func_start == b.func_start && a.func_size == b.func_size && a.row_start == b.row_start &&
         a.flags == b.flags && same_rule_exactly(a.cfa, b.cfa) && same_rule_exactly(a.ra, b.ra) &&
         same_rule_exactly(a.fp, b.fp);
}

}  // namespace sfu::test
