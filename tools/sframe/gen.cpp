// CFI rules to SFrame rules. What SFrame tracks is only the CFA, the RA and the FP: every other
// register's rule is dropped (the runtime never restores them). Whether a rule fits the chosen
// version and ABI is the writer's call (encode_refusal); this file only translates.
#include "tools/sframe/gen.h"

#include <algorithm>

#include "sframe/format.h"
#include "sframe/rule.h"
#include "tools/dwarf/image_cfi.h"
#include "tools/sframe/cfa_expression.h"

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

// A CFA computed from the PC by an expression that is not plain register + offset.
bool pc_dependent_cfa(const cfi::Row &cr) {
  uint32_t reg;
  int64_t offset;
  bool deref;
  return cr.cfa.kind == CfaRule::kExpression && !cfi::simple_expression(cr.cfa.expr, reg, offset, deref);
}

// The bounds on a CFA computed from the PC: it is evaluated at every address of its range, so
// the time is the range times the expression's length, and the values are kept while the range
// is looked at. ld's .plt expression is 11 bytes; a .plt of 65,536 entries is 1 MiB.
constexpr size_t kPcExpressionMax = 64;
constexpr uint64_t kPcRangeMax = uint64_t(1) << 20;

// The rows of [cr.start, end), where the CFI computes the CFA from the PC (ld's .plt entries:
// rsp + 8 + (((rip & 15) >= 11) << 3)): evaluated at every address, it must be one register plus
// an offset there. A CFA that repeats every `period` bytes (up to 255) becomes a repeating block,
// SFrame's PCMASK function with rep_size `period`; one that does not, ordinary rows.
std::string pc_dependent_rows(const cfi::Fde &fde, const cfi::Row &cr, const EncodeOptions &opt,
                              EncodeFunction &out, uint64_t &at) {
  at = cr.start;
  if (cr.cfa.expr.size() > kPcExpressionMax)
    return "CFA computed from the PC by an expression of more than " + std::to_string(kPcExpressionMax) + " bytes";
  if (fde.end - cr.start > kPcRangeMax) return "CFA computed from the PC over more than 1 MiB";
  std::vector<std::pair<uint32_t, int64_t>> cfa;
  for (uint64_t pc = cr.start; pc < fde.end; pc++) {
    uint32_t reg = 0;
    int64_t offset = 0;
    at = pc;
    if (!cfa_expression_at(cr.cfa.expr, opt.abi, pc, reg, offset)) return "CFA computed by a DWARF expression";
    cfa.push_back({reg, offset});
  }
  // The smallest period: the least p with cfa[i] == cfa[i - p] for every i >= p (so cfa[i] ==
  // cfa[i % p]), the size less the longest border, from the prefix function: linear time.
  // cfa.size() when none is smaller.
  std::vector<uint32_t> border(cfa.size(), 0);
  for (size_t i = 1; i < cfa.size(); i++) {
    uint32_t k = border[i - 1];
    while (k > 0 && cfa[i] != cfa[k]) k = border[k - 1];
    border[i] = k + (cfa[i] == cfa[k] ? 1 : 0);
  }
  size_t period = cfa.size() - (cfa.empty() ? 0 : border.back());
  bool repeats = period < cfa.size();
  if (repeats && period > UINT8_MAX) return "CFA repeats in blocks larger than 255 bytes";
  out.start = cr.start;
  out.size = uint32_t(fde.end - cr.start);
  out.repeat = repeats ? uint8_t(period) : 0;
  out.signal = fde.signal_frame;
  out.pauth_key_b = fde.pauth_key_b;
  at = cr.start;
  if (const char *why = repeat_refusal(opt, out.repeat)) return why;
  for (size_t k = 0; k < (repeats ? period : cfa.size()); k++) {
    at = cr.start + k;
    cfi::Row here = cr;  // the expression's value at this PC, as a rule
    here.start = cr.start + k;
    here.cfa = CfaRule{CfaRule::kRegOffset, cfa[k].first, cfa[k].second, {}};
    sfu_row row;
    if (std::string why = translate(fde, here, opt.abi, row); !why.empty()) return why;
    row.row_start = uint32_t(k);
    if (const char *why = encode_refusal(opt, row, out.signal)) return why;
    if (!out.rows.empty() && sframe::same_rules(out.rows.back(), row)) continue;
    out.rows.push_back(row);
  }
  return "";
}

