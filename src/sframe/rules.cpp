// What a frame row entry means: its data words turned into CFA, RA and FP rules, by each ABI's
// reading of the default form and by the V3 flexible form. The only place that interprets words.
#include "sframe/rule.h"
#include "sframe/table.h"

namespace sfu::sframe {
namespace {

// Where RA and FP are when a row says nothing about them: the header's fixed offsets, if any,
// else still in their registers.
sfu_rule default_ra(const sfu_table &t) {
  return t.fixed_ra_offset ? make_rule(SFU_RULE_AT_CFA, 0, t.fixed_ra_offset) : make_rule(SFU_RULE_UNCHANGED, 0, 0);
}
sfu_rule default_fp(const sfu_table &t) {
  return t.fixed_fp_offset ? make_rule(SFU_RULE_AT_CFA, 0, t.fixed_fp_offset) : make_rule(SFU_RULE_UNCHANGED, 0, 0);
}

int64_t cfa_offset(const sfu_table &t, int32_t w) { return abi_s390x(t.abi) ? s390x_cfa_decode(w) : w; }

// s390x stores CFA offsets scaled down by 8; a 4-byte word can name one no int32 holds.
sfu_error check_cfa_offset(const sfu_table &t, int32_t w) {
  int64_t off = cfa_offset(t, w);
  return off < INT32_MIN || off > INT32_MAX ? SFU_E_CFA_OFFSET_RANGE : SFU_OK;
}

// V2 s390x keeps RA/FP of leaf functions in registers: an odd word is (regnum << 1) | 1.
bool s390x_v2_register(const sfu_table &t, int32_t w) {
  return abi_s390x(t.abi) && t.version == kVersion2 && s390x_v2_is_regnum(w);
}

// A flexible rule: [control, offset]. Base is a register (reg_p) or the CFA; deref_p loads.
sfu_rule flex_rule(uint32_t ctl, int64_t offset) {
  bool deref = flex_deref_p(ctl);
  if (flex_reg_p(ctl))
    return make_rule(deref ? SFU_RULE_AT_REGISTER : SFU_RULE_REGISTER, flex_reg(ctl), offset);
  return make_rule(deref ? SFU_RULE_AT_CFA : SFU_RULE_CFA_PLUS, 0, offset);
}

sfu_error check_flex_control(uint32_t ctl) {
  if (flex_unused_bit(ctl)) return SFU_E_BAD_FLEX_RULE;
  if (flex_reg_p(ctl) && flex_reg(ctl) > kMaxRegister) return SFU_E_BAD_REGISTER;
  return SFU_OK;
}

// Flexible rows: CFA [ctl, off], then RA [ctl, off] or one 0 word (no RA rule), then FP
// [ctl, off]. So the count is 2 to 6, odd exactly when the RA padding word is there.
bool flex_ra_padded(const Fre &f) { return f.count >= 3 && f.raw[2] == 0; }
uint32_t flex_fp_index(const Fre &f) { return flex_ra_padded(f) ? 3 : 4; }

sfu_error check_flex(const sfu_table &t, const Fre &f) {
  if (f.count < 2) return SFU_E_BAD_WORD_COUNT;
  if (flex_ra_padded(f) != (f.count % 2 == 1)) return SFU_E_BAD_FLEX_RULE;
  // The CFA must come from a register: a CFA defined from itself says nothing.
  if (!flex_reg_p(f.raw[0])) return SFU_E_BAD_FLEX_RULE;
  if (sfu_error e = check_flex_control(f.raw[0])) return e;
  if (sfu_error e = check_cfa_offset(t, f.word(1))) return e;
  if (f.count >= 4 && !flex_ra_padded(f))
    if (sfu_error e = check_flex_control(f.raw[2])) return e;
  uint32_t fp = flex_fp_index(f);
  if (f.count > fp)
    if (sfu_error e = check_flex_control(f.raw[fp])) return e;
  return SFU_OK;
}

}  // namespace

sfu_error check_fre(const sfu_table &t, const Fde &fde, const Fre &f) {
  // No words: RA undefined, the outermost frame (V2 errata 2 and V3; V1 has no such row).
  if (f.count == 0) return is_v1(t.version) ? SFU_E_BAD_WORD_COUNT : SFU_OK;
  if (fde.flex()) return check_flex(t, f);
  uint8_t max = abi_amd64(t.abi) ? 2 : kMaxWordsDefault;
  if (f.count > max) return SFU_E_BAD_WORD_COUNT;
  if (sfu_error e = check_cfa_offset(t, f.word(0))) return e;
  for (uint32_t i = 1; i < f.count; i++) {
    int32_t w = f.word(i);
    if (s390x_v2_register(t, w) && (w < 0 || s390x_v2_regnum(w) > kMaxRegister)) return SFU_E_BAD_REGISTER;
  }
  return SFU_OK;
}

void rules_of_fre(const sfu_table &t, const Fde &fde, const Fre &f, sfu_row &row) {
  row.func_start = fde.start;
  row.func_size = fde.size;
  row.row_start = f.start;
  row.flags = 0;
  if (fre_ra_signed(f.info)) row.flags |= SFU_ROW_RA_SIGNED;
  if (t.version == kVersion3 && fde_signal(fde.info)) row.flags |= SFU_ROW_SIGNAL_FRAME;
  if (abi_aarch64(t.abi) && fde_pauth_key_b(fde.info)) row.flags |= SFU_ROW_PAUTH_KEY_B;
  if (fde.flex()) row.flags |= SFU_ROW_FLEX;
  if (fde.pcmask()) row.flags |= SFU_ROW_PCMASK;
  // What a row says nothing of, set once for every form below that may not say.
  row.ra = default_ra(t);
  row.fp = default_fp(t);

  if (f.count == 0) {
    row.flags |= SFU_ROW_OUTERMOST;
    row.cfa = make_rule(SFU_RULE_UNDEFINED, 0, 0);
    row.ra = make_rule(SFU_RULE_UNDEFINED, 0, 0);
    row.fp = make_rule(SFU_RULE_UNCHANGED, 0, 0);
    return;
  }

  if (fde.flex()) {
    row.cfa = flex_rule(f.raw[0], cfa_offset(t, f.word(1)));
    if (f.count >= 4 && !flex_ra_padded(f)) row.ra = flex_rule(f.raw[2], f.word(3));
    uint32_t fp = flex_fp_index(f);
    if (f.count > fp) row.fp = flex_rule(f.raw[fp], f.word(fp + 1));
    return;
  }

  uint8_t base = fre_base_sp(f.info) ? abi_sp_reg(t.abi) : abi_fp_reg(t.abi);
  row.cfa = make_rule(SFU_RULE_REGISTER, base, cfa_offset(t, f.word(0)));
  // Which word says what: AMD64 has no RA word (fixed offset), so its FP is word 1; the
  // others put RA in word 1 and FP in word 2.
  uint32_t ra_word = abi_amd64(t.abi) ? 0 : 1;
  uint32_t fp_word = ra_word + 1;
  if (ra_word != 0 && f.count > ra_word) {
    int32_t w = f.word(ra_word);
    // Word 0 is the "RA not saved" padding on s390x only (SFRAME_FRE_RA_OFFSET_INVALID);
    // AArch64 defines no padding, so there it is RA at CFA+0, as binutils reads it.
    if (w == 0 && abi_s390x(t.abi))
      row.ra = make_rule(SFU_RULE_UNCHANGED, 0, 0);
    else if (s390x_v2_register(t, w))
      row.ra = make_rule(SFU_RULE_REGISTER, s390x_v2_regnum(w), 0);
    else
      row.ra = make_rule(SFU_RULE_AT_CFA, 0, w);
  }
  if (f.count > fp_word) {
    int32_t w = f.word(fp_word);
    row.fp = s390x_v2_register(t, w) ? make_rule(SFU_RULE_REGISTER, s390x_v2_regnum(w), 0)
                                      : make_rule(SFU_RULE_AT_CFA, 0, w);
  }
}

}  // namespace sfu::sframe
