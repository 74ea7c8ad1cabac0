#include "support/objdump_rows.h"

#include "sframe/rule.h"

#include <cstdio>
#include <cstdlib>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace sfu::test {
namespace {

int reg_number(const std::string &name, uint8_t abi) {
  bool arm = abi == SFU_ABI_AARCH64_BE || abi == SFU_ABI_AARCH64_LE;
  bool s390 = abi == SFU_ABI_S390X_BE;
  if (name == "sp") return arm ? 31 : s390 ? 15 : 7;
  if (name == "fp") return arm ? 29 : s390 ? 11 : 6;
  if (name.size() > 1 && name[0] == 'r') return std::stoi(name.substr(1));
  throw std::runtime_error("unknown register name " + name);
}

// "sp+8", "(fp-8)", "r3+0", "c-16", "r16" (s390x V2 register), "u", "U", "f".
ExpectedRule parse_rule(const std::string &text, uint8_t abi, bool is_cfa) {
  static const std::regex disp(R"(^(\()?(sp|fp|c|r\d+)([+-]\d+)\)?$)");
  static const std::regex bare_reg(R"(^r(\d+)$)");
  std::smatch m;
  ExpectedRule e{};
  if (std::regex_match(text, m, disp)) {
    bool deref = m[1].matched;
    int64_t off = std::stoll(m[3].str());
    if (m[2] == "c") {
      // objdump prints a CFA-based flex rule the same way whether it loads or not.
      e.rule = sframe::make_rule(SFU_RULE_AT_CFA, 0, off);
      e.has_alt = true;
      e.alt = sframe::make_rule(SFU_RULE_CFA_PLUS, 0, off);
      return e;
    }
    int reg = reg_number(m[2].str(), abi);
    e.rule = sframe::make_rule(deref ? SFU_RULE_AT_REGISTER : SFU_RULE_REGISTER, reg, off);
    (void)is_cfa;
    return e;
  }
  if (std::regex_match(text, m, bare_reg)) {
    e.rule = sframe::make_rule(SFU_RULE_REGISTER, std::stoi(m[1].str()), 0);
    return e;
  }
  throw std::runtime_error("cannot read rule text '" + text + "'");
}

}  // namespace

std::vector<ObjdumpFunction> parse_objdump_functions(const std::string &text) {
  static const std::regex func(
      R"re(^\s*func idx \[\d+\]: pc = 0x([0-9a-f]+), size = (\d+) bytes(, attr = "([SF]*)")?(, pauth = B key)?\s*$)re");
  static const std::regex header(R"(^\s*STARTPC(\[m\])?\s+CFA\s+FP\s+RA\s*$)");
  static const std::regex undefined(R"(^\s*([0-9a-f]{16})\s+RA undefined\s*$)");
  static const std::regex row(R"(^\s*([0-9a-f]{16})\s+(\S+)\s+(\S+)\s+(\S+?)(\[s\])?\s*$)");
  std::vector<ObjdumpFunction> out;
  std::istringstream in(text);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, func)) {
      ObjdumpFunction f{};
      f.pc = std::stoull(m[1].str(), nullptr, 16);
      f.size = uint32_t(std::stoul(m[2].str()));
      f.attrs = m[4].matched ? m[4].str() : "";
      f.pauth_key_b = m[5].matched;
      out.push_back(f);
    } else if (std::regex_match(line, m, header)) {
      if (out.empty()) throw std::runtime_error("STARTPC before any func idx");
      out.back().pcmask = m[1].matched;
    } else if (std::regex_match(line, m, undefined)) {
      ObjdumpRow r{};
      r.address = std::stoull(m[1].str(), nullptr, 16);
      r.ra_undefined = true;
      out.back().rows.push_back(r);
    } else if (std::regex_match(line, m, row)) {
      ObjdumpRow r{};
      r.address = std::stoull(m[1].str(), nullptr, 16);
      r.cfa = m[2];
      r.fp = m[3];
      r.ra = m[4];
      r.ra_signed = m[5].matched;
      out.back().rows.push_back(r);
    }
  }
  return out;
}

ExpectedRow expected_rules(const ObjdumpRow &row, uint8_t abi, int8_t fixed_ra, int8_t fixed_fp) {
  ExpectedRow e{};
  e.ra_signed = row.ra_signed;
  if (row.ra_undefined) {
    e.outermost = true;
    e.cfa.rule = sframe::make_rule(SFU_RULE_UNDEFINED, 0, 0);
    e.ra.rule = sframe::make_rule(SFU_RULE_UNDEFINED, 0, 0);
    e.fp.rule = sframe::make_rule(SFU_RULE_UNCHANGED, 0, 0);
    return e;
  }
  e.cfa = parse_rule(row.cfa, abi, true);
  sfu_rule ra_default = fixed_ra ? sframe::make_rule(SFU_RULE_AT_CFA, 0, fixed_ra) : sframe::make_rule(SFU_RULE_UNCHANGED, 0, 0);
  sfu_rule fp_default = fixed_fp ? sframe::make_rule(SFU_RULE_AT_CFA, 0, fixed_fp) : sframe::make_rule(SFU_RULE_UNCHANGED, 0, 0);
  // "f": the header's fixed offset; "u": no rule (binutils 2.40 printed AMD64's fixed RA as
  // "u" too); "U": a padding word, no rule of its own.
  if (row.ra == "f" || row.ra == "u" || row.ra == "U")
    e.ra.rule = ra_default;
  else
    e.ra = parse_rule(row.ra, abi, false);
  if (row.fp == "u")
    e.fp.rule = fp_default;
  else
    e.fp = parse_rule(row.fp, abi, false);
  return e;
}

bool rule_matches(const ExpectedRule &want, const sfu_rule &got) {
  auto same = [](const sfu_rule &a, const sfu_rule &b) {
    if (a.kind != b.kind || a.offset != b.offset) return false;
    bool uses_reg = a.kind == SFU_RULE_REGISTER || a.kind == SFU_RULE_AT_REGISTER;
    return !uses_reg || a.reg == b.reg;
  };
  return same(want.rule, got) || (want.has_alt && same(want.alt, got));
}

std::string describe(const sfu_rule &r) {
  static const char *const kinds[] = {"unchanged", "undefined", "at-cfa", "cfa-plus", "register", "at-register"};
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s(reg %d, %+d)", r.kind < 6 ? kinds[r.kind] : "?", r.reg, r.offset);
  return buf;
}

}  // namespace sfu::test
