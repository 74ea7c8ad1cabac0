// Breakpad's postfix expressions (the rules of STACK CFI records, the programs of STACK WIN ones),
// evaluated as Breakpad's processor evaluates them (src/processor/postfix_evaluator-inl.h), on
// 64-bit values. Shared by `sfu stackwalk` and anything else that needs a .sym file's rules
// applied: this file knows nothing of walks, only expressions.
//
//   Values values = {{"$rsp", 0x7ff0}};
//   uint64_t cfa;
//   std::string why;
//   if (!postfix_value("$rsp 16 +", values, &memory, cfa, &why)) ...   // cfa = 0x8000
//
// Tokens are separated by white space. An operator pops its operands and pushes its result;
// anything else is pushed as it is: a literal, or an identifier resolved when it is popped.
//   + - * / %     binary, on the two values below the top (a b - is a - b), wrapping mod 2^64
//   @             a b @ is a aligned down to b: a & ~(b - 1)
//   ^             pops an address, pushes the 8 bytes of memory there
//   =             pops a value, then an identifier starting with '$', and assigns it (programs
//                 only; "=$x" smashed against the next token is read as "=" then "$x")
// A literal is decimal digits, with Breakpad's signs: an optional '-', then an optional '+' or
// '-', each '-' negating (mod 2^64); digits that overflow 64 bits make an identifier instead. Any
// other token is an identifier; popping one that has no value is an error.
//
// Where Breakpad's behaviour is undefined these refuse instead: division or remainder by zero,
// and '=' whose target is a negative literal.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

namespace sfu::tools::breakpad {

// Named values: registers ("$rsp", "x29", "sp"), pseudo-registers (".cfa", ".ra"), variables.
using Values = std::map<std::string, uint64_t>;

// What '^' reads. Implementations decide the byte order (our targets' dumps are little-endian).
class Memory {
 public:
  virtual ~Memory() = default;
  virtual bool read64(uint64_t address, uint64_t &value) const = 0;
};

// Evaluates `expression`, which must leave exactly one value: Breakpad's EvaluateForValue, as
// STACK CFI rules are evaluated. `memory` may be null (then '^' is an error). On failure returns
// false and, when `why` is given, says why in a few words naming the token.
bool postfix_value(const std::string &expression, const Values &values, const Memory *memory, uint64_t &out,
                   std::string *why = nullptr);

// Runs `program`, a sequence of assignments, which must leave nothing on the stack: Breakpad's
// Evaluate, as STACK WIN programs are run. Assignments go into `values` as they happen (also when
// a later token fails); `assigned`, if given, gets every name assigned.
bool postfix_run(const std::string &program, Values &values, const Memory *memory,
                 std::set<std::string> *assigned = nullptr, std::string *why = nullptr);

// Whether `token` is a literal by the rule above, and its value.
bool postfix_literal(const std::string &token, uint64_t &value);

}  // namespace sfu::tools::breakpad
