// sfu gen's row building, sfu verify's comparison, sfu diff, and the ELF section edit, on
// hand-made CFI and images. (The corpus run in tests/gen/check.sh covers compiler output.)
#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <sstream>

#include "tools/elf/elf_file.h"
#include "tools/sframe/cfa_expression.h"
#include "tools/sframe/diff.h"
#include "tools/sframe/encode.h"
#include "tools/sframe/gen.h"
#include "tools/sframe/rows.h"
#include "tools/sframe/verify.h"
#include "support/sframe_builder.h"

namespace sfu::tools {
namespace {

using cfi::CfaRule;
using cfi::RegRule;

constexpr uint32_t kRsp = 7, kRbp = 6, kRbx = 3, kR10 = 10, kRip = 16;

CfaRule cfa(uint32_t reg, int64_t off) {
  CfaRule c;
  c.reg = reg;
  c.offset = off;
  return c;
}
RegRule rule(RegRule::Kind kind, int64_t value, std::vector<uint8_t> expr = {}) {
  RegRule r;
  r.kind = kind;
  r.value = value;
  r.expr = std::move(expr);
  return r;
}
cfi::Row row(uint64_t start, uint64_t end, CfaRule c, std::map<uint32_t, RegRule> regs) {
  cfi::Row r;
  r.start = start;
  r.end = end;
  r.cfa = std::move(c);
  r.regs = std::move(regs);
  return r;
}
// An x86_64 function at 0x1000: push %rbp; mov %rsp,%rbp; push %rbx; ... leave; ret.
cfi::Fde x86_function(uint64_t start = 0x1000) {
  cfi::Fde f;
  f.start = start;
  f.end = start + 0x40;
  f.ra_reg = kRip;
  RegRule ra = rule(RegRule::kOffset, -8);
  f.rows = {
      row(start, start + 1, cfa(kRsp, 8), {{kRip, ra}}),
      row(start + 1, start + 4, cfa(kRsp, 16), {{kRip, ra}, {kRbp, rule(RegRule::kOffset, -16)}}),
      row(start + 4, start + 5, cfa(kRbp, 16), {{kRip, ra}, {kRbp, rule(RegRule::kOffset, -16)}}),
      // rbx saved: SFrame does not track it, so this row merges with the one before.
      row(start + 5, start + 0x3e, cfa(kRbp, 16),
          {{kRip, ra}, {kRbp, rule(RegRule::kOffset, -16)}, {kRbx, rule(RegRule::kOffset, -24)}}),
      row(start + 0x3e, start + 0x40, cfa(kRsp, 8), {{kRip, ra}}),
  };
  return f;
}

EncodeOptions options(uint8_t version, uint8_t abi = SFU_ABI_AMD64_LE) {
  EncodeOptions o;
  o.version = version;
  o.abi = abi;
  o.section_addr = 0x9000;
  return o;
}

std::string rules(const sfu_row &r) { return std::to_string(r.row_start) + ": " + row_text(r); }

TEST(SframeGen, TranslatesAndMergesRows) {
  Generated g;
  generate_rows({x86_function()}, options(2), g);
  ASSERT_EQ(g.functions.size(), 1u);
  ASSERT_TRUE(g.left_out.empty());
  const EncodeFunction &f = g.functions[0];
  EXPECT_EQ(f.start, 0x1000u);
  EXPECT_EQ(f.size, 0x40u);
  std::vector<std::string> got;
  for (const sfu_row &r : f.rows) got.push_back(rules(r));
  EXPECT_EQ(got, (std::vector<std::string>{
                     "0: CFA r7+8, RA [cfa-8], FP same",
                     "1: CFA r7+16, RA [cfa-8], FP [cfa-16]",
                     "4: CFA r6+16, RA [cfa-8], FP [cfa-16]",
                     "62: CFA r7+8, RA [cfa-8], FP same",
                 }));
  EXPECT_EQ(g.rows(), 4u);
}

// One function whose row at +4 is replaced by `bad`: left out with `reason`, at 0x1004.
void expect_left_out(uint8_t version, cfi::Row bad, const std::string &reason, uint8_t abi = SFU_ABI_AMD64_LE) {
  cfi::Fde f = x86_function();
  bad.start = 0x1004;
  bad.end = 0x1005;
  f.rows[2] = bad;
  Generated g;
  generate_rows({f}, options(version, abi), g);
  EXPECT_TRUE(g.functions.empty());
  ASSERT_EQ(g.left_out.size(), 1u);
  EXPECT_EQ(g.left_out[0].start, 0x1000u);
  EXPECT_EQ(g.left_out[0].end, 0x1040u);
  EXPECT_EQ(g.left_out[0].at, 0x1004u);
  EXPECT_EQ(g.left_out[0].reason, reason);
}

TEST(SframeGen, LeavesOutWhatSframeCannotSay) {
  RegRule ra = rule(RegRule::kOffset, -8);
  CfaRule complex;  // DW_OP_breg7 8; DW_OP_lit3; DW_OP_plus: not register + offset
  complex.kind = CfaRule::kExpression;
  complex.expr = {0x77, 0x08, 0x33, 0x22};
  expect_left_out(3, row(0, 0, complex, {{kRip, ra}}), "CFA computed by a DWARF expression");
  expect_left_out(2, row(0, 0, cfa(kR10, 0), {{kRip, ra}}), "CFA based on r10 needs V3");
  expect_left_out(3, row(0, 0, cfa(kRsp, 8), {{kRip, ra}, {kRbp, rule(RegRule::kUndefined, 0)}}), "FP undefined");
  expect_left_out(3, row(0, 0, cfa(kRsp, 8), {{kRip, ra}, {kRbp, rule(RegRule::kValExpression, 0, {0x77, 0x08, 0x06, 0x06})}}),
                  "FP rule has no SFrame form");
  expect_left_out(3, row(0, 0, cfa(kRsp, 8), {{kRip, ra}, {kRsp, rule(RegRule::kOffset, -16)}}),
                  "SP rule other than the CFA's");
  expect_left_out(3, row(0, 0, cfa(kRsp, int64_t(1) << 33), {{kRip, ra}}), "CFA offset out of range");
  expect_left_out(3, row(0, 0, cfa(300, 8), {{kRip, ra}}), "CFA based on a register numbered above 255");
}

TEST(SframeGen, DrapNeedsV3AndGetsLoadedCfa) {
  // gcc's DRAP: CFA = r10 + 0, then CFA = *(rbp - 8) (DW_OP_breg6 -8; DW_OP_deref), rbp saved
  // at [rbp] (DW_CFA_expression rbp: DW_OP_breg6 0).
  cfi::Fde f = x86_function();
  RegRule ra = rule(RegRule::kOffset, -8);
  CfaRule loaded;
  loaded.kind = CfaRule::kExpression;
  loaded.expr = {0x76, 0x78, 0x06};
  f.rows[2] = row(0x1004, 0x1005, cfa(kR10, 0), {{kRip, ra}});
  f.rows[3] = row(0x1005, 0x103e, loaded, {{kRip, ra}, {kRbp, rule(RegRule::kExpression, 0, {0x76, 0x00})}});
  Generated g;
  generate_rows({f}, options(3), g);
  ASSERT_EQ(g.functions.size(), 1u);
  ASSERT_EQ(g.functions[0].rows.size(), 5u);
  EXPECT_EQ(rules(g.functions[0].rows[2]), "4: CFA r10+0, RA [cfa-8], FP same");
  EXPECT_EQ(rules(g.functions[0].rows[3]), "5: CFA [r6-8], RA [cfa-8], FP [r6+0]");
}

TEST(SframeGen, OutermostSignalAndOverlap) {
  cfi::Fde start = x86_function(0x2000);
  start.rows = {row(0x2000, 0x2040, cfa(kRsp, 8), {{kRip, rule(RegRule::kUndefined, 0)}})};
  cfi::Fde signal = x86_function(0x3000);
  signal.signal_frame = true;
  cfi::Fde overlapping = x86_function(0x3020);
  Generated g2, g3;
  generate_rows({x86_function(), start, signal, overlapping}, options(2), g2);
  ASSERT_EQ(g2.functions.size(), 2u);
  EXPECT_EQ(rules(g2.functions[1].rows[0]), "0: outermost (RA undefined)");
  ASSERT_EQ(g2.left_out.size(), 2u);
  EXPECT_EQ(g2.left_out[0].reason, "signal frame needs V3");
  EXPECT_EQ(g2.left_out[1].reason, "overlaps another function");
  generate_rows({x86_function(), start, signal, overlapping}, options(3), g3);
  ASSERT_EQ(g3.functions.size(), 3u);
  EXPECT_TRUE(g3.functions[2].signal);
  ASSERT_EQ(g3.left_out.size(), 1u);
  EXPECT_EQ(g3.left_out[0].start, 0x3020u);
}

TEST(SframeGen, S390xSpCopiesAndRegisterRa) {
  // stmg %r6,%r15,48(%r15) saves r15 too; a leaf keeps r15 and r14 in f0/f1 (DWARF 16, 20).
  constexpr uint32_t kR15 = 15, kR14 = 14, kF0 = 16, kF1 = 20;
  cfi::Fde f;
  f.start = 0x1000;
  f.end = 0x1020;
  f.ra_reg = kR14;
  f.rows = {row(0x1000, 0x1008, cfa(kR15, 160), {{kR15, rule(RegRule::kRegister, kF0)}, {kR14, rule(RegRule::kRegister, kF1)}}),
            row(0x1008, 0x1020, cfa(kR15, 320), {{kR15, rule(RegRule::kOffset, -40)}, {kR14, rule(RegRule::kOffset, -48)}})};
  Generated g;
  generate_rows({f}, options(2, SFU_ABI_S390X_BE), g);
  ASSERT_EQ(g.functions.size(), 1u) << (g.left_out.empty() ? "" : g.left_out[0].reason);
  EXPECT_EQ(rules(g.functions[0].rows[0]), "0: CFA r15+160, RA r20+0, FP same");
  EXPECT_EQ(rules(g.functions[0].rows[1]), "8: CFA r15+320, RA [cfa-48], FP same");
}

// Encodes generated rows and reads them back as the tools see a table.
std::vector<SframeFunction> table_of(const Generated &g, const EncodeOptions &opt) {
  std::vector<uint8_t> bytes;
  std::string error;
  EXPECT_TRUE(encode_sframe(opt, g.functions, bytes, error)) << error;
  std::vector<SframeFunction> fns;
  uint8_t abi = 0;
  EXPECT_EQ(read_sframe_functions(bytes, opt.section_addr, abi, fns), SFU_OK);
  EXPECT_EQ(abi, opt.abi);
  return fns;
}

TEST(SframeVerify, GeneratedTableAgreesRangeByRange) {
  std::vector<cfi::Fde> fdes = {x86_function(0x1000), x86_function(0x2000)};
  Generated g;
  generate_rows(fdes, options(2), g);
  VerifyReport r;
  verify_rows(fdes, table_of(g, options(2)), SFU_ABI_AMD64_LE, r);
  EXPECT_EQ(r.functions, 2u);
  EXPECT_EQ(r.ranges, 10u);  // the five CFI change points of each function
  EXPECT_TRUE(r.mismatches.empty());
  EXPECT_TRUE(r.not_covered.empty());
}

// The .plt of an x86_64 lazy-binding link, 16-byte entries: PLT0 (push; jmp) then entries
// (jmp *GOT; push $n; jmp PLT0). ld's CFI for it: CFA rsp+16, rsp+24 after PLT0's push, then
// for the entries the standard expression rsp + 8 + (((rip & 15) >= 11) << 3).
const std::vector<uint8_t> kPltExpr = {0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22};
cfi::Fde plt_fde(uint64_t start, uint32_t entries) {
  cfi::Fde f;
  f.start = start;
  f.end = start + 16 * (entries + 1);
  f.ra_reg = kRip;
  RegRule ra = rule(RegRule::kOffset, -8);
  CfaRule expr;
  expr.kind = CfaRule::kExpression;
  expr.expr = kPltExpr;
  f.rows = {row(start, start + 6, cfa(kRsp, 16), {{kRip, ra}}), row(start + 6, start + 16, cfa(kRsp, 24), {{kRip, ra}}),
            row(start + 16, f.end, expr, {{kRip, ra}})};
  return f;
}

// The SFrame side as ld writes it: PLT0 a PCINC function, the entries one PCMASK function whose
// rows (CFA rsp+8 at 0, rsp+16 from 11) repeat every 16 bytes, or in V1 (no repeat size) are
// matched on the low byte of the offset, as binutils 2.40 reads them.
std::vector<SframeFunction> plt_sframe(uint8_t version, uint64_t start, uint32_t entries) {
  test::TableSpec t;
  t.version = version;
  t.abi = SFU_ABI_AMD64_LE;
  t.flags = version == 1 ? 1 : 5;
  test::FdeSpec plt0, plt;
  plt0.start = start;
  plt0.size = 16;
  plt0.fres = {{0, {16}}, {6, {24}}};
  plt.start = start + 16;
  plt.size = 16 * entries;
  plt.pcmask = true;
  plt.rep_size = version == 1 ? 0 : 16;
  plt.fres = {{0, {8}}, {11, {16}}};
  t.fdes = {plt0, plt};
  std::vector<uint8_t> bytes = test::build_section(t);
  std::vector<SframeFunction> fns;
  uint8_t abi = 0;
  EXPECT_EQ(read_sframe_functions(bytes, t.section_addr, abi, fns), SFU_OK);
  return fns;
}

TEST(SframeVerify, PltExpressionEvaluatedAtEveryAddress) {
  uint32_t reg = 0;
  int64_t off = 0;
  ASSERT_TRUE(cfa_expression_at(kPltExpr, SFU_ABI_AMD64_LE, 0x401020 + 10, reg, off));
  EXPECT_EQ(reg, kRsp);
  EXPECT_EQ(off, 8);
  ASSERT_TRUE(cfa_expression_at(kPltExpr, SFU_ABI_AMD64_LE, 0x401020 + 11, reg, off));
  EXPECT_EQ(off, 16);
  // A load, or a value of two registers, is not register + offset.
  EXPECT_FALSE(cfa_expression_at({0x77, 0x08, 0x06}, SFU_ABI_AMD64_LE, 0x401000, reg, off));
  EXPECT_FALSE(cfa_expression_at({0x77, 0x08, 0x76, 0x00, 0x22}, SFU_ABI_AMD64_LE, 0x401000, reg, off));

  // V2: rows repeat every 16 bytes, as the expression says: every one of the 3 * 16 entry
  // addresses and 16 PLT0 addresses compared, none wrong.
  const uint64_t kPlt = 0x20000;
  std::vector<cfi::Fde> fdes = {plt_fde(kPlt, 3)};
  VerifyReport r;
  verify_rows(fdes, plt_sframe(2, kPlt, 3), SFU_ABI_AMD64_LE, r);
  EXPECT_EQ(r.pcmask_addresses, 48u);
  EXPECT_EQ(r.ranges, 48u + 2u);  // and PLT0's two rows
  EXPECT_TRUE(r.mismatches.empty()) << r.mismatches[0].address;

  // V1 as binutils 2.40 reads it: the low byte of the offset, so in entries 1 and 2 every offset
  // is past 11 and the first 11 bytes get CFA rsp+16: a wrong caller (entry 0 is right).
  verify_rows(fdes, plt_sframe(1, kPlt, 3), SFU_ABI_AMD64_LE, r);
  EXPECT_EQ(r.pcmask_addresses, 48u);
  ASSERT_EQ(r.mismatches.size(), 22u);
  EXPECT_EQ(r.mismatches[0].address, kPlt + 32);
  EXPECT_EQ(r.mismatches[0].sframe, "CFA r7+16, RA [cfa-8], FP same");
  EXPECT_EQ(r.mismatches[0].cfi, "CFA r7+8, RA [cfa-8], FP same (CFA expression at this PC)");
  EXPECT_EQ(r.mismatches[21].address, kPlt + 48 + 10);
}

// ld's .plt CFI, as gen writes it: PLT0 an ordinary function, the entries one repeating block
// of 16 bytes (V2, V3) with the expression's two values, verified at every address after a round
// trip through the writer; V1, which has no block size, leaves the function out by name.
TEST(SframeGen, PltExpressionBecomesARepeatingBlock) {
  const uint64_t kPlt = 0x401020;
  cfi::Fde f = plt_fde(kPlt, 3);
  for (uint8_t v : {2, 3}) {
    Generated g;
    generate_rows({f}, options(v), g);
    ASSERT_TRUE(g.left_out.empty()) << g.left_out[0].reason;
    ASSERT_EQ(g.functions.size(), 2u);
    const EncodeFunction &plt0 = g.functions[0], &block = g.functions[1];
    EXPECT_EQ(plt0.start, kPlt);
    EXPECT_EQ(plt0.size, 16u);
    EXPECT_EQ(plt0.repeat, 0);
    EXPECT_EQ(block.start, kPlt + 16);
    EXPECT_EQ(block.size, 48u);
    EXPECT_EQ(block.repeat, 16);
    ASSERT_EQ(block.rows.size(), 2u);
    EXPECT_EQ(rules(block.rows[0]), "0: CFA r7+8, RA [cfa-8], FP same");
    EXPECT_EQ(rules(block.rows[1]), "11: CFA r7+16, RA [cfa-8], FP same");
    std::vector<uint8_t> bytes;
    std::string error;
    ASSERT_TRUE(encode_sframe(options(v), g.functions, bytes, error)) << error;
    std::vector<SframeFunction> fns;
    uint8_t abi = 0;
    ASSERT_EQ(read_sframe_functions(bytes, options(v).section_addr, abi, fns), SFU_OK);
    ASSERT_EQ(fns.size(), 2u);
    EXPECT_TRUE(fns[1].pcmask);
    EXPECT_EQ(fns[1].repeat, 16u);
    VerifyReport r;
    verify_rows({f}, fns, SFU_ABI_AMD64_LE, r);
    EXPECT_EQ(r.pcmask_addresses, 48u);
    EXPECT_TRUE(r.mismatches.empty()) << r.mismatches[0].address;
  }
  // The writer's own refusals: a row outside the block, a block in V1.
  Generated g2;
  generate_rows({f}, options(2), g2);
  g2.functions[1].rows[1].row_start = 16;
  std::vector<uint8_t> bytes;
  std::string error;
  EXPECT_FALSE(encode_sframe(options(2), g2.functions, bytes, error));
  EXPECT_NE(error.find("row 1: row starts past the repeating block"), std::string::npos) << error;
  g2.functions[1].rows[1].row_start = 11;
  EXPECT_FALSE(encode_sframe(options(1), g2.functions, bytes, error));
  EXPECT_NE(error.find("repeating block (PLT) needs V2"), std::string::npos) << error;

  Generated g1;
  generate_rows({f}, options(1), g1);
  EXPECT_TRUE(g1.functions.empty());
  ASSERT_EQ(g1.left_out.size(), 1u);
  EXPECT_EQ(g1.left_out[0].at, kPlt + 16);
  EXPECT_EQ(g1.left_out[0].reason, "repeating block (PLT) needs V2");
}

// A PC-dependent CFA that does not repeat is written as ordinary rows; one followed by other
// rules, or one that is not register + offset at some PC, leaves the function out.
TEST(SframeGen, PcDependentCfaThatDoesNotRepeatOrIsNotLast) {
  cfi::Fde f = plt_fde(0x401020, 1);  // PLT0 and one 16-byte entry: no second block to repeat
  f.rows.back().cfa.expr = {0x77, 0x08, 0x80, 0x00, 0x3f, 0x1a, 0x22};  // rsp + 8 + (rip & 15)
  Generated g;
  generate_rows({f}, options(2), g);
  ASSERT_EQ(g.functions.size(), 2u);
  EXPECT_EQ(g.functions[1].repeat, 0);
  EXPECT_EQ(g.functions[1].rows.size(), 16u);  // a CFA for every address
  EXPECT_EQ(rules(g.functions[1].rows[15]), "15: CFA r7+23, RA [cfa-8], FP same");

  cfi::Fde not_last = plt_fde(0x401020, 2);
  not_last.rows.back().end = not_last.end - 8;
  not_last.rows.push_back(row(not_last.end - 8, not_last.end, cfa(kRsp, 8), {{kRip, rule(RegRule::kOffset, -8)}}));
  generate_rows({not_last}, options(3), g);
  ASSERT_EQ(g.left_out.size(), 1u);
  EXPECT_EQ(g.left_out[0].reason, "CFA computed by a DWARF expression");

  cfi::Fde loads = plt_fde(0x401020, 2);
  loads.rows.back().cfa.expr = {0x77, 0x08, 0x06, 0x80, 0x00, 0x22};  // *(rsp + 8) + rip: a load
  generate_rows({loads}, options(3), g);
  ASSERT_EQ(g.left_out.size(), 1u);
  EXPECT_EQ(g.left_out[0].at, 0x401030u);
  EXPECT_EQ(g.left_out[0].reason, "CFA computed by a DWARF expression");
}

// The bounds on a CFA computed from the PC, which gen evaluates at every address of its range:
// an expression of at most 64 bytes (the time is the range times its length), a range of at
// most 1 MiB (its values are kept while the period is sought), a period of at most 255 bytes
// (SFrame's rep_size), found in time linear in the range.
TEST(SframeGen, PcDependentCfaBounds) {
  const uint64_t kPlt = 0x401020;
  auto padded = [](size_t size) {  // the .plt expression, then DW_OP_plus_uconst 0 up to `size` bytes
    std::vector<uint8_t> e = kPltExpr;
    if ((size - e.size()) % 2) e.insert(e.end(), {0x23, 0x80, 0x00});
    while (e.size() < size) e.insert(e.end(), {0x23, 0x00});
    return e;
  };
  cfi::Fde f = plt_fde(kPlt, 3);
  f.rows.back().cfa.expr = padded(64);
  Generated g;
  generate_rows({f}, options(2), g);
  ASSERT_TRUE(g.left_out.empty()) << g.left_out[0].reason;
  EXPECT_EQ(g.functions[1].repeat, 16);
  f.rows.back().cfa.expr = padded(65);
  generate_rows({f}, options(2), g);
  ASSERT_EQ(g.left_out.size(), 1u);
  EXPECT_EQ(g.left_out[0].at, kPlt + 16);
  EXPECT_EQ(g.left_out[0].reason, "CFA computed from the PC by an expression of more than 64 bytes");

  // 1 MiB of entries after PLT0: read; one entry more: left out before a single evaluation.
  cfi::Fde big = plt_fde(kPlt, 65536);
  generate_rows({big}, options(2), g);
  ASSERT_TRUE(g.left_out.empty()) << g.left_out[0].reason;
  EXPECT_EQ(g.functions[1].size, 1u << 20);
  EXPECT_EQ(g.functions[1].repeat, 16);
  big = plt_fde(kPlt, 65537);
  generate_rows({big}, options(2), g);
  ASSERT_EQ(g.left_out.size(), 1u);
  EXPECT_EQ(g.left_out[0].at, kPlt + 16);
  EXPECT_EQ(g.left_out[0].reason, "CFA computed from the PC over more than 1 MiB");

  // rsp + 8 + (((rip & 0x1ff) >= 0x100) << 3): a period of 512 bytes, which SFrame cannot say.
  cfi::Fde wide = plt_fde(0x402000 - 16, 3 * 32);
  wide.rows.back().cfa.expr = {0x77, 0x08, 0x80, 0x00, 0x0a, 0xff, 0x01, 0x1a, 0x0a, 0x00, 0x01, 0x2a, 0x33, 0x24, 0x22};
  generate_rows({wide}, options(2), g);
  ASSERT_EQ(g.left_out.size(), 1u);
  EXPECT_EQ(g.left_out[0].reason, "CFA repeats in blocks larger than 255 bytes");
}

// Given the FDEs to use up, generate_rows writes the same functions and lets each FDE's rows go.
TEST(SframeGen, UsingUpTheFdesGivesTheSameRows) {
  std::vector<cfi::Fde> fdes = {x86_function(0x1000), x86_function(0x2000), plt_fde(0x3000, 4)};
  Generated kept, used;
  generate_rows(fdes, options(2), kept);
  std::vector<cfi::Fde> copy = fdes;
  generate_rows(std::move(copy), options(2), used);
  ASSERT_EQ(used.functions.size(), kept.functions.size());
  for (size_t i = 0; i < kept.functions.size(); i++) {
    EXPECT_EQ(used.functions[i].start, kept.functions[i].start);
    EXPECT_EQ(used.functions[i].size, kept.functions[i].size);
    EXPECT_EQ(used.functions[i].repeat, kept.functions[i].repeat);
    ASSERT_EQ(used.functions[i].rows.size(), kept.functions[i].rows.size());
    for (size_t k = 0; k < kept.functions[i].rows.size(); k++)
      EXPECT_EQ(rules(used.functions[i].rows[k]), rules(kept.functions[i].rows[k]));
  }
  ASSERT_EQ(copy.size(), 3u);  // the records stay, without their rows
  for (const cfi::Fde &f : copy) EXPECT_TRUE(f.rows.empty());
  for (const cfi::Fde &f : fdes) EXPECT_FALSE(f.rows.empty());
}

TEST(SframeVerify, FindsWrongRowsAndUncoveredFunctions) {
  std::vector<cfi::Fde> fdes = {x86_function(0x1000), x86_function(0x2000)};
  Generated g;
  generate_rows(fdes, options(2), g);
  g.functions[0].rows[2].cfa.offset = 24;  // CFA rbp+24 where the CFI says rbp+16
  g.functions[0].rows.push_back(g.functions[0].rows.back());
  g.functions[0].rows.back().row_start = 0x3f;  // an extra change point, same rules: no mismatch
  g.functions.pop_back();                         // 0x2000 not covered
  VerifyReport r;
  verify_rows(fdes, table_of(g, options(2)), SFU_ABI_AMD64_LE, r);
  // The SFrame row spans two CFI rows (rbx saved at +5): both ranges are wrong.
  ASSERT_EQ(r.mismatches.size(), 2u);
  EXPECT_EQ(r.mismatches[0].address, 0x1004u);
  EXPECT_EQ(r.mismatches[1].address, 0x1005u);
  EXPECT_EQ(r.mismatches[0].sframe, "CFA r6+24, RA [cfa-8], FP [cfa-16]");
  EXPECT_EQ(r.mismatches[0].cfi, "CFA r6+16, RA [cfa-8], FP [cfa-16]");
  EXPECT_EQ(r.ranges, 6u);
  EXPECT_EQ(r.not_covered, std::vector<uint64_t>{0x2000});
}

TEST(SframeVerify, ShortSframeFunctionIsAMismatch) {
  std::vector<cfi::Fde> fdes = {x86_function()};
  Generated g;
  generate_rows(fdes, options(2), g);
  g.functions[0].size = 0x3e;
  g.functions[0].rows.pop_back();
  VerifyReport r;
  verify_rows(fdes, table_of(g, options(2)), SFU_ABI_AMD64_LE, r);
  ASSERT_EQ(r.mismatches.size(), 1u);
  EXPECT_EQ(r.mismatches[0].address, 0x103eu);
  EXPECT_EQ(r.mismatches[0].sframe, "no SFrame row");
}

// The runtime finds no row before a function's first one, or in a function without rows:
// verify must say so, not read the first row (or past the end of none).
TEST(SframeVerify, AddressBeforeTheFirstRowHasNoSframeRow) {
  std::vector<cfi::Fde> fdes = {x86_function(0x1000), x86_function(0x2000)};
  Generated g;
  generate_rows(fdes, options(2), g);
  // Tables as another writer may make them (the decoder accepts both; our writer makes neither).
  std::vector<SframeFunction> table = table_of(g, options(2));
  table[0].rows.erase(table[0].rows.begin());  // first row now at +1
  table[1].rows.clear();
  VerifyReport r;
  verify_rows(fdes, table, SFU_ABI_AMD64_LE, r);
  ASSERT_EQ(r.mismatches.size(), 6u);
  EXPECT_EQ(r.mismatches[0].address, 0x1000u);
  EXPECT_EQ(r.mismatches[0].sframe, "no SFrame row");
  for (size_t i = 1; i < 6; i++) EXPECT_EQ(r.mismatches[i].sframe, "no SFrame row") << i;
  EXPECT_EQ(r.mismatches[1].address, 0x2000u);
  EXPECT_TRUE(r.not_covered.empty());
}

TEST(SframeVerify, RuleCorrespondence) {
  auto s = [](sfu_rule_kind k, uint8_t reg, int32_t off) {
    sfu_rule r{};
    r.kind = uint8_t(k);
    r.reg = reg;
    r.offset = off;
    return r;
  };
  RegRule same = rule(RegRule::kSameValue, 0), at = rule(RegRule::kOffset, -16), val = rule(RegRule::kValOffset, 8);
  RegRule in9 = rule(RegRule::kRegister, 9), in_self = rule(RegRule::kRegister, 6);
  RegRule expr = rule(RegRule::kExpression, 0, {0x76, 0x00}), undef = rule(RegRule::kUndefined, 0);
  EXPECT_TRUE(rule_agrees(s(SFU_RULE_UNCHANGED, 0, 0), nullptr, 6));
  EXPECT_TRUE(rule_agrees(s(SFU_RULE_UNCHANGED, 0, 0), &same, 6));
  EXPECT_TRUE(rule_agrees(s(SFU_RULE_UNCHANGED, 0, 0), &in_self, 6));
  EXPECT_FALSE(rule_agrees(s(SFU_RULE_UNCHANGED, 0, 0), &at, 6));
  EXPECT_TRUE(rule_agrees(s(SFU_RULE_AT_CFA, 0, -16), &at, 6));
  EXPECT_FALSE(rule_agrees(s(SFU_RULE_AT_CFA, 0, -8), &at, 6));
  EXPECT_FALSE(rule_agrees(s(SFU_RULE_AT_CFA, 0, -16), nullptr, 6));
  EXPECT_TRUE(rule_agrees(s(SFU_RULE_CFA_PLUS, 0, 8), &val, 6));
  EXPECT_FALSE(rule_agrees(s(SFU_RULE_AT_CFA, 0, 8), &val, 6));
  EXPECT_TRUE(rule_agrees(s(SFU_RULE_REGISTER, 9, 0), &in9, 6));
  EXPECT_FALSE(rule_agrees(s(SFU_RULE_REGISTER, 8, 0), &in9, 6));
  EXPECT_TRUE(rule_agrees(s(SFU_RULE_AT_REGISTER, 6, 0), &expr, 6));
  EXPECT_FALSE(rule_agrees(s(SFU_RULE_AT_REGISTER, 6, 8), &expr, 6));
  EXPECT_TRUE(rule_agrees(s(SFU_RULE_UNDEFINED, 0, 0), &undef, 16));
  EXPECT_FALSE(rule_agrees(s(SFU_RULE_UNDEFINED, 0, 0), nullptr, 16));

  CfaRule loaded;
  loaded.kind = CfaRule::kExpression;
  loaded.expr = {0x76, 0x78, 0x06};
  EXPECT_TRUE(cfa_agrees(s(SFU_RULE_REGISTER, 7, 8), cfa(7, 8)));
  EXPECT_FALSE(cfa_agrees(s(SFU_RULE_REGISTER, 7, 8), cfa(6, 8)));
  EXPECT_TRUE(cfa_agrees(s(SFU_RULE_AT_REGISTER, 6, -8), loaded));
  EXPECT_FALSE(cfa_agrees(s(SFU_RULE_REGISTER, 6, -8), loaded));
  EXPECT_FALSE(cfa_agrees(s(SFU_RULE_AT_REGISTER, 6, -8), cfa(6, -8)));
}

TEST(SframeDiff, SameRulesInAnyEncodingAreEqual) {
  std::vector<cfi::Fde> fdes = {x86_function(0x1000), x86_function(0x2000)};
  Generated g;
  generate_rows(fdes, options(2), g);
  std::vector<SframeFunction> v2 = table_of(g, options(2)), v3 = table_of(g, options(3)), v1 = table_of(g, options(1));
  DiffReport r;
  diff_tables(v1, v3, r);
  EXPECT_EQ(r.functions, 2u);
  EXPECT_EQ(r.ranges, 8u);
  EXPECT_TRUE(r.differences.empty());

  Generated changed = g;
  changed.functions[1].rows[1].fp.offset = -24;
  changed.functions.erase(changed.functions.begin());
  diff_tables(v2, table_of(changed, options(2)), r);
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_EQ(r.differences[0].address, 0x2001u);
  EXPECT_EQ(r.differences[0].first, "CFA r7+16, RA [cfa-8], FP [cfa-16]");
  EXPECT_EQ(r.differences[0].second, "CFA r7+16, RA [cfa-8], FP [cfa-24]");
  EXPECT_EQ(r.only_first, std::vector<uint64_t>{0x1000});
  EXPECT_TRUE(r.only_second.empty());
}

TEST(SframeDiff, RowOnOneSideOnlyIsADifference) {
  std::vector<cfi::Fde> fdes = {x86_function(0x1000)};
  Generated g;
  generate_rows(fdes, options(2), g);
  std::vector<SframeFunction> table = table_of(g, options(2)), late = table;
  late[0].rows.erase(late[0].rows.begin());  // first row at +1, as another writer may make it
  DiffReport r;
  diff_tables(table, late, r);
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_EQ(r.differences[0].address, 0x1000u);
  EXPECT_EQ(r.differences[0].first, "CFA r7+8, RA [cfa-8], FP same");
  EXPECT_EQ(r.differences[0].second, "no row");
}

// A minimal little-endian ELF64: null section, .text, optionally .sframe of `reserved` bytes,
// .shstrtab.
std::vector<uint8_t> tiny_elf(size_t reserved) {
  std::string names = std::string("\0.text\0.sframe\0.shstrtab\0", 25);
  std::vector<uint8_t> f(64, 0);
  auto put = [&](size_t at, uint64_t v, int n) {
    for (int i = 0; i < n; i++) f[at + i] = uint8_t(v >> (8 * i));
  };
  std::memcpy(f.data(), "\x7f" "ELF\x02\x01\x01", 7);
  put(16, kEtExec, 2);
  put(18, kEmX86_64, 2);
  size_t text_at = f.size();
  f.resize(f.size() + 16, 0xc3);
  size_t sframe_at = f.size();
  f.resize(f.size() + reserved, 0xee);
  size_t names_at = f.size();
  f.insert(f.end(), names.begin(), names.end());
  f.resize((f.size() + 7) & ~size_t(7));
  size_t shoff = f.size();
  struct S { uint32_t name, type; uint64_t flags, addr, off, size; };
  std::vector<S> secs = {{0, 0, 0, 0, 0, 0}, {1, kShtProgbits, 6, 0x401000, text_at, 16}};
  if (reserved) secs.push_back({7, kShtProgbits, kShfAlloc, 0x402000, sframe_at, reserved});
  secs.push_back({15, 3, 0, 0, names_at, names.size()});
  for (const S &s : secs) {
    size_t at = f.size();
    f.resize(at + 64, 0);
    put(at, s.name, 4);
    put(at + 4, s.type, 4);
    put(at + 8, s.flags, 8);
    put(at + 16, s.addr, 8);
    put(at + 24, s.off, 8);
    put(at + 32, s.size, 8);
  }
  put(40, shoff, 8);
  put(58, 64, 2);
  put(60, secs.size(), 2);
  put(62, secs.size() - 1, 2);
  return f;
}

TEST(ElfEdit, WritesIntoTheReservedSectionInPlace) {
  ElfImage img;
  std::string error;
  ASSERT_TRUE(elf_parse(tiny_elf(64), img, error)) << error;
  std::vector<uint8_t> table(40, 0x5a), out;
  ASSERT_TRUE(elf_with_section(img, ".sframe", table, out, error)) << error;
  ASSERT_EQ(out.size(), img.file.size());  // nothing moved
  ElfSection sec;
  ASSERT_TRUE(elf_find_section(out, ".sframe", sec, error)) << error;
  EXPECT_EQ(sec.addr, 0x402000u);
  EXPECT_EQ(sec.bytes, table);
  // The rest of the reservation is zeroed, the code untouched.
  const ElfSectionHeader *s = img.section(".sframe");
  for (size_t i = 40; i < 64; i++) EXPECT_EQ(out[s->offset + i], 0) << i;
  EXPECT_TRUE(std::equal(out.begin(), out.begin() + s->offset, img.file.begin()));

  std::vector<uint8_t> big(65, 1);
  EXPECT_FALSE(elf_with_section(img, ".sframe", big, out, error));
  EXPECT_EQ(error, "section .sframe holds 64 bytes, the table needs 65");
}

TEST(ElfEdit, AppendsAnUnloadedSectionWhenThereIsNone) {
  ElfImage img, again;
  std::string error;
  ASSERT_TRUE(elf_parse(tiny_elf(0), img, error)) << error;
  std::vector<uint8_t> table(33, 0x77), out;
  ASSERT_TRUE(elf_with_section(img, ".sframe", table, out, error)) << error;
  ASSERT_TRUE(elf_parse(out, again, error)) << error;
  ASSERT_EQ(again.sections.size(), img.sections.size() + 1);
  const ElfSectionHeader *s = again.section(".sframe");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->addr, 0u);
  EXPECT_EQ(s->flags & kShfAlloc, 0u);
  ElfSection text;
  ASSERT_TRUE(elf_section_bytes(again, ".text", text, error));
  EXPECT_EQ(text.addr, 0x401000u);
  ElfSection sec;
  ASSERT_TRUE(elf_section_bytes(again, ".sframe", sec, error));
  EXPECT_EQ(sec.bytes, table);
}

}  // namespace
}  // namespace sfu::tools

namespace sfu::tools {
namespace {

TEST(SframeGen, EveryCfiErrorIsDocumented) {
  std::ifstream in(std::string(SFU_SOURCE_DIR) + "/docs/errors.md");
  ASSERT_TRUE(in) << "docs/errors.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  for (const char *name : cfi::kErrorNames)
    EXPECT_NE(ss.str().find(std::string("`") + name + "`"), std::string::npos) << name << " is not in docs/errors.md";
}

}  // namespace
}  // namespace sfu::tools
