// CFI rules to SFrame rules. What SFrame tracks is only the CFA, the RA and the FP: every other
// register's rule is dropped (the runtime never restores them). Whether a rule fits the chosen
// version and ABI is the writer's call (encode_refusal); this file only translates.
#include "tools/sframe/gen.h"

#include <algorithm>


#include "sframe/format.h"
#include "sframe/rule.h"
#include "tools/dwarf/image_cfi.h"

namespace sfu::tools {
namespace {

using cfi::CfaRule;
using cfi::RegRule;
using sframe::kMaxRegister;
using sframe::make_rule;

bool fits_int32(int64_t v) { return v >= INT32_MIN && v <= INT32_MAX; }

// The CFA rule, or a reason it has none in SFrame terms.
std::string cfa_rule(const CfaRule &c, sfu_rule &out) {
  uint32_t reg = c.reg;
  int64_t offset = c.offset;
  bool deref = false;
  if (c.kind == CfaRule::kExpression && !cfi::simple_expression(c.expr, reg, offset, deref))
    return "CFA computed by a DWARF expression";
  if (reg > kMaxRegister) return "CFA based on a register numbered above 255";
  if (!fits_int32(offset)) return "CFA offset out of range";
  out = make_rule(deref ? SFU_RULE_AT_REGISTER : SFU_RULE_REGISTER, reg, offset);
  return "";
}

// RA or FP: where the caller's value is. No rule (unspecified) or same-value: still in its
// register. `self` is the register itself (a rule "register R is in R" also means unchanged).
std::string value_rule(const RegRule *r, uint32_t self, const std::string &what, sfu_rule &out) {
  if (!r || r->kind == RegRule::kSameValue || (r->kind == RegRule::kRegister && uint64_t(r->value) == self)) {
    out = make_rule(SFU_RULE_UNCHANGED, 0, 0);
    return "";
  }
  uint32_t reg = 0;
  int64_t offset = 0;
  bool deref = false;
  switch (r->kind) {
    case RegRule::kOffset:
    case RegRule::kValOffset:
      if (!fits_int32(r->value)) break;
      out = make_rule(r->kind == RegRule::kOffset ? SFU_RULE_AT_CFA : SFU_RULE_CFA_PLUS, 0, r->value);
      return "";
    case RegRule::kRegister:
      if (r->value < 0 || r->value > kMaxRegister) break;
      out = make_rule(SFU_RULE_REGISTER, uint32_t(r->value), 0);
      return "";
    case RegRule::kExpression:  // the expression gives the address the value is saved at
    case RegRule::kValExpression:
      if (!cfi::simple_expression(r->expr, reg, offset, deref) || deref || reg > kMaxRegister ||
          !fits_int32(offset))
        break;
      out = make_rule(r->kind == RegRule::kExpression ? SFU_RULE_AT_REGISTER : SFU_RULE_REGISTER, reg, offset);
      return "";
    case RegRule::kUndefined:
      return what + " undefined";
    default:
      break;
  }
  return what + " rule has no SFrame form";
}

std::string translate(const cfi::Fde &fde, const cfi::Row &cr, uint8_t abi, sfu_row &out) {
  out = sfu_row{};
  out.row_start = uint32_t(cr.start - fde.start);
  if (cr.ra_signed) out.flags |= SFU_ROW_RA_SIGNED;
  const RegRule *ra = cr.rule(fde.ra_reg);
  if (ra && ra->kind == RegRule::kUndefined) {  // the outermost frame: the walk ends here
    out.flags |= SFU_ROW_OUTERMOST;
    out.cfa = make_rule(SFU_RULE_UNDEFINED, 0, 0);
    out.ra = make_rule(SFU_RULE_UNDEFINED, 0, 0);
    out.fp = make_rule(SFU_RULE_UNCHANGED, 0, 0);
    return "";
  }
  if (std::string why = cfa_rule(cr.cfa, out.cfa); !why.empty()) return why;
  if (!sp_follows_cfa(cr, abi)) return "SP rule other than the CFA's";
  if (std::string why = value_rule(ra, fde.ra_reg, "RA", out.ra); !why.empty()) return why;
  uint32_t fp = sframe::abi_fp_reg(abi);
  return value_rule(cr.rule(fp), fp, "FP", out.fp);
}

// One function, or the reason it is left out.
std::string convert(const cfi::Fde &fde, const EncodeOptions &opt, EncodeFunction &fn, uint64_t &at) {
  at = fde.start;
  if (fde.end - fde.start > UINT32_MAX) return "function larger than 4 GiB";
  fn.start = fde.start;
  fn.size = uint32_t(fde.end - fde.start);
  fn.signal = fde.signal_frame;
  fn.pauth_key_b = fde.pauth_key_b;
  for (const cfi::Row &cr : fde.rows) {
    at = cr.start;
    sfu_row row;
    if (std::string why = translate(fde, cr, opt.abi, row); !why.empty()) return why;
    if (const char *why = encode_refusal(opt, row, fn.signal)) return why;
    if (!fn.rows.empty() && sframe::same_rules(fn.rows.back(), row)) continue;
    fn.rows.push_back(row);
  }
  return fn.rows.empty() ? "no rows" : "";
}

}  // namespace

size_t Generated::rows() const {
  size_t n = 0;
  for (const EncodeFunction &f : functions) n += f.rows.size();
  return n;
}

void generate_rows(const std::vector<cfi::Fde> &fdes, const EncodeOptions &opt, Generated &out) {
  out = Generated{};
  uint64_t covered_to = 0;  // end of the FDEs so far: they come sorted by start
  for (const cfi::Fde &fde : fdes) {
    if (fde.start >= fde.end) continue;
    LeftOut skip{fde.start, fde.end, fde.start, ""};
    EncodeFunction fn;
    bool overlaps = fde.start < covered_to;
    covered_to = std::max(covered_to, fde.end);
    if (overlaps) {
      skip.reason = "overlaps another function";  // the CFI contradicts itself there
    } else if (std::string why = convert(fde, opt, fn, skip.at); !why.empty()) {
      skip.reason = why;
    } else {
      out.functions.push_back(std::move(fn));
      continue;
    }
    out.left_out.push_back(std::move(skip));
  }
}

}  // namespace sfu::tools