// One function, or the reason it is left out. A CFA computed from the PC, as its last rule, makes
// a second function of its range (the PLT: the first entry's ordinary rows, then the others' one
// repeating block, as ld describes it and gas writes it).
std::string convert(const cfi::Fde &fde, const EncodeOptions &opt, std::vector<EncodeFunction> &fns, uint64_t &at) {
  at = fde.start;
  if (fde.end - fde.start > UINT32_MAX) return "function larger than 4 GiB";
  EncodeFunction fn, block;
  fn.start = fde.start;
  fn.size = uint32_t(fde.end - fde.start);
  fn.signal = fde.signal_frame;
  fn.pauth_key_b = fde.pauth_key_b;
  for (size_t i = 0; i < fde.rows.size(); i++) {
    const cfi::Row &cr = fde.rows[i];
    at = cr.start;
    if (pc_dependent_cfa(cr)) {
      if (i + 1 < fde.rows.size()) return "CFA computed by a DWARF expression";
      if (std::string why = pc_dependent_rows(fde, cr, opt, block, at); !why.empty()) return why;
      fn.size = uint32_t(cr.start - fde.start);
      break;
    }
    sfu_row row;
    if (std::string why = translate(fde, cr, opt.abi, row); !why.empty()) return why;
    if (const char *why = encode_refusal(opt, row, fn.signal)) return why;
    if (!fn.rows.empty() && sframe::same_rules(fn.rows.back(), row)) continue;
    fn.rows.push_back(row);
  }
  if (fn.rows.empty() && block.rows.empty()) return "no rows";
  if (!fn.rows.empty()) fns.push_back(std::move(fn));
  if (!block.rows.empty()) fns.push_back(std::move(block));
  return "";
}

}  // namespace

size_t Generated::rows() const {
  size_t n = 0;
  for (const EncodeFunction &f : functions) n += f.rows.size();
  return n;
}

namespace {

// generate_rows; with `consumed`, each FDE's CFI rows are let go once converted.
void generate(const std::vector<cfi::Fde> &fdes, const EncodeOptions &opt, Generated &out,
              std::vector<cfi::Fde> *consumed) {
  out = Generated{};
  uint64_t covered_to = 0;  // end of the FDEs so far: they come sorted by start
  for (const cfi::Fde &fde : fdes) {
    if (fde.start >= fde.end) continue;
    LeftOut skip{fde.start, fde.end, fde.start, ""};
    std::vector<EncodeFunction> fns;
    bool overlaps = fde.start < covered_to;
    covered_to = std::max(covered_to, fde.end);
    if (overlaps)
      skip.reason = "overlaps another function";  // the CFI contradicts itself there
    else
      skip.reason = convert(fde, opt, fns, skip.at);
    if (skip.reason.empty())
      for (EncodeFunction &fn : fns) out.functions.push_back(std::move(fn));
    else
      out.left_out.push_back(std::move(skip));
    if (consumed) std::vector<cfi::Row>().swap((*consumed)[size_t(&fde - fdes.data())].rows);
  }
}

}  // namespace

void generate_rows(const std::vector<cfi::Fde> &fdes, const EncodeOptions &opt, Generated &out) {
  generate(fdes, opt, out, nullptr);
}

void generate_rows(std::vector<cfi::Fde> &&fdes, const EncodeOptions &opt, Generated &out) {
  generate(fdes, opt, out, &fdes);
}

}  // namespace sfu::tools
