// Row semantics the corpus does not reach: s390x (V2 registers, RA padding, CFA encoding),
// big-endian AArch64, flexible rules, PCMASK blocks in V1 and V2, unsorted tables.
#include <gtest/gtest.h>

#include "sfu/sframe.h"
#include "support/sframe_builder.h"
#include "tools/sframe/dump.h"

using namespace sfu::test;

namespace {

struct Opened {
  std::vector<uint8_t> bytes;
  sfu_table table;
};

Opened open(const TableSpec &spec) {
  Opened o;
  o.bytes = build_section(spec);
  sfu_table_desc d{};
  d.section = o.bytes.data();
  d.size = o.bytes.size();
  d.section_addr = spec.section_addr;
  EXPECT_EQ(sfu_table_init(&o.table, &d), SFU_OK);
  return o;
}

sfu_row find(const Opened &o, uint64_t pc) {
  sfu_row row{};
  EXPECT_EQ(sfu_table_find(&o.table, pc, &row), SFU_OK) << std::hex << pc;
  return row;
}

void expect_rule(const sfu_rule &r, sfu_rule_kind kind, int reg, int32_t off) {
  EXPECT_EQ(r.kind, kind);
  if (kind == SFU_RULE_REGISTER || kind == SFU_RULE_AT_REGISTER) {
    EXPECT_EQ(r.reg, reg);
  }
  EXPECT_EQ(r.offset, off);
}

TableSpec one_function(uint8_t version, uint8_t abi, std::vector<FreSpec> fres, bool flex = false) {
  TableSpec t;
  t.version = version;
  t.abi = abi;
  t.fixed_ra = abi == SFU_ABI_AMD64_LE ? -8 : 0;
  FdeSpec f;
  f.start = 0x20000;
  f.size = 0x100;
  f.flex = flex;
  f.fres = std::move(fres);
  t.fdes = {f};
  return t;
}

TEST(Rows, S390xCfaIsDecodedAndV2OddWordsAreRegisters) {
  // CFA = r15 + (2 * 8 + 160); RA in f8's DWARF number 24 (odd word 49); FP at CFA - 72.
  Opened o = open(one_function(2, SFU_ABI_S390X_BE, {{0, {2, (24 << 1) | 1, -72}}}));
  sfu_row r = find(o, 0x20010);
  expect_rule(r.cfa, SFU_RULE_REGISTER, 15, 176);
  expect_rule(r.ra, SFU_RULE_REGISTER, 24, 0);
  expect_rule(r.fp, SFU_RULE_AT_CFA, 0, -72);
}

TEST(Rows, S390xRaPaddingMeansNotSaved) {
  Opened o = open(one_function(2, SFU_ABI_S390X_BE, {{0, {-1, 0, -72}, false}}));
  sfu_row r = find(o, 0x20000);
  expect_rule(r.cfa, SFU_RULE_REGISTER, 11, 152);  // FP-based, (-1 * 8 + 160)
  expect_rule(r.ra, SFU_RULE_UNCHANGED, 0, 0);
  expect_rule(r.fp, SFU_RULE_AT_CFA, 0, -72);
}

TEST(Rows, S390xV3OddWordsAreOffsets) {
  // V3 moved register rules to flexible FDEs: an odd word is just an offset.
  Opened o = open(one_function(3, SFU_ABI_S390X_BE, {{0, {0, -41}}}));
  expect_rule(find(o, 0x20000).ra, SFU_RULE_AT_CFA, 0, -41);
}

TEST(Rows, S390xFlexCfaOffsetIsDecoded) {
  Opened o = open(one_function(3, SFU_ABI_S390X_BE, {{0, {(15 << 3) | 1, 2, (16 << 3) | 1, 0}}}, true));
  sfu_row r = find(o, 0x20000);
  expect_rule(r.cfa, SFU_RULE_REGISTER, 15, 176);
  expect_rule(r.ra, SFU_RULE_REGISTER, 16, 0);
}

TEST(Rows, Aarch64BigEndianAndTopmostRows) {
  Opened o = open(one_function(2, SFU_ABI_AARCH64_BE, {{0, {0}}, {4, {16, -8, -16}, true, true}}));
  sfu_row top = find(o, 0x20000);
  expect_rule(top.cfa, SFU_RULE_REGISTER, 31, 0);
  expect_rule(top.ra, SFU_RULE_UNCHANGED, 0, 0);  // still in x30
  expect_rule(top.fp, SFU_RULE_UNCHANGED, 0, 0);
  sfu_row body = find(o, 0x20004);
  expect_rule(body.ra, SFU_RULE_AT_CFA, 0, -8);
  expect_rule(body.fp, SFU_RULE_AT_CFA, 0, -16);
  EXPECT_TRUE(body.flags & SFU_ROW_RA_SIGNED);
}

// The RA word 0 is padding ("RA not saved") on s390x only. On AArch64 the specification (V1,
// V2; V3's default form) reads the second word as the RA whatever its value, and so do binutils
// and Linux: RA at CFA+0. The walker's rules and sfu dump's columns must say the same.
TEST(Rows, Aarch64ZeroRaWordIsRaAtCfaNotPadding) {
  for (uint8_t v : {1, 2, 3}) {
    SCOPED_TRACE(int(v));
    Opened o = open(one_function(v, SFU_ABI_AARCH64_LE, {{0, {16, 0, -16}}}));
    sfu_row r = find(o, 0x20000);
    expect_rule(r.ra, SFU_RULE_AT_CFA, 0, 0);
    expect_rule(r.fp, SFU_RULE_AT_CFA, 0, -16);
    std::string text;
    ASSERT_EQ(sfu::tools::dump_table(o.table, text), SFU_OK);
    EXPECT_NE(text.find("0000000000020000  sp+16     c-16      c+0          "), std::string::npos) << text;
  }
  for (uint8_t v : {2, 3}) {
    SCOPED_TRACE(int(v));
    Opened o = open(one_function(v, SFU_ABI_S390X_BE, {{0, {0, 0, -72}}}));
    expect_rule(find(o, 0x20000).ra, SFU_RULE_UNCHANGED, 0, 0);
    std::string text;
    ASSERT_EQ(sfu::tools::dump_table(o.table, text), SFU_OK);
    EXPECT_NE(text.find("0000000000020000  sp+160    c-72      U            "), std::string::npos) << text;
  }
}

TEST(Rows, Aarch64RaWithoutFp) {
  Opened o = open(one_function(3, SFU_ABI_AARCH64_LE, {{0, {16, -8}}}));
  sfu_row r = find(o, 0x20000);
  expect_rule(r.ra, SFU_RULE_AT_CFA, 0, -8);
  expect_rule(r.fp, SFU_RULE_UNCHANGED, 0, 0);
}

TEST(Rows, FlexRulesOnAmd64) {
  // CFA = *(rbp - 8); RA from r3; FP = *(CFA + 16).
  Opened o = open(one_function(3, SFU_ABI_AMD64_LE, {{0, {(6 << 3) | 3, -8, (3 << 3) | 1, 0, 0x2, 16}}}, true));
  sfu_row r = find(o, 0x20000);
  expect_rule(r.cfa, SFU_RULE_AT_REGISTER, 6, -8);
  expect_rule(r.ra, SFU_RULE_REGISTER, 3, 0);
  expect_rule(r.fp, SFU_RULE_AT_CFA, 0, 16);
  EXPECT_TRUE(r.flags & SFU_ROW_FLEX);
}

TEST(Rows, FlexPaddingKeepsTheFixedRa) {
  Opened o = open(one_function(3, SFU_ABI_AMD64_LE, {{0, {0x39, 16, 0, 0x0, -16}}}, true));
  sfu_row r = find(o, 0x20000);
  expect_rule(r.ra, SFU_RULE_AT_CFA, 0, -8);
  expect_rule(r.fp, SFU_RULE_CFA_PLUS, 0, -16);  // value, not a load: deref bit clear
}

TEST(Rows, OutermostRow) {
  Opened o = open(one_function(3, SFU_ABI_AARCH64_LE, {{0, {0}}, {8, {}}}));
  sfu_row r = find(o, 0x20008);
  EXPECT_TRUE(r.flags & SFU_ROW_OUTERMOST);
  EXPECT_EQ(r.ra.kind, SFU_RULE_UNDEFINED);
}

TEST(Rows, FixedFpOffsetFillsAMissingFpRule) {
  TableSpec t = one_function(2, SFU_ABI_AMD64_LE, {{0, {16}}});
  t.fixed_fp = -16;
  Opened o = open(t);
  expect_rule(find(o, 0x20000).fp, SFU_RULE_AT_CFA, 0, -16);
}

TEST(Rows, PcmaskV2MatchesModuloRepeatSize) {
  TableSpec t = one_function(2, SFU_ABI_AMD64_LE, {{0, {8}}, {6, {16}}, {11, {24}}});
  t.fdes[0].pcmask = true;
  t.fdes[0].rep_size = 16;
  t.fdes[0].size = 64;
  Opened o = open(t);
  EXPECT_EQ(find(o, 0x20000 + 16 * 2 + 7).cfa.offset, 16);
  EXPECT_EQ(find(o, 0x20000 + 16 * 3 + 15).cfa.offset, 24);
  EXPECT_EQ(find(o, 0x20000 + 16 * 1 + 0).cfa.offset, 8);
}

TEST(Rows, PcmaskV1UsesTheLowByte) {
  // V1 has no repeat size; binutils 2.40 matched on the low 8 bits of the offset.
  TableSpec t = one_function(1, SFU_ABI_AMD64_LE, {{0, {8}}, {6, {16}}});
  t.fdes[0].pcmask = true;
  t.fdes[0].size = 0x300;
  Opened o = open(t);
  EXPECT_EQ(find(o, 0x20000 + 0x105).cfa.offset, 8);
  EXPECT_EQ(find(o, 0x20000 + 0x206).cfa.offset, 16);
}

TEST(Rows, UnsortedTablesAreScanned) {
  TableSpec t = sample_table(2, SFU_ABI_AMD64_LE);
  std::swap(t.fdes[0], t.fdes[1]);
  t.flags = 0;
  Opened o = open(t);
  EXPECT_EQ(find(o, 0x11000).func_start, 0x11000u);
  EXPECT_EQ(find(o, 0x11045).func_start, 0x11040u);
}

TEST(Rows, ManyFunctionsBinarySearch) {
  TableSpec t = one_function(3, SFU_ABI_AMD64_LE, {});
  t.fdes.clear();
  for (uint32_t i = 0; i < 1000; i++) {
    FdeSpec f;
    f.start = 0x400000 + i * 0x40;
    f.size = 0x30;  // 0x10-byte gaps between functions
    f.fres = {{0, {8}}, {1, {int32_t(16 + i % 7)}}};
    t.fdes.push_back(f);
  }
  Opened o = open(t);
  for (uint32_t i = 0; i < 1000; i += 37) {
    uint64_t start = 0x400000 + i * 0x40;
    EXPECT_EQ(find(o, start + 0x2f).cfa.offset, int32_t(16 + i % 7));
    sfu_row gap;
    EXPECT_EQ(sfu_table_find(&o.table, start + 0x30, &gap), SFU_E_NO_FUNCTION);
  }
}

TEST(Rows, WideRowStartsAndWords) {
  // 4-byte row starts and 4-byte words, in a big function.
  TableSpec t = one_function(3, SFU_ABI_AMD64_LE, {{0, {8}}, {0x12345, {0x10000, -0x20000}}});
  t.fdes[0].size = 0x20000;
  t.fdes[0].fre_type = 2;
  Opened o = open(t);
  sfu_row r = find(o, 0x20000 + 0x12345);
  EXPECT_EQ(r.cfa.offset, 0x10000);
  EXPECT_EQ(r.fp.offset, -0x20000);
  EXPECT_EQ(find(o, 0x20000 + 0x12344).cfa.offset, 8);
}

}  // namespace
