// SFrame writer: the inverse of src/sframe/rules.cpp rules_of_fre. Each piece of the format's
// knowledge sits in one small function: which rows a version and ABI can say at all
// (common_refusal), the default form's words per ABI (default_words), the V3 flexible form's
// words (flex_words), then the FRE, FDE and header layouts.
#include "tools/sframe/encode.h"

#include <algorithm>
#include <array>
#include <cstdio>

#include "sframe/format.h"
#include "sframe/rule.h"
#include "tools/text/bytes.h"

namespace sfu::tools {
namespace {

using namespace sfu::sframe;

constexpr uint32_t kMaxV3Rows = 0xffff;  // V3 keeps a function's row count in a u16

// ---- Rules ----------------------------------------------------------------------------------

bool is_kind(const sfu_rule &r, sfu_rule_kind k) { return r.kind == uint8_t(k); }
bool has_reg(const sfu_rule &r) { return is_kind(r, SFU_RULE_REGISTER) || is_kind(r, SFU_RULE_AT_REGISTER); }

// What the decoder assumes when a row has no RA words: AMD64's fixed offset (which this writer
// always puts in the header), else the link register is untouched. FP has no fixed offset here.
sfu_rule implied_ra(uint8_t abi) {
  return abi == SFU_ABI_AMD64_LE ? make_rule(SFU_RULE_AT_CFA, 0, -8) : make_rule(SFU_RULE_UNCHANGED, 0, 0);
}

bool outermost(const sfu_row &row) { return row.flags & SFU_ROW_OUTERMOST; }

// s390x stores CFA offsets as (offset - 160) / 8, in both forms.
int32_t cfa_word(uint8_t abi, int32_t offset) {
  if (!abi_s390x(abi)) return offset;
  return int32_t((int64_t(offset) - kS390xCfaAdjust) / kS390xCfaScale);
}

// "CFA based on r10 needs V3" for every register, built once so the pointer stays valid.
const char *cfa_register_phrase(uint8_t reg) {
  static const std::array<std::string, 256> phrases = [] {
    std::array<std::string, 256> p;
    for (unsigned r = 0; r < p.size(); r++) p[r] = "CFA based on r" + std::to_string(r) + " needs V3";
    return p;
  }();
  return phrases[reg].c_str();
}

// ---- Refusals that do not depend on the form ------------------------------------------------

const char *options_refusal(const EncodeOptions &opt) {
  if (opt.version < kVersion1 || opt.version > kVersion3) return "version must be 1, 2 or 3";
  if (opt.abi < SFU_ABI_AARCH64_BE || opt.abi > SFU_ABI_S390X_BE) return "unknown ABI";
  if (abi_s390x(opt.abi) && opt.version == kVersion1) return "s390x needs V2 or V3";
  return nullptr;
}

// The flags, and the rules no form of this version can say: checked before any form is tried,
// so what is left always fits the V3 flexible form.
const char *common_refusal(const EncodeOptions &opt, const sfu_row &row) {
  // The signed bit means pointer authentication, which only AArch64 has.
  if ((row.flags & SFU_ROW_RA_SIGNED) && !abi_aarch64(opt.abi)) return "signed RA needs AArch64";
  // An outermost row has no words (its info byte holds at most the signed bit): everything else
  // about it is implied.
  if (outermost(row)) {
    if (opt.version == kVersion1) return "outermost row needs V2";
    if (!is_kind(row.ra, SFU_RULE_UNDEFINED)) return "outermost row must have RA undefined";
    if (!is_kind(row.cfa, SFU_RULE_UNDEFINED) || !is_kind(row.fp, SFU_RULE_UNCHANGED))
      return "outermost row needs CFA undefined and FP unchanged";
    return nullptr;
  }
  if (is_kind(row.ra, SFU_RULE_UNDEFINED)) return "RA undefined needs the outermost flag";
  for (const sfu_rule *r : {&row.cfa, &row.ra, &row.fp})
    if (r->kind > SFU_RULE_AT_REGISTER) return "unknown rule kind";
  if (!is_kind(row.cfa, SFU_RULE_REGISTER) && !is_kind(row.cfa, SFU_RULE_AT_REGISTER))
    return "CFA must be a register rule";
  if (abi_s390x(opt.abi) && row.cfa.offset % kS390xCfaScale != 0)
    return "s390x CFA offset not a multiple of 8";
  // A CFA-plus RA would need control word 0 in the RA slot, which reads as the padding word.
  if (is_kind(row.ra, SFU_RULE_CFA_PLUS)) return "RA as CFA+offset cannot be written";
  // No row word says "RA unchanged" where the header fixes it at CFA-8.
  if (opt.abi == SFU_ABI_AMD64_LE && is_kind(row.ra, SFU_RULE_UNCHANGED))
    return "RA unchanged cannot be written on AMD64";
  if (is_kind(row.fp, SFU_RULE_UNDEFINED)) return "FP undefined cannot be written";
  return nullptr;
}

// ---- Words of one row -----------------------------------------------------------------------

struct Words {
  std::vector<int32_t> w;
  bool base_sp = false;  // FRE info bit 0; flex rows write 0
};

// Why an RA or FP rule has no default-form word, per rule.
struct SavedPhrases {
  const char *at_cfa_zero;  // s390x RA only: word 0 is the padding word
  const char *odd_offset;   // s390x V2: an odd word names a register
  const char *in_register;
  const char *register_plus;
  const char *cfa_plus;
  const char *loaded;
};
constexpr SavedPhrases kRaPhrases{nullptr,
                                  "odd RA offset on s390x V2 needs V3",
                                  "RA in a register needs V3 or s390x V2",
                                  "RA in a register plus offset needs V3",
                                  "RA as CFA+offset cannot be written",
                                  "RA loaded through a register needs V3"};
// On s390x an RA word 0 is the padding word, so RA at CFA+0 needs the flexible form.
constexpr SavedPhrases kRaPhrasesS390x{"RA at CFA+0 needs V3",
                                  "odd RA offset on s390x V2 needs V3",
                                  "RA in a register needs V3 or s390x V2",
                                  "RA in a register plus offset needs V3",
                                  "RA as CFA+offset cannot be written",
                                  "RA loaded through a register needs V3"};
constexpr SavedPhrases kFpPhrases{nullptr,
                                  "odd FP offset on s390x V2 needs V3",
                                  "FP in a register needs V3 or s390x V2",
                                  "FP in a register plus offset needs V3",
                                  "FP as CFA+offset needs V3",
                                  "FP loaded through a register needs V3"};

// AArch64 has no RA padding word: FP saved with the RA still in x30 needs V3's flexible form,
// as gas refuses such functions in V1 and V2.
constexpr const char *kFpWithoutRa = "FP saved without RA needs V3 on AArch64";

// The default-form word for a saved RA or FP (kind is neither UNCHANGED nor UNDEFINED): its CFA
// offset, or on V2 s390x a register number as (reg << 1) | 1.
const char *saved_word(const EncodeOptions &opt, const sfu_rule &r, const SavedPhrases &say, int32_t &w) {
  bool s390x_v2 = abi_s390x(opt.abi) && opt.version == kVersion2;
  if (is_kind(r, SFU_RULE_AT_CFA)) {
    if (say.at_cfa_zero && r.offset == 0) return say.at_cfa_zero;
    if (s390x_v2 && s390x_v2_is_regnum(r.offset)) return say.odd_offset;
    w = r.offset;
    return nullptr;
  }
  if (is_kind(r, SFU_RULE_REGISTER)) {
    if (!s390x_v2) return say.in_register;
    if (r.offset != 0) return say.register_plus;
    w = int32_t((uint32_t(r.reg) << 1) | 1);
    return nullptr;
  }
  return is_kind(r, SFU_RULE_CFA_PLUS) ? say.cfa_plus : say.loaded;
}

// Default form, every ABI: the CFA is SP or FP plus an offset (the info byte's base bit).
const char *default_cfa(const EncodeOptions &opt, const sfu_rule &cfa, Words &out) {
  if (is_kind(cfa, SFU_RULE_AT_REGISTER)) return "CFA loaded from memory needs V3";
  if (cfa.reg != abi_sp_reg(opt.abi) && cfa.reg != abi_fp_reg(opt.abi)) return cfa_register_phrase(cfa.reg);
  out.base_sp = cfa.reg == abi_sp_reg(opt.abi);
  out.w = {cfa_word(opt.abi, cfa.offset)};
  return nullptr;
}

// AMD64: [cfa] or [cfa, fp]; the RA is always at the header's fixed CFA-8.
const char *default_amd64(const EncodeOptions &opt, const sfu_row &row, Words &out) {
  if (!same_rule(row.ra, implied_ra(opt.abi))) return "RA on AMD64 must be at CFA-8";
  if (is_kind(row.fp, SFU_RULE_UNCHANGED)) return nullptr;
  int32_t fp = 0;
  if (const char *why = saved_word(opt, row.fp, kFpPhrases, fp)) return why;
  out.w.push_back(fp);
  return nullptr;
}

// AArch64 and s390x: [cfa], [cfa, ra] or [cfa, ra, fp]. Only s390x defines an RA word 0 as
// padding ("RA not saved") for a row where only FP is saved; AArch64 reads word 0 as RA at CFA+0
// (the V1 and V2 specifications, binutils), so there such a row has no default form.
const char *default_ra_fp(const EncodeOptions &opt, const sfu_row &row, Words &out) {
  bool ra_saved = !is_kind(row.ra, SFU_RULE_UNCHANGED), fp_saved = !is_kind(row.fp, SFU_RULE_UNCHANGED);
  if (fp_saved && !ra_saved && !abi_s390x(opt.abi)) return kFpWithoutRa;
  int32_t ra = 0, fp = 0;
  if (ra_saved)
    if (const char *why = saved_word(opt, row.ra, abi_s390x(opt.abi) ? kRaPhrasesS390x : kRaPhrases, ra))
      return why;
  if (fp_saved)
    if (const char *why = saved_word(opt, row.fp, kFpPhrases, fp)) return why;
  if (ra_saved || fp_saved) out.w.push_back(ra);
  if (fp_saved) out.w.push_back(fp);
  return nullptr;
}

// The default form's words, or why this row has none. Assumes common_refusal passed.
const char *default_words(const EncodeOptions &opt, const sfu_row &row, Words &out) {
  out = Words{};
  if (outermost(row)) return nullptr;  // no words
  if (const char *why = default_cfa(opt, row.cfa, out)) return why;
  return opt.abi == SFU_ABI_AMD64_LE ? default_amd64(opt, row, out) : default_ra_fp(opt, row, out);
}

// Why a row has no form, once the options and the function's signal bit have passed: everything
// common_refusal lets through has a V3 flexible form, so only V1 and V2 need the default one.
const char *row_refusal(const EncodeOptions &opt, const sfu_row &row) {
  if (const char *why = common_refusal(opt, row)) return why;
  if (opt.version == kVersion3) return nullptr;
  Words words;
  return default_words(opt, row, words);
}

// V3 flexible control word: base register (reg_p) or the CFA, value loaded (deref) or not.
int32_t flex_control(const sfu_rule &r) {
  bool deref = is_kind(r, SFU_RULE_AT_CFA) || is_kind(r, SFU_RULE_AT_REGISTER);
  return int32_t(make_flex_control(has_reg(r), r.reg, deref));
}

// Flexible form: [ctl, off] for CFA, RA and FP; RA omitted when it is what the decoder implies
// and FP is unchanged, or a single 0 word when only FP has a rule. Assumes common_refusal passed,
// which leaves no RA whose control word would be 0.
void flex_words(const EncodeOptions &opt, const sfu_row &row, Words &out) {
  out = Words{};
  if (outermost(row)) return;
  out.w = {flex_control(row.cfa), cfa_word(opt.abi, row.cfa.offset)};
  bool ra_implied = same_rule(row.ra, implied_ra(opt.abi));
  bool fp_saved = !is_kind(row.fp, SFU_RULE_UNCHANGED);
  if (!ra_implied)
    out.w.insert(out.w.end(), {flex_control(row.ra), row.ra.offset});
  else if (fp_saved)
    out.w.push_back(0);
  if (fp_saved) out.w.insert(out.w.end(), {flex_control(row.fp), row.fp.offset});
}

// ---- Frame row entries ----------------------------------------------------------------------

struct EncodedRow {
  uint32_t start;
  uint8_t info;
  uint8_t word_size;
  std::vector<int32_t> words;
};

// The smallest of 1, 2 and 4 bytes holding every word as a signed value: control words too, so
// a reader that sign-extends them reads the same.
uint8_t word_size_code(const std::vector<int32_t> &words) {
  uint8_t code = 0;
  for (int32_t w : words) {
    if (w < INT8_MIN || w > INT8_MAX) code = std::max<uint8_t>(code, 1);
    if (w < INT16_MIN || w > INT16_MAX) code = 2;
  }
  return code;
}

// Info byte: CFA base bit, word count, word size, RA signed. An outermost row has no words and
// base bit 0, so its info byte is 0 or just the signed bit.
EncodedRow encode_row(const sfu_row &row, const Words &words) {
  uint8_t code = word_size_code(words.w);
  EncodedRow e{row.row_start, 0, uint8_t(1u << code), words.w};
  e.info = make_fre_info(words.base_sp, uint8_t(words.w.size()), code, row.flags & SFU_ROW_RA_SIGNED);
  return e;
}

// The smallest FRE type (row start width) that holds every row start of the function.
uint8_t fre_type_for(const std::vector<sfu_row> &rows) {
  uint32_t max = 0;
  for (const sfu_row &r : rows) max = std::max(max, r.row_start);
  return max <= 0xff ? kFreTypeAddr1 : max <= 0xffff ? kFreTypeAddr2 : kFreTypeAddr4;
}

// ---- Functions ------------------------------------------------------------------------------

struct EncodedFunction {
  const EncodeFunction *f;
  bool flex;
  uint8_t fre_type;
  std::vector<EncodedRow> rows;
};

std::string where(const EncodeFunction &f) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "function at 0x%llx: ", static_cast<unsigned long long>(f.start));
  return buf;
}

