// Breakpad's postfix evaluator, written from its documented behaviour (postfix.h).
#include "tools/breakpad/postfix.h"

#include <cstdio>
#include <vector>

#include "tools/text/format.h"

namespace sfu::tools::breakpad {
namespace {

// A stack entry: a value, or an identifier looked up when it is popped.
struct Entry {
  bool is_value = false;
  uint64_t value = 0;
  std::string name;
};

class Evaluator {
 public:
  Evaluator(Values &values, const Memory *memory, std::set<std::string> *assigned, std::string *why)
      : values_(values), memory_(memory), assigned_(assigned), why_(why) {}

  bool run(const std::string &text) {
    size_t at = 0;
    while (at < text.size()) {
      while (at < text.size() && is_space(text[at])) at++;
      size_t end = at;
      while (end < text.size() && !is_space(text[end])) end++;
      if (end == at) break;
      std::string token = text.substr(at, end - at);
      at = end;
      // "=$x": an assignment smashed against the next token.
      if (token.size() > 1 && token[0] == '=') {
        if (!step("=") || !step(token.substr(1))) return false;
      } else if (!step(token)) {
        return false;
      }
    }
    return true;
  }

  size_t depth() const { return stack_.size(); }

  // Pops the top as a value (an identifier resolved through `values`).
  bool pop_value(uint64_t &out, const std::string &for_what) {
    if (stack_.empty()) return fail(for_what + " needs a value and the stack is empty");
    Entry e = stack_.back();
    stack_.pop_back();
    if (e.is_value) {
      out = e.value;
      return true;
    }
    auto it = values_.find(e.name);
    if (it == values_.end()) return fail("'" + e.name + "' has no value");
    out = it->second;
    return true;
  }

  bool fail(const std::string &what) {
    if (why_ && why_->empty()) *why_ = what;
    return false;
  }

 private:
  static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

  void push(uint64_t v) { stack_.push_back(Entry{true, v, ""}); }

  bool step(const std::string &token) {
    if (token.size() == 1 && std::string("+-*/%@").find(token[0]) != std::string::npos) {
      uint64_t a = 0, b = 0;
      if (!pop_value(b, "'" + token + "'") || !pop_value(a, "'" + token + "'")) return false;
      switch (token[0]) {
        case '+': push(a + b); break;
        case '-': push(a - b); break;
        case '*': push(a * b); break;
        case '/':
          if (b == 0) return fail("'/' by zero");
          push(a / b);
          break;
        case '%':
          if (b == 0) return fail("'%' by zero");
          push(a % b);
          break;
        default: push(a & ~(b - 1)); break;  // '@'
      }
      return true;
    }
    if (token == "^") {
      if (!memory_) return fail("'^' with no memory to read");
      uint64_t address = 0, value = 0;
      if (!pop_value(address, "'^'")) return false;
      if (!memory_->read64(address, value)) return fail("'^' cannot read memory at " + hex(address));
      push(value);
      return true;
    }
    if (token == "=") {
      uint64_t value = 0;
      if (!pop_value(value, "'='")) return false;
      if (stack_.empty()) return fail("'=' needs a name to assign to");
      Entry target = stack_.back();
      stack_.pop_back();
      if (target.is_value) return fail("'=' needs a name to assign to, not a value");
      if (target.name.empty() || target.name[0] != '$') return fail("'=' cannot assign to '" + target.name + "'");
      values_[target.name] = value;
      if (assigned_) assigned_->insert(target.name);
      return true;
    }
    uint64_t literal = 0;
    if (postfix_literal(token, literal))
      push(literal);
    else
      stack_.push_back(Entry{false, 0, token});
    return true;
  }

  Values &values_;
  const Memory *memory_;
  std::set<std::string> *assigned_;
  std::string *why_;
  std::vector<Entry> stack_;
};

}  // namespace

bool postfix_literal(const std::string &token, uint64_t &value) {
  size_t at = 0;
  bool negate = false;
  if (at < token.size() && token[at] == '-') negate = !negate, at++;
  if (at < token.size() && (token[at] == '+' || token[at] == '-')) negate = token[at] == '-' ? !negate : negate, at++;
  if (at == token.size()) return false;
  uint64_t v = 0;
  for (; at < token.size(); at++) {
    char c = token[at];
    if (c < '0' || c > '9') return false;
    uint64_t digit = uint64_t(c - '0');
    if (v > (UINT64_MAX - digit) / 10) return false;  // overflows: an identifier
    v = v * 10 + digit;
  }
  value = negate ? 0 - v : v;
  return true;
}

bool postfix_value(const std::string &expression, const Values &values, const Memory *memory, uint64_t &out,
                   std::string *why) {
  if (why) why->clear();
  Values working = values;
  Evaluator e(working, memory, nullptr, why);
  if (!e.run(expression)) return false;
  if (e.depth() != 1)
    return e.fail("'" + expression + "' leaves " + std::to_string(e.depth()) + " values, not one");
  return e.pop_value(out, "the result");
}

bool postfix_run(const std::string &program, Values &values, const Memory *memory, std::set<std::string> *assigned,
                 std::string *why) {
  if (why) why->clear();
  Evaluator e(values, memory, assigned, why);
  if (!e.run(program)) return false;
  if (e.depth() != 0) return e.fail("'" + program + "' leaves " + std::to_string(e.depth()) + " values unused");
  return true;
}

}  // namespace sfu::tools::breakpad
