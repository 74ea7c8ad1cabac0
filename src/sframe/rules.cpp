// What a frame row entry means: its data words turned into CFA, RA and FP rules, by each ABI's
// reading of the default form and by the V3 flexible form. The only place that interprets words.
#include "sframe/rule.h"
#include "sframe/table.h"

namespace sfu::sframe {
namespace {

// Where RA and FP are when a row says nothing about them: the header's fixed offsets, if any,
// else still in their registers. Only AMD64 has a fixed RA offset (open refuses one elsewhere),
// so another ABI's target build loads none.
sfu_rule default_ra(const sfu_table &t) {
  return abi_amd64(t.abi) && t.fixed_ra_offset ? make_rule(SFU_RULE_AT_CFA, 0, t.fixed_ra_offset)
                                               : make_rule(SFU_RULE_UNCHANGED, 0, 0);
}
sfu_rule default_fp(const sfu_table &t) {
  return t.fixed_fp_offset ? make_rule(SFU_RULE_AT_CFA, 0, t.fixed_fp_offset) : make_rule(SFU_RULE_UNCHANGED, 0, 0);
}

int64_t cfa_offset(const sfu_table &t, int32_t w) { return abi_s390x(t.abi) ? s390x_cfa_decode(w) : w; }

// s390x stores CFA offsets scaled down by 8; a 4-byte word can name one no int32 holds.
bool cfa_offset_fits(int64_t off) { return off >= INT32_MIN && off <= INT32_MAX; }

// V2 s390x keeps RA/FP of leaf functions in registers: an odd word is (regnum << 1) | 1.
bool s390x_v2_register(const sfu_table &t, int32_t w) {
  return abi_s390x(t.abi) && t.version == kVersion2 && s390x_v2_is_regnum(w);
}

// The helpers below are folded into decode_fre but where the core is built for size: so that in
// the default build it is a leaf, on the deepest call chain of a step (sfu_table_find's), which
// needs no frame of its own (on s390x each level costs a 160-byte save area).
#ifdef CONFIG_SFU_OPTIMIZE_SIZE
#define SFU_DECODE_HELPER
#else
#define SFU_DECODE_HELPER [[gnu::always_inline]] inline
#endif

// A flexible rule: [control, offset]. Base is a register (reg_p) or the CFA; deref_p loads.
// The control word checked first: no unused bit set, a register a rule can hold. The one place
// a rule is made from words (saved_at says a default row's RA and FP words in the same form), so
// the control is 64 bits: a V2 s390x register word may name one past a stored control's 29 bits.
SFU_DECODE_HELPER sfu_error flex_rule(uint64_t ctl, int64_t offset, sfu_rule &out) {
  if (flex_unused_bit(uint32_t(ctl))) return SFU_E_BAD_FLEX_RULE;
  const bool reg_p = flex_reg_p(uint32_t(ctl)), deref = flex_deref_p(uint32_t(ctl));
  if (reg_p && (ctl >> 3) > kMaxRegister) return SFU_E_BAD_REGISTER;
  const sfu_rule_kind kind = reg_p ? (deref ? SFU_RULE_AT_REGISTER : SFU_RULE_REGISTER)
                                   : (deref ? SFU_RULE_AT_CFA : SFU_RULE_CFA_PLUS);
  out = make_rule(kind, reg_p ? uint32_t(ctl >> 3) : 0, offset);
  return SFU_OK;
}

// Flexible rows: CFA [ctl, off], then RA [ctl, off] or one 0 word (no RA rule), then FP
// [ctl, off]. So the count is 2 to 6, odd exactly when the RA padding word is there.
bool flex_ra_padded(const Fre &f) { return f.count >= 3 && f.raw[2] == 0; }

// An RA or FP word of a default row: a register on V2 s390x (one a rule can hold), else a CFA
// offset.
SFU_DECODE_HELPER sfu_error saved_at(const sfu_table &t, int32_t w, sfu_rule &out) {
  if (!s390x_v2_register(t, w)) return flex_rule(make_flex_control(false, 0, true), w, out);
  return flex_rule(uint64_t(s390x_v2_regnum(w)) << 3 | 1, 0, out);
}

}  // namespace

// Each check comes where the word it checks is read, in the order the words are stored: the
// first error is the one a reader that checked the whole row before decoding it would name.
sfu_error decode_fre(const sfu_table &t, const Fde &fde, const Fre &f, sfu_row &row) {
  // The flags put together before any store to *row, which may alias what they come from.
  uint32_t flags = 0;
  if (fre_ra_signed(f.info)) flags |= SFU_ROW_RA_SIGNED;
  if (t.version == kVersion3 && fde_signal(fde.info)) flags |= SFU_ROW_SIGNAL_FRAME;
  if (abi_aarch64(t.abi) && fde_pauth_key_b(fde.info)) flags |= SFU_ROW_PAUTH_KEY_B;
  if (fde.flex()) flags |= SFU_ROW_FLEX;
  if (fde.pcmask()) flags |= SFU_ROW_PCMASK;
  row.func_start = fde.start;
  row.func_size = fde.size;
  row.row_start = f.start;
  row.flags = flags;
  // What a row says nothing of, set once for every form below that may not say.
  row.ra = default_ra(t);
  row.fp = default_fp(t);

  if (f.count == 0) {
    // No words: RA undefined, the outermost frame (V2 errata 2 and V3; V1 has no such row).
    if (is_v1(t.version)) return SFU_E_BAD_WORD_COUNT;
    row.flags |= SFU_ROW_OUTERMOST;
    row.cfa = make_rule(SFU_RULE_UNDEFINED, 0, 0);
    row.ra = make_rule(SFU_RULE_UNDEFINED, 0, 0);
    row.fp = make_rule(SFU_RULE_UNCHANGED, 0, 0);
    return SFU_OK;
  }

  // The words as offsets (flex control words are read as stored, f.raw): built for size,
  // sign-extended once into an array; else where each is used, in registers.
  int32_t words[kMaxWordsFlex];
  if constexpr (config::kForSize)
    for (uint32_t i = 0; i < f.count; i++) words[i] = f.word(i);
  auto w = [&](uint32_t i) { return config::kForSize ? words[i] : f.word(i); };

  const bool flex = fde.flex();
  bool padded = false;
  if (flex) {
    if (f.count < 2) return SFU_E_BAD_WORD_COUNT;
    padded = flex_ra_padded(f);
    if (padded != (f.count % 2 == 1)) return SFU_E_BAD_FLEX_RULE;
    // The CFA must come from a register: a CFA defined from itself says nothing.
    if (!flex_reg_p(f.raw[0])) return SFU_E_BAD_FLEX_RULE;
  } else if (f.count > (abi_amd64(t.abi) ? 2 : kMaxWordsDefault)) {
    return SFU_E_BAD_WORD_COUNT;
  }

  // The CFA: a flexible row's first pair; a default row's first word, from SP or FP.
  const uint8_t base = fre_base_sp(f.info) ? abi_sp_reg(t.abi) : abi_fp_reg(t.abi);
  const int64_t cfa = cfa_offset(t, w(flex));
  if (sfu_error e = flex_rule(flex ? f.raw[0] : make_flex_control(true, base, false), cfa, row.cfa)) return e;
  if (!cfa_offset_fits(cfa)) return SFU_E_CFA_OFFSET_RANGE;

  if (flex) {
    if (f.count >= 4 && !padded)
      if (sfu_error e = flex_rule(f.raw[2], w(3), row.ra)) return e;
    const uint32_t fp = padded ? 3 : 4;
    if (f.count > fp) return flex_rule(f.raw[fp], w(fp + 1), row.fp);
    return SFU_OK;
  }

  // Which word says what: AMD64 has no RA word (fixed offset), so its FP is word 1; the
  // others put RA in word 1 and FP in word 2.
  uint32_t ra_word = abi_amd64(t.abi) ? 0 : 1;
  uint32_t fp_word = ra_word + 1;
  if (ra_word != 0 && f.count > ra_word) {
    int32_t ra = w(ra_word);
    // Word 0 is the "RA not saved" padding on s390x only (SFRAME_FRE_RA_OFFSET_INVALID), where
    // the RA is then as the table's default says: unchanged (no s390x table has a fixed RA
    // offset). AArch64 defines no padding, so there it is RA at CFA+0, as binutils reads it.
    if (ra != 0 || !abi_s390x(t.abi))
      if (sfu_error e = saved_at(t, ra, row.ra)) return e;
  }
  if (f.count > fp_word) return saved_at(t, w(fp_word), row.fp);
  return SFU_OK;
}

}  // namespace sfu::sframe