// Rows the decoder accepts and reads back: the first at 0, rising, each inside the function.
bool check_rows(const EncodeOptions &opt, const EncodeFunction &f, std::string &error) {
  if (f.pauth_key_b && !abi_aarch64(opt.abi)) return error = where(f) + "pauth B key needs AArch64", false;
  if (f.signal && opt.version < kVersion3) return error = where(f) + "signal frame needs V3", false;
  if (f.start + f.size < f.start) return error = where(f) + "function wraps past the end of memory", false;
  if (const char *why = repeat_refusal(opt, f.repeat)) return error = where(f) + why, false;
  if (opt.version == kVersion3 && f.rows.size() > kMaxV3Rows)
    return error = where(f) + "more than 65535 rows in a V3 function", false;
  for (size_t i = 0; i < f.rows.size(); i++) {
    const sfu_row &r = f.rows[i];
    std::string at = where(f) + "row " + std::to_string(i) + ": ";
    if (i == 0 && r.row_start != 0) return error = at + "first row not at offset 0", false;
    if (i > 0 && r.row_start <= f.rows[i - 1].row_start) return error = at + "row starts not rising", false;
    if (r.row_start >= f.size) return error = at + "row starts past the function end", false;
    if (f.repeat && r.row_start >= f.repeat) return error = at + "row starts past the repeating block", false;
    if (const char *why = row_refusal(opt, r)) return error = at + why, false;
  }
  return true;
}

