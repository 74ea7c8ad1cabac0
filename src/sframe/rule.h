// Building and comparing rules (struct sfu_rule, struct sfu_row): for the decoder, which makes
// them, and the host tools, which write and compare them.
#pragma once

#include <stdint.h>

#include "sfu/sframe.h"

namespace sfu::sframe {

inline sfu_rule make_rule(sfu_rule_kind kind, uint32_t reg, int64_t offset) {
  sfu_rule r{};
  r.kind = uint8_t(kind);
  r.reg = uint8_t(reg);
  r.offset = int32_t(offset);
  return r;
}

// The same rule as a walk applies it: the register counts only for the register kinds, the
// offset not for UNCHANGED and UNDEFINED.
inline bool same_rule(const sfu_rule &a, const sfu_rule &b) {
  if (a.kind != b.kind) return false;
  bool has_reg = a.kind == SFU_RULE_REGISTER || a.kind == SFU_RULE_AT_REGISTER;
  bool has_offset = a.kind != SFU_RULE_UNCHANGED && a.kind != SFU_RULE_UNDEFINED;
  return (!has_reg || a.reg == b.reg) && (!has_offset || a.offset == b.offset);
}

// The same CFA, RA and FP rules and the flags that change what a walk does (not how the row
// was encoded: FLEX, PCMASK).
inline bool same_rules(const sfu_row &a, const sfu_row &b) {
  constexpr uint32_t kMeaning = SFU_ROW_RA_SIGNED | SFU_ROW_OUTERMOST | SFU_ROW_SIGNAL_FRAME | SFU_ROW_PAUTH_KEY_B;
  return same_rule(a.cfa, b.cfa) && same_rule(a.ra, b.ra) && same_rule(a.fp, b.fp) &&
         (a.flags & kMeaning) == (b.flags & kMeaning);
}

}  // namespace sfu::sframe
