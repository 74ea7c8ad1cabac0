// STACK CFI rule sets (cfi_rules.h).
#include "tools/breakpad/cfi_rules.h"

namespace sfu::tools::breakpad {
namespace {

bool is_break(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

bool set_why(std::string *why, const std::string &what) {
  if (why) *why = what;
  return false;
}

// One finished "name: expression" pair into the rules.
bool report(const std::string &name, const std::string &expression, CfiRules &rules, std::string *why) {
  if (name.empty()) return set_why(why, "an expression with no register name before it: '" + expression + "'");
  if (expression.empty()) return set_why(why, "'" + name + ":' has no expression");
  if (name == ".cfa")
    rules.cfa = expression;
  else if (name == ".ra")
    rules.ra = expression;
  else
    rules.registers[name] = expression;
  return true;
}

}  // namespace

bool parse_cfi_rules(const std::string &text, CfiRules &rules, std::string *why) {
  std::string name, expression;
  size_t at = 0;
  for (;;) {
    while (at < text.size() && is_break(text[at])) at++;
    if (at == text.size()) return report(name, expression, rules, why);
    size_t end = at;
    while (end < text.size() && !is_break(text[end])) end++;
    std::string token = text.substr(at, end - at);
    at = end;
    if (token.back() == ':') {
      if (token.size() < 2) return set_why(why, "a ':' with no register name");
      if ((!name.empty() || !expression.empty()) && !report(name, expression, rules, why)) return false;
      name = token.substr(0, token.size() - 1);
      expression.clear();
    } else {
      if (!expression.empty()) expression += ' ';
      expression += token;
    }
  }
}

bool cfi_caller_registers(const CfiRules &rules, const Values &callee, const Memory &memory, Values &caller,
                          std::string *why) {
  caller.clear();
  if (rules.cfa.empty()) return set_why(why, "no .cfa rule");
  if (rules.ra.empty()) return set_why(why, "no .ra rule");
  std::string detail;
  uint64_t cfa = 0, ra = 0;
  if (!postfix_value(rules.cfa, callee, &memory, cfa, &detail)) return set_why(why, ".cfa: " + detail);
  Values working = callee;
  working[".cfa"] = cfa;
  if (!postfix_value(rules.ra, working, &memory, ra, &detail)) return set_why(why, ".ra: " + detail);
  for (const auto &[name, expression] : rules.registers) {
    uint64_t value = 0;
    if (postfix_value(expression, working, &memory, value)) caller[name] = value;
  }
  caller[".ra"] = ra;
  caller[".cfa"] = cfa;
  return true;
}

}  // namespace sfu::tools::breakpad