// The default form when every row has one; else (V3 only, encode_refusal has said so) flex.
EncodedFunction encode_function(const EncodeOptions &opt, const EncodeFunction &f) {
  EncodedFunction e{&f, false, fre_type_for(f.rows), {}};
  std::vector<Words> words(f.rows.size());
  for (size_t i = 0; i < f.rows.size() && !e.flex; i++)
    e.flex = default_words(opt, f.rows[i], words[i]) != nullptr;
  if (e.flex)
    for (size_t i = 0; i < f.rows.size(); i++) flex_words(opt, f.rows[i], words[i]);
  for (size_t i = 0; i < f.rows.size(); i++) e.rows.push_back(encode_row(f.rows[i], words[i]));
  return e;
}

// FDE info byte: FRE type, PCINC or PCMASK (a repeating block), AArch64 B key, V3 signal frame.
uint8_t fde_info(const EncodeOptions &opt, const EncodedFunction &e) {
  return make_fde_info(e.fre_type, e.f->repeat != 0, e.f->pauth_key_b, opt.version == kVersion3 && e.f->signal);
}

// ---- Bytes ----------------------------------------------------------------------------------

using Writer = ByteWriter;

// A function's FRE data: V3's attribute record, then each row's start, info byte and words.
void write_chain(const EncodeOptions &opt, const EncodedFunction &e, Writer &w) {
  if (opt.version == kVersion3) {
    w.put(e.rows.size(), 2);
    w.put(fde_info(opt, e), 1);
    w.put(e.flex ? kFdeTypeFlex : kFdeTypeDefault, 1);
    w.put(e.f->repeat, 1);  // rep_size: PCMASK only
  }
  for (const EncodedRow &r : e.rows) {
    w.put(r.start, fre_addr_size(e.fre_type));
    w.put(r.info, 1);
    for (int32_t v : r.words) w.put(uint32_t(v), r.word_size);
  }
}

