// Breakpad's postfix expressions and STACK CFI rule sets (tools/breakpad/postfix.h, cfi_rules.h):
// every operator, literal forms as Breakpad reads them, assignments, and each refusal with what
// it says; rule sets parsed, replaced by later ones and applied as Breakpad's FindCallerRegs does.
#include <gtest/gtest.h>

#include "tools/breakpad/cfi_rules.h"
#include "tools/breakpad/postfix.h"

using namespace sfu::tools::breakpad;

namespace {

// 8-byte little-endian words at fixed addresses.
class WordMemory : public Memory {
 public:
  std::map<uint64_t, uint64_t> words;
  bool read64(uint64_t address, uint64_t &value) const override {
    auto it = words.find(address);
    if (it == words.end()) return false;
    value = it->second;
    return true;
  }
};

uint64_t value_of(const std::string &e, const Values &v = {}, const Memory *m = nullptr) {
  uint64_t out = 0;
  std::string why;
  EXPECT_TRUE(postfix_value(e, v, m, out, &why)) << e << ": " << why;
  return out;
}

std::string refusal(const std::string &e, const Values &v = {}, const Memory *m = nullptr) {
  uint64_t out = 0;
  std::string why;
  EXPECT_FALSE(postfix_value(e, v, m, out, &why)) << e;
  return why;
}

TEST(BreakpadPostfix, EveryOperator) {
  EXPECT_EQ(value_of("7 5 +"), 12u);
  EXPECT_EQ(value_of("7 5 -"), 2u);
  EXPECT_EQ(value_of("5 7 -"), uint64_t(-2));  // wraps, as Breakpad's unsigned values do
  EXPECT_EQ(value_of("7 5 *"), 35u);
  EXPECT_EQ(value_of("17 5 /"), 3u);
  EXPECT_EQ(value_of("17 5 %"), 2u);
  EXPECT_EQ(value_of("4103 16 @"), 4096u);  // aligned down
  EXPECT_EQ(value_of("4096 16 @"), 4096u);
  WordMemory mem;
  mem.words[0x1000] = 0xfeedface;
  EXPECT_EQ(value_of("4096 ^", {}, &mem), 0xfeedfaceu);
  EXPECT_EQ(value_of("$sp 8 + ^", {{"$sp", 0xff8}}, &mem), 0xfeedfaceu);
  // Tokens may be separated by any white space.
  EXPECT_EQ(value_of(" 1\t2\n+ "), 3u);
}

TEST(BreakpadPostfix, LiteralsAsBreakpadReadsThem) {
  uint64_t v = 0;
  EXPECT_TRUE(postfix_literal("0", v) && v == 0);
  EXPECT_TRUE(postfix_literal("05", v) && v == 5);
  EXPECT_TRUE(postfix_literal("-8", v) && v == uint64_t(-8));
  EXPECT_TRUE(postfix_literal("+8", v) && v == 8);
  EXPECT_TRUE(postfix_literal("--8", v) && v == 8);  // two negations
  EXPECT_TRUE(postfix_literal("-+8", v) && v == uint64_t(-8));
  EXPECT_TRUE(postfix_literal("18446744073709551615", v) && v == UINT64_MAX);
  EXPECT_TRUE(postfix_literal("-18446744073709551615", v) && v == 1);
  for (const char *not_literal : {"18446744073709551616", "+-8", "0x10", "1e3", "-", "+", "", "$rsp", ".cfa", "8a"})
    EXPECT_FALSE(postfix_literal(not_literal, v)) << not_literal;
  // An overflowing number is an identifier: it has no value.
  EXPECT_EQ(refusal("18446744073709551616"), "'18446744073709551616' has no value");
}

TEST(BreakpadPostfix, Identifiers) {
  Values v{{"$rsp", 0x7000}, {".cfa", 0x7010}, {"x29", 5}};
  EXPECT_EQ(value_of("$rsp", v), 0x7000u);
  EXPECT_EQ(value_of(".cfa -16 +", v), 0x7000u);
  EXPECT_EQ(value_of("x29 x29 *", v), 25u);
  EXPECT_EQ(refusal("$rbp 8 +", v), "'$rbp' has no value");
  EXPECT_EQ(refusal(".undef", v), "'.undef' has no value");
}

TEST(BreakpadPostfix, Assignments) {
  Values v{{"$ebp", 0x100}};
  WordMemory mem;
  mem.words[0x104] = 0xabc;
  mem.words[0x100] = 0x200;
  std::set<std::string> assigned;
  std::string why;
  ASSERT_TRUE(postfix_run("$T0 $ebp = $eip $T0 4 + ^ = $ebp $T0 ^ =", v, &mem, &assigned, &why)) << why;
  EXPECT_EQ(v["$T0"], 0x100u);
  EXPECT_EQ(v["$eip"], 0xabcu);
  EXPECT_EQ(v["$ebp"], 0x200u);
  EXPECT_EQ(assigned, (std::set<std::string>{"$T0", "$eip", "$ebp"}));
  // "=$x" smashed against the next token, as MSVC writes it.
  Values w{{"$ebp", 0x100}};
  ASSERT_TRUE(postfix_run("$T0 $ebp =$eip $T0 4 + ^ =", w, &mem, nullptr, &why)) << why;
  EXPECT_EQ(w["$eip"], 0xabcu);
  // An expression may assign before it gives its value; the caller's values stay untouched.
  Values x{{"$a", 1}};
  EXPECT_EQ(value_of("$b 5 = $b $a +", x), 6u);
  EXPECT_EQ(x.count("$b"), 0u);
}

TEST(BreakpadPostfix, Refusals) {
  WordMemory mem;
  EXPECT_EQ(refusal("+"), "'+' needs a value and the stack is empty");
  EXPECT_EQ(refusal("1 +"), "'+' needs a value and the stack is empty");
  EXPECT_EQ(refusal("1 0 /"), "'/' by zero");
  EXPECT_EQ(refusal("1 0 %"), "'%' by zero");
  EXPECT_EQ(refusal("8 ^"), "'^' with no memory to read");
  EXPECT_EQ(refusal("8 ^", {}, &mem), "'^' cannot read memory at 0x8");
  EXPECT_EQ(refusal("^", {}, &mem), "'^' needs a value and the stack is empty");
  EXPECT_EQ(refusal("1 2"), "'1 2' leaves 2 values, not one");
  EXPECT_EQ(refusal(""), "'' leaves 0 values, not one");
  EXPECT_EQ(refusal("$a 1 = "), "'$a 1 = ' leaves 0 values, not one");
  EXPECT_EQ(refusal("5 1 = 1"), "'=' needs a name to assign to, not a value");
  EXPECT_EQ(refusal("-5 1 = 1"), "'=' needs a name to assign to, not a value");
  EXPECT_EQ(refusal("x 1 = 1"), "'=' cannot assign to 'x'");
  EXPECT_EQ(refusal("1 ="), "'=' needs a name to assign to");
  Values v;
  std::string why;
  EXPECT_FALSE(postfix_run("$a 1 = 2", v, nullptr, nullptr, &why));
  EXPECT_EQ(why, "'$a 1 = 2' leaves 1 values unused");
  EXPECT_EQ(v["$a"], 1u);  // assigned before the failure, as Breakpad's dictionary keeps it
}

TEST(BreakpadCfiRules, ParseReplaceAndRefuse) {
  CfiRules r;
  std::string why;
  ASSERT_TRUE(parse_cfi_rules(".cfa: $rsp 8 + .ra: .cfa -8 + ^", r, &why)) << why;
  EXPECT_EQ(r.cfa, "$rsp 8 +");
  EXPECT_EQ(r.ra, ".cfa -8 + ^");
  ASSERT_TRUE(parse_cfi_rules("$rbp: .cfa -16 + ^  .cfa:\t$rsp 16 +", r, &why)) << why;
  EXPECT_EQ(r.cfa, "$rsp 16 +");  // replaced; .ra kept
  EXPECT_EQ(r.ra, ".cfa -8 + ^");
  EXPECT_EQ(r.registers.at("$rbp"), ".cfa -16 + ^");

  CfiRules bad;
  EXPECT_FALSE(parse_cfi_rules("", bad, &why));
  EXPECT_EQ(why, "an expression with no register name before it: ''");
  EXPECT_FALSE(parse_cfi_rules("$rsp 8 + .cfa: 1", bad, &why));
  EXPECT_EQ(why, "an expression with no register name before it: '$rsp 8 +'");
  EXPECT_FALSE(parse_cfi_rules(".cfa: $rsp .ra:", bad, &why));
  EXPECT_EQ(why, "'.ra:' has no expression");
  EXPECT_EQ(bad.cfa, "$rsp");  // the rules before the bad one stay, as in Breakpad
  EXPECT_FALSE(parse_cfi_rules(".cfa: 1 : 2", bad, &why));
  EXPECT_EQ(why, "a ':' with no register name");
}

TEST(BreakpadCfiRules, CallerRegisters) {
  WordMemory mem;
  mem.words[0x7008] = 0x401234;  // return address
  mem.words[0x7000] = 0x7100;    // saved rbp
  CfiRules r;
  ASSERT_TRUE(parse_cfi_rules(".cfa: $rsp 16 + .ra: .cfa -8 + ^ $rbp: .cfa -16 + ^ $rbx: $nope", r));
  Values callee{{"$rsp", 0x7000}, {"$rbx", 3}}, caller;
  std::string why;
  ASSERT_TRUE(cfi_caller_registers(r, callee, mem, caller, &why)) << why;
  EXPECT_EQ(caller.at(".cfa"), 0x7010u);
  EXPECT_EQ(caller.at(".ra"), 0x401234u);
  EXPECT_EQ(caller.at("$rbp"), 0x7100u);
  EXPECT_EQ(caller.count("$rbx"), 0u);  // its rule fails: left out, not an error
  EXPECT_EQ(caller.count("$rsp"), 0u);  // no rule: the walker decides

  // Each rule sees the callee's values, not another rule's result.
  CfiRules order;
  ASSERT_TRUE(parse_cfi_rules(".cfa: $rsp .ra: 1 $rsp: 99 $rax: $rsp", order));
  ASSERT_TRUE(cfi_caller_registers(order, callee, mem, caller));
  EXPECT_EQ(caller.at("$rax"), 0x7000u);

  CfiRules no_ra;
  ASSERT_TRUE(parse_cfi_rules(".cfa: $rsp 8 +", no_ra));
  EXPECT_FALSE(cfi_caller_registers(no_ra, callee, mem, caller, &why));
  EXPECT_EQ(why, "no .ra rule");
  CfiRules undef;
  ASSERT_TRUE(parse_cfi_rules(".cfa: $rsp 8 + .ra: .undef", undef));
  EXPECT_FALSE(cfi_caller_registers(undef, callee, mem, caller, &why));
  EXPECT_EQ(why, ".ra: '.undef' has no value");
  CfiRules unreadable;
  ASSERT_TRUE(parse_cfi_rules(".cfa: $rsp 64 + .ra: .cfa -8 + ^", unreadable));
  EXPECT_FALSE(cfi_caller_registers(unreadable, callee, mem, caller, &why));
  EXPECT_EQ(why, ".ra: '^' cannot read memory at 0x7038");
  CfiRules no_cfa;
  ASSERT_TRUE(parse_cfi_rules(".ra: 1", no_cfa));
  EXPECT_FALSE(cfi_caller_registers(no_cfa, callee, mem, caller, &why));
  EXPECT_EQ(why, "no .cfa rule");
}

}  // namespace
