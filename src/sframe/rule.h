// Building, comparing and packing rules (struct sfu_rule, struct sfu_row): for the decoder, which
// makes them, the host tools, which write and compare them, and the row cache and the block index,
// which keep a row's rules as the three words a walk copies.
#pragma once

#include <stdint.h>

#include "sframe/bytes.h"
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

// A rule in one word: the struct's own bytes (kind, register, offset), the row's flags in its
// padding byte (kept in the CFA's word), so a copy of a row's rules is three loads and stores.
// The word is put together by shifts in the CPU's byte order, not copied through a byte array:
// on arm64 (-mstrict-align) such a copy is a memcpy call where the compiler does not inline it
// (-Os, registration).
static_assert(sizeof(sfu_rule) == 8 && __builtin_offsetof(sfu_rule, offset) == 4, "a rule is one word");
static_assert(SFU_ROW_PCMASK <= 0xff, "row flags must fit the byte they are packed in");
// Where byte i of the struct lies in the word.
constexpr unsigned rule_byte_shift(unsigned i) { return kNativeBigEndian ? 56 - 8 * i : 8 * i; }
constexpr unsigned kRuleFlagsByte = 2;
inline uint64_t pack_rule(const sfu_rule &r, uint32_t flags) {
  return uint64_t(r.kind) << rule_byte_shift(0) | uint64_t(r.reg) << rule_byte_shift(1) |
         uint64_t(uint8_t(flags)) << rule_byte_shift(kRuleFlagsByte) |
         uint64_t(uint32_t(r.offset)) << (kNativeBigEndian ? 0 : 32);
}
inline void unpack_rule(uint64_t w, sfu_rule &r) { __builtin_memcpy(&r, &w, 8); }
inline uint32_t unpack_flags(uint64_t w) { return uint8_t(w >> rule_byte_shift(kRuleFlagsByte)); }
// The rules and flags of a row from its three words (CFA with the flags, RA, FP); nothing else of
// *row is written.
inline void unpack_rules(uint64_t cfa, uint64_t ra, uint64_t fp, sfu_row &row) {
  unpack_rule(cfa, row.cfa);
  unpack_rule(ra, row.ra);
  unpack_rule(fp, row.fp);
  row.flags = unpack_flags(cfa);
}

}  // namespace sfu::sframe
