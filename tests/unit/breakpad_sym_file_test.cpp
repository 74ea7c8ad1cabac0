// The .sym reader (tools/breakpad/sym_file.h): every record kind read and answered as Breakpad's
// resolver answers (functions, lines, inlined chains, PUBLIC bounded by the FUNC below, STACK CFI
// INIT with later records applied), what Breakpad drops silently dropped too, and every malformed
// line refused with its file and line number.
#include <gtest/gtest.h>

#include "tools/breakpad/sym_file.h"

using namespace sfu::tools::breakpad;

namespace {

const char kSym[] =
    "MODULE Linux x86_64 E296CD1111192F2D52B9B1B3169737850 kernel.elf\n"
    "INFO CODE_ID 11CD96E219112D2F52B9B1B316973785489C7D52\n"
    "FILE 0 /src/a.c\n"
    "FILE 1 /src/b h.h\n"  // names may hold spaces
    "INLINE_ORIGIN 0 inner\n"
    "INLINE_ORIGIN 1 middle(int, char)\n"
    "INLINE_ORIGIN 2 1 old_form_origin\n"
    "FUNC 1000 40 0 outer\n"
    "1000 10 10 0\n"
    "1010 20 11 0\n"
    "1030 10 12 7\n"  // an unknown file: the line without a file name
    "INLINE 0 20 0 1 1010 20\n"
    "INLINE 1 30 1 0 1018 8\n"
    "INLINE 5 40 0 0 1018 4\n"  // nested deeper than one below the last: dropped, as Breakpad does
    "FUNC 1008 10 0 overlapping\n"  // overlaps outer: dropped
    "FUNC m 1100 20 0 folded\n"
    "1100 20 5 1\n"
    "1100 8 6 0\n"  // overlaps the line before: dropped
    "FUNC 1180 0 0 empty\n"  // size 0: dropped
    "PUBLIC 0 0 at_zero\n"  // address 0: dropped
    "PUBLIC 1200 0 public_one\n"
    "PUBLIC 1200 0 second_at_1200\n"  // the first at an address stays
    "PUBLIC m 1300 4 public_two\n"
    "\n"  // empty lines are skipped
    "STACK CFI INIT 1000 40 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"
    "STACK CFI 1001 .cfa: $rsp 16 + $rbp: .cfa -16 + ^\n"
    "STACK CFI 1004 .cfa: $rbp 16 +\n"
    "STACK CFI INIT 1010 10 .cfa: $rsp .ra: 0\n"  // overlaps: dropped
    "STACK CFI INIT 1100 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^\r\n"  // CRLF is fine
    "STACK WIN 4 1000 40 0 0 0 0 0 0 1 $T0 .raSearch = $eip $T0 ^ =\n";

SymbolFile loaded(const std::string &text = kSym) {
  SymbolFile f;
  std::string error;
  EXPECT_TRUE(f.load(text, "t.sym", error)) << error;
  return f;
}

TEST(BreakpadSymFile, ModuleAndInfo) {
  SymbolFile f = loaded();
  EXPECT_EQ(f.os(), "Linux");
  EXPECT_EQ(f.arch(), "x86_64");
  EXPECT_EQ(f.id(), "E296CD1111192F2D52B9B1B3169737850");
  EXPECT_EQ(f.module_name(), "kernel.elf");
  EXPECT_EQ(f.code_id(), "11CD96E219112D2F52B9B1B316973785489C7D52");
  EXPECT_EQ(f.lowest_address(), 0x1000u);
}

TEST(BreakpadSymFile, FunctionsAndLines) {
  SymbolFile f = loaded();
  SymbolAt a = f.lookup(0x1004);
  EXPECT_TRUE(a.has_function);
  EXPECT_EQ(a.function, "outer");
  EXPECT_EQ(a.function_base, 0x1000u);
  EXPECT_TRUE(a.has_line);
  EXPECT_EQ(a.file, "/src/a.c");
  EXPECT_EQ(a.line, 10);
  EXPECT_EQ(a.line_base, 0x1000u);
  EXPECT_TRUE(a.inlines.empty());
  SymbolAt unknown_file = f.lookup(0x1035);
  EXPECT_TRUE(unknown_file.has_line);
  EXPECT_EQ(unknown_file.file, "");
  EXPECT_EQ(unknown_file.line, 12);
  SymbolAt folded = f.lookup(0x1104);
  EXPECT_EQ(folded.function, "folded");
  EXPECT_EQ(folded.file, "/src/b h.h");
  EXPECT_EQ(folded.line, 5);  // the overlapping line record was dropped
  EXPECT_FALSE(f.lookup(0x0fff).has_function);
  EXPECT_FALSE(f.lookup(0x1180).has_function);  // the empty FUNC was dropped
}

TEST(BreakpadSymFile, InlineChains) {
  SymbolFile f = loaded();
  SymbolAt a = f.lookup(0x101a);
  ASSERT_EQ(a.inlines.size(), 2u);
  // Innermost first: each where its code is, the function's own frame at the outermost call.
  EXPECT_EQ(a.inlines[0].function, "inner");
  EXPECT_EQ(a.inlines[0].range_start, 0x1018u);
  EXPECT_EQ(a.inlines[0].file, "/src/a.c");
  EXPECT_EQ(a.inlines[0].line, 11);
  EXPECT_EQ(a.inlines[1].function, "middle(int, char)");
  EXPECT_EQ(a.inlines[1].range_start, 0x1010u);
  EXPECT_EQ(a.inlines[1].file, "/src/b h.h");
  EXPECT_EQ(a.inlines[1].line, 30);
  EXPECT_EQ(a.function, "outer");
  EXPECT_EQ(a.file, "/src/a.c");
  EXPECT_EQ(a.line, 20);
  SymbolAt b = f.lookup(0x1020);  // past inner's range: middle only
  ASSERT_EQ(b.inlines.size(), 1u);
  EXPECT_EQ(b.inlines[0].function, "middle(int, char)");
  EXPECT_EQ(b.inlines[0].line, 11);
  EXPECT_EQ(b.line, 20);

  // An origin no INLINE_ORIGIN names, and the old INLINE form (no call file: the line's).
  SymbolFile g = loaded(
      "FILE 0 x.c\nFUNC 0 10 0 f\n0 10 3 0\nINLINE 0 9 42 0 4\nINLINE_ORIGIN 2 1 old_form_origin\n");
  SymbolAt c = g.lookup(2);
  ASSERT_EQ(c.inlines.size(), 1u);
  EXPECT_EQ(c.inlines[0].function, "<name omitted>");
  SymbolFile h = loaded("FILE 0 x.c\nINLINE_ORIGIN 2 1 old_form_origin\nFUNC 0 10 0 f\n0 10 3 0\nINLINE 0 9 2 0 4\n");
  SymbolAt d = h.lookup(2);
  ASSERT_EQ(d.inlines.size(), 1u);
  EXPECT_EQ(d.inlines[0].function, "old_form_origin");
  EXPECT_EQ(d.file, "x.c");
  EXPECT_EQ(d.line, 9);
}

TEST(BreakpadSymFile, Publics) {
  SymbolFile f = loaded();
  SymbolAt p = f.lookup(0x1250);
  EXPECT_TRUE(p.has_function);
  EXPECT_TRUE(p.from_public);
  EXPECT_EQ(p.function, "public_one");
  EXPECT_EQ(p.function_base, 0x1200u);
  EXPECT_FALSE(p.has_line);
  EXPECT_EQ(f.lookup(0x9999).function, "public_two");
  // Between folded's end and the first PUBLIC: folded bounds any PUBLIC below it; there is none.
  EXPECT_FALSE(f.lookup(0x1150).has_function);
  // A PUBLIC below the nearest FUNC does not name what lies past that FUNC.
  SymbolFile g = loaded("PUBLIC 10 0 low\nFUNC 20 10 0 f\n");
  EXPECT_EQ(g.lookup(0x15).function, "low");
  EXPECT_FALSE(g.lookup(0x35).has_function);
  EXPECT_FALSE(loaded("PUBLIC 0 0 at_zero\n").lookup(4).has_function);
}

TEST(BreakpadSymFile, StackCfi) {
  SymbolFile f = loaded();
  CfiRules r;
  ASSERT_TRUE(f.cfi_rules(0x1000, r));
  EXPECT_EQ(r.cfa, "$rsp 8 +");
  EXPECT_TRUE(r.registers.empty());
  ASSERT_TRUE(f.cfi_rules(0x1003, r));
  EXPECT_EQ(r.cfa, "$rsp 16 +");
  EXPECT_EQ(r.registers.at("$rbp"), ".cfa -16 + ^");
  ASSERT_TRUE(f.cfi_rules(0x103f, r));
  EXPECT_EQ(r.cfa, "$rbp 16 +");
  EXPECT_EQ(r.ra, ".cfa -8 + ^");
  ASSERT_TRUE(f.cfi_rules(0x1100, r));  // the CRLF line's rules
  EXPECT_EQ(r.ra, ".cfa -8 + ^");
  EXPECT_FALSE(f.cfi_rules(0x1040, r));
  EXPECT_FALSE(f.cfi_rules(0x0fff, r));
}

// A valid start, then one bad line: refused at that line.
std::string refusal(const std::string &bad, const std::string &before = "FUNC 1000 40 0 f\n") {
  SymbolFile f;
  std::string error;
  EXPECT_FALSE(f.load("MODULE Linux x86_64 ID k\n" + before + bad + "\nFILE 0 after.c\n", "t.sym", error)) << bad;
  return error;
}

TEST(BreakpadSymFile, MalformedLines) {
  EXPECT_EQ(refusal("FUNC 1000 10 0"), "t.sym:3: FUNC needs an address, a size, a parameter size and a name");
  EXPECT_EQ(refusal("FUNC m 1000 10 name"), "t.sym:3: FUNC needs an address, a size, a parameter size and a name");
  EXPECT_EQ(refusal("FUNC zz 10 0 f"), "t.sym:3: FUNC address 'zz' is not a hex number");
  EXPECT_EQ(refusal("FUNC 10 1z 0 f"), "t.sym:3: FUNC size '1z' is not a hex number");
  EXPECT_EQ(refusal("FUNC 10 10 -1 f"), "t.sym:3: FUNC parameter size '-1' is not a hex number");
  EXPECT_EQ(refusal("FUNC -1 10 0 f"), "t.sym:3: FUNC address '-1' is not a hex number");
  EXPECT_EQ(refusal("PUBLIC 10 0"), "t.sym:3: PUBLIC needs an address, a parameter size and a name");
  EXPECT_EQ(refusal("PUBLIC zz 0 f"), "t.sym:3: PUBLIC address 'zz' is not a hex number");
  EXPECT_EQ(refusal("PUBLIC 10 -1 f"), "t.sym:3: PUBLIC parameter size '-1' is not a hex number");
  EXPECT_EQ(refusal("FILE x a.c"), "t.sym:3: FILE number 'x' is not a decimal number");
  EXPECT_EQ(refusal("FILE -1 a.c"), "t.sym:3: FILE number '-1' is not a decimal number");
  EXPECT_EQ(refusal("FILE 1"), "t.sym:3: FILE needs a number and a name");
  EXPECT_EQ(refusal("INLINE_ORIGIN x name"), "t.sym:3: INLINE_ORIGIN number 'x' is not a decimal number");
  EXPECT_EQ(refusal("INLINE_ORIGIN 1"), "t.sym:3: INLINE_ORIGIN needs a number and a name");
  // A name of digits only reads as the old form's file number (as in Breakpad).
  EXPECT_EQ(refusal("INLINE_ORIGIN 1 42"), "t.sym:3: INLINE_ORIGIN (old form) needs a file number and a name");
  EXPECT_EQ(refusal("INLINE_ORIGIN 1 - name"), "t.sym:3: INLINE_ORIGIN file number '-' is not a decimal number");
  EXPECT_EQ(refusal("INLINE 0 1 0 0 10 10", ""), "t.sym:2: INLINE with no FUNC before it");
  EXPECT_EQ(refusal("INLINE 0 1 0 0 10 10", "FUNC 1000 40 0 f\nPUBLIC 2000 0 p\n"),
            "t.sym:4: INLINE with no FUNC before it");
  EXPECT_EQ(refusal("INLINE 0 1 0 0"),
            "t.sym:3: INLINE needs a nest level, a call line, an origin and at least one range");
  EXPECT_EQ(refusal("INLINE x 1 0 0 10 10"), "t.sym:3: INLINE nest level 'x' is not a decimal number");
  EXPECT_EQ(refusal("INLINE 0 x 0 0 10 10"), "t.sym:3: INLINE call line 'x' is not a decimal number");
  EXPECT_EQ(refusal("INLINE 0 1 x 0 10 10"), "t.sym:3: INLINE call file 'x' is not a decimal number");
  EXPECT_EQ(refusal("INLINE 0 1 0 x 10 10"), "t.sym:3: INLINE origin 'x' is not a decimal number");
  EXPECT_EQ(refusal("INLINE 0 1 0 0 10 zz"), "t.sym:3: INLINE range '10 zz' is not two hex numbers");
  EXPECT_EQ(refusal("1000 10 1 0", ""), "t.sym:2: a line record with no FUNC before it (or a PUBLIC since)");
  EXPECT_EQ(refusal("1000 10 1 0", "FUNC 1000 40 0 f\nPUBLIC 2000 0 p\n"),
            "t.sym:4: a line record with no FUNC before it (or a PUBLIC since)");
  EXPECT_EQ(refusal("1000 10 x 0"), "t.sym:3: line number 'x' is not a decimal number of 0 or more");
  EXPECT_EQ(refusal("1000 10 -1 0"), "t.sym:3: line number '-1' is not a decimal number of 0 or more");
  EXPECT_EQ(refusal("1000 10 1 x"), "t.sym:3: file number 'x' is not a decimal number");
  EXPECT_EQ(refusal("1000 10 1"), "t.sym:3: '1000' starts no record (a line record is ADDRESS SIZE LINE FILE)");
  EXPECT_EQ(refusal("FOO bar baz qux"), "t.sym:3: 'FOO' starts no record (a line record is ADDRESS SIZE LINE FILE)");
  EXPECT_EQ(refusal("STACK FOO 1"), "t.sym:3: STACK 'FOO' is neither CFI nor WIN");
  EXPECT_EQ(refusal("STACK WIN 4 1000 40"), "t.sym:3: STACK WIN needs at least 11 fields");
  EXPECT_EQ(refusal("STACK CFI INIT 1000 10"), "t.sym:3: STACK CFI INIT needs an address, a size and rules");
  EXPECT_EQ(refusal("STACK CFI INIT zz 10 .cfa: 1 .ra: 2"),
            "t.sym:3: STACK CFI INIT address and size 'zz 10' are not hex numbers");
  EXPECT_EQ(refusal("STACK CFI INIT 1000 10 $rsp"),
            "t.sym:3: STACK CFI INIT rules: an expression with no register name before it: '$rsp'");
  EXPECT_EQ(refusal("STACK CFI 1004 .cfa: 1"), "t.sym:3: STACK CFI with no STACK CFI INIT before it");
  EXPECT_EQ(refusal("STACK CFI 2000 .cfa: 1", "STACK CFI INIT 1000 10 .cfa: $rsp .ra: 0\n"),
            "t.sym:3: STACK CFI at 2000 is outside the range of the STACK CFI INIT before it");
  EXPECT_EQ(refusal("STACK CFI zz .cfa: 1"), "t.sym:3: STACK CFI address 'zz' is not a hex number");
  EXPECT_EQ(refusal("STACK CFI 1004"), "t.sym:3: STACK CFI needs an address and rules");
  EXPECT_EQ(refusal("STACK CFI 1004 .ra:"), "t.sym:3: STACK CFI rules: '.ra:' has no expression");
  EXPECT_EQ(refusal("MODULE Linux x86_64"), "t.sym:3: MODULE needs an OS, an architecture, an id and a name");
  EXPECT_EQ(refusal(std::string("FILE 2 a\0b.c", 12)), "t.sym:3: a NUL byte");
  EXPECT_EQ(refusal("FILE 2 a\rb.c"), "t.sym:3: a carriage return inside the line");
}

}  // namespace
