// Range-by-range comparison of SFrame rows with CFI rows. The correspondence is written from the
// CFI side: for each SFrame rule kind, which CFI rules mean the same thing.
#include "tools/sframe/verify.h"

#include <algorithm>
#include <cstdio>

#include "sframe/format.h"
#include "tools/dwarf/image_cfi.h"
#include "tools/sframe/cfa_expression.h"

namespace sfu::tools {
namespace {

using cfi::RegRule;

std::string cfi_rule_text(const RegRule *c) {
  if (!c) return "same";
  char buf[48];
  switch (c->kind) {
    case RegRule::kSameValue: return "same";
    case RegRule::kUndefined: return "undefined";
    case RegRule::kOffset: snprintf(buf, sizeof buf, "[cfa%+lld]", (long long)c->value); break;
    case RegRule::kValOffset: snprintf(buf, sizeof buf, "cfa%+lld", (long long)c->value); break;
    case RegRule::kRegister: snprintf(buf, sizeof buf, "r%lld", (long long)c->value); break;
    case RegRule::kExpression: return "[expression]";
    case RegRule::kValExpression: return "expression";
    default: return "?";
  }
  return buf;
}

std::string cfi_row_text(const cfi::Fde &fde, const cfi::Row &row, uint8_t abi) {
  char cfa[48];
  if (row.cfa.kind == cfi::CfaRule::kRegOffset)
    snprintf(cfa, sizeof cfa, "r%u%+lld", row.cfa.reg, (long long)row.cfa.offset);
  else
    snprintf(cfa, sizeof cfa, "expression");
  std::string s = std::string("CFA ") + cfa + ", RA " + cfi_rule_text(row.rule(fde.ra_reg)) + ", FP " +
                  cfi_rule_text(row.rule(sframe::abi_fp_reg(abi)));
  if (const RegRule *sp = row.rule(sframe::abi_sp_reg(abi))) s += ", SP " + cfi_rule_text(sp);
  if (row.ra_signed) s += " (RA signed)";
  return s;
}

// An expression that is exactly "register + offset", optionally loaded.
bool expression_is(const std::vector<uint8_t> &expr, uint32_t reg, int64_t offset, bool deref) {
  uint32_t r;
  int64_t o;
  bool d;
  return cfi::simple_expression(expr, r, o, d) && r == reg && o == offset && d == deref;
}

bool row_agrees(const sfu_row &s, const cfi::Fde &fde, const cfi::Row &c, uint8_t abi) {
  const RegRule *ra = c.rule(fde.ra_reg);
  if (s.flags & SFU_ROW_OUTERMOST) return ra && ra->kind == RegRule::kUndefined;
  return cfa_agrees(s.cfa, c.cfa) && sp_follows_cfa(c, abi) && rule_agrees(s.ra, ra, fde.ra_reg) &&
         rule_agrees(s.fp, c.rule(sframe::abi_fp_reg(abi)), sframe::abi_fp_reg(abi)) &&
         bool(s.flags & SFU_ROW_RA_SIGNED) == c.ra_signed;
}

std::string fn_row_text(const SframeFunction &fn, uint64_t pc) {
  const sfu_row *s = sframe_row_at(fn, pc);
  return s ? row_text(*s) : "no SFrame row";
}

const cfi::Row &cfi_row_at(const cfi::Fde &fde, uint64_t pc) {
  auto it = std::upper_bound(fde.rows.begin(), fde.rows.end(), pc,
                             [](uint64_t p, const cfi::Row &r) { return p < r.start; });
  return it == fde.rows.begin() ? fde.rows.front() : *(it - 1);
}

// The CFI function against whatever SFrame functions cover its addresses (a linker may describe
// one CFI range, such as the PLT, with several SFrame functions).
void verify_function(const cfi::Fde &fde, const std::vector<SframeFunction> &sframe, uint8_t abi,
                     VerifyReport &out) {
  // Every address where either side's rules change, inside the CFI function.
  std::vector<uint64_t> points;
  for (const cfi::Row &r : fde.rows) points.push_back(r.start);
  auto inside = [&](uint64_t pc) { return pc > fde.start && pc < fde.end; };
  auto first = std::lower_bound(sframe.begin(), sframe.end(), fde.start,
                                [](const SframeFunction &f, uint64_t pc) { return f.start + f.size <= pc; });
  for (auto fn = first; fn != sframe.end() && fn->start < fde.end; ++fn) {
    if (inside(fn->start)) points.push_back(fn->start);
    if (inside(fn->start + fn->size)) points.push_back(fn->start + fn->size);
    if (!fn->pcmask) {
      for (const sfu_row &r : fn->rows)
        if (inside(fn->start + r.row_start)) points.push_back(fn->start + r.row_start);
      continue;
    }
    // PLT-like: rows repeat per entry and the CFI is an expression of the PC, so every address
    // the CFI function shares with it is a point of its own.
    for (uint64_t pc = std::max(fn->start, fde.start); pc < std::min(fn->start + fn->size, fde.end); pc++)
      points.push_back(pc);
  }
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  for (uint64_t pc : points) {
    const cfi::Row *c = &cfi_row_at(fde, pc);
    const SframeFunction *fn = sframe_function_at(sframe, pc);
    out.ranges++;
    cfi::Row at_pc;  // a PC-dependent CFA, evaluated at this pc
    std::string note;
    uint32_t reg = 0;
    int64_t offset = 0;
    bool deref = false;
    if (fn && fn->pcmask) {
      out.pcmask_addresses++;
      if (c->cfa.kind == cfi::CfaRule::kExpression && !cfi::simple_expression(c->cfa.expr, reg, offset, deref)) {
        if (!cfa_expression_at(c->cfa.expr, abi, pc, reg, offset)) {
          out.mismatches.push_back({pc, fn_row_text(*fn, pc), cfi_row_text(fde, *c, abi) + " (not evaluable)"});
          continue;
        }
        at_pc = *c;
        at_pc.cfa = cfi::CfaRule{cfi::CfaRule::kRegOffset, reg, offset, {}};
        c = &at_pc;
        note = " (CFA expression at this PC)";
      }
    }
    const sfu_row *s = fn ? sframe_row_at(*fn, pc) : nullptr;
    if (!s)
      out.mismatches.push_back({pc, "no SFrame row", cfi_row_text(fde, *c, abi) + note});
    else if (!row_agrees(*s, fde, *c, abi))
      out.mismatches.push_back({pc, row_text(*s), cfi_row_text(fde, *c, abi) + note});
  }
}

}  // namespace

bool cfa_agrees(const sfu_rule &s, const cfi::CfaRule &c) {
  bool reg_offset = c.kind == cfi::CfaRule::kRegOffset;
  switch (s.kind) {
    case SFU_RULE_REGISTER:
      return reg_offset ? c.reg == s.reg && c.offset == s.offset : expression_is(c.expr, s.reg, s.offset, false);
    case SFU_RULE_AT_REGISTER:
      return !reg_offset && expression_is(c.expr, s.reg, s.offset, true);
    default:
      return false;
  }
}

bool rule_agrees(const sfu_rule &s, const RegRule *c, uint32_t reg) {
  switch (s.kind) {
    case SFU_RULE_UNCHANGED:
      return !c || c->kind == RegRule::kSameValue || (c->kind == RegRule::kRegister && c->value == reg);
    case SFU_RULE_UNDEFINED:
      return c && c->kind == RegRule::kUndefined;
    case SFU_RULE_AT_CFA:
      return c && c->kind == RegRule::kOffset && c->value == s.offset;
    case SFU_RULE_CFA_PLUS:
      return c && c->kind == RegRule::kValOffset && c->value == s.offset;
    case SFU_RULE_REGISTER:
      if (c && c->kind == RegRule::kRegister && s.offset == 0) return c->value == s.reg;
      return c && c->kind == RegRule::kValExpression && expression_is(c->expr, s.reg, s.offset, false);
    case SFU_RULE_AT_REGISTER:
      return c && c->kind == RegRule::kExpression && expression_is(c->expr, s.reg, s.offset, false);
    default:
      return false;
  }
}

void verify_rows(const std::vector<cfi::Fde> &fdes, const std::vector<SframeFunction> &sframe, uint8_t abi,
                 VerifyReport &out) {
  out = VerifyReport{};
  for (const cfi::Fde &fde : fdes) {
    if (fde.rows.empty()) continue;
    out.functions++;
    // Not covered: no SFrame function anywhere in the CFI function's range.
    auto fn = std::lower_bound(sframe.begin(), sframe.end(), fde.start,
                               [](const SframeFunction &f, uint64_t pc) { return f.start + f.size <= pc; });
    if (fn == sframe.end() || fn->start >= fde.end)
      out.not_covered.push_back(fde.start);
    else
      verify_function(fde, sframe, abi, out);
  }
}

}  // namespace sfu::tools