// The start-address field: V1 counts from the section, V2 and V3 (PCREL) from the field itself.
int64_t start_field(const EncodeOptions &opt, uint64_t start, uint64_t field_offset) {
  uint64_t base = opt.section_addr + (opt.version == kVersion1 ? 0 : field_offset);
  return int64_t(start - base);
}

void write_fde(const EncodeOptions &opt, const EncodedFunction &e, int64_t start, uint32_t chain_off,
               Writer &w) {
  if (opt.version == kVersion3) {
    w.put(uint64_t(start), 8);
    w.put(e.f->size, 4);
    w.put(chain_off, 4);
    return;
  }
  w.put(uint32_t(start), 4);
  w.put(e.f->size, 4);
  w.put(chain_off, 4);
  w.put(e.rows.size(), 4);
  w.put(fde_info(opt, e), 1);
  if (opt.version == kVersion2) {
    w.put(e.f->repeat, 1);  // rep_size: PCMASK only
    w.put(0, 2);            // padding
  }
}

// Sorted flag always; PCREL starts from V2 on; never FRAME_POINTER. AMD64's RA is at CFA-8.
void write_header(const EncodeOptions &opt, uint32_t num_fdes, uint32_t num_fres, uint32_t fre_len,
                  Writer &w) {
  w.put(kMagic, 2);
  w.put(opt.version, 1);
  w.put(SFU_F_FDE_SORTED | (opt.version >= kVersion2 ? SFU_F_FDE_FUNC_START_PCREL : 0), 1);
  w.put(opt.abi, 1);
  w.put(0, 1);                                              // fixed FP offset: none
  w.put(uint8_t(opt.abi == SFU_ABI_AMD64_LE ? -8 : 0), 1);  // fixed RA offset
  w.put(0, 1);                                              // no auxiliary header
  w.put(num_fdes, 4);
  w.put(num_fres, 4);
  w.put(fre_len, 4);
  w.put(0, 4);                                           // FDEs right after the header
  w.put(uint64_t(num_fdes) * fde_size(opt.version), 4);  // then the FREs
}

}  // namespace

const char *encode_refusal(const EncodeOptions &opt, const sfu_row &row, bool signal) {
  if (const char *why = options_refusal(opt)) return why;
  if (signal && opt.version < kVersion3) return "signal frame needs V3";
  return row_refusal(opt, row);
}

const char *repeat_refusal(const EncodeOptions &opt, uint8_t repeat) {
  // V1 has no rep_size: binutils 2.40 read its PCMASK rows by the offset's low byte, right only
  // for 256-byte blocks.
  return repeat && opt.version == kVersion1 ? "repeating block (PLT) needs V2" : nullptr;
}

bool encode_sframe(const EncodeOptions &opt, const std::vector<EncodeFunction> &functions,
                   std::vector<uint8_t> &out, std::string &error) {
  if (const char *why = options_refusal(opt)) return error = why, false;
  std::vector<const EncodeFunction *> sorted;
  for (const EncodeFunction &f : functions) sorted.push_back(&f);
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const EncodeFunction *a, const EncodeFunction *b) { return a->start < b->start; });

  std::vector<EncodedFunction> encoded;
  for (size_t i = 0; i < sorted.size(); i++) {
    const EncodeFunction &f = *sorted[i];
    if (!check_rows(opt, f, error)) return false;
    // Starts must rise strictly, and a function end where the next begins.
    if (i > 0 && sorted[i - 1]->start + sorted[i - 1]->size > f.start)
      return error = where(f) + "overlaps the function before it", false;
    if (i > 0 && sorted[i - 1]->start == f.start)
      return error = where(f) + "starts where another does", false;
    encoded.push_back(encode_function(opt, f));
  }

  std::vector<uint8_t> fres;
  std::vector<uint32_t> chain_off;
  Writer fw{fres, abi_big_endian(opt.abi)};
  uint64_t num_fres = 0;
  for (const EncodedFunction &e : encoded) {
    chain_off.push_back(uint32_t(fres.size()));
    write_chain(opt, e, fw);
    num_fres += e.rows.size();
    if (fres.size() > kMaxSectionSize) break;
  }
  uint64_t fde_bytes = uint64_t(encoded.size()) * fde_size(opt.version);
  if (kHeaderSize + fde_bytes + fres.size() > kMaxSectionSize)
    return error = "section would be 2 GiB or more", false;

  std::vector<uint8_t> sec;
  Writer w{sec, abi_big_endian(opt.abi)};
  write_header(opt, uint32_t(encoded.size()), uint32_t(num_fres), uint32_t(fres.size()), w);
  for (size_t i = 0; i < encoded.size(); i++) {
    int64_t start = start_field(opt, encoded[i].f->start, sec.size());
    if (opt.version != kVersion3 && (start < INT32_MIN || start > INT32_MAX))
      return error = where(*encoded[i].f) + "start too far from the section for a 32-bit offset", false;
    write_fde(opt, encoded[i], start, chain_off[i], w);
  }
  sec.insert(sec.end(), fres.begin(), fres.end());
  out = std::move(sec);
  return true;
}

}  // namespace sfu::tools
