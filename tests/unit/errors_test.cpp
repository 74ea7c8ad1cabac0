// One test per decoder error: start from a valid table, damage exactly one thing, and expect
// exactly that error's name. docs/errors.md points at these tests.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sfu/sframe.h"
#include "sfu_autoconf.h"
#include "support/sframe_builder.h"
#include "support/test_names.h"

using namespace sfu::test;

namespace {

sfu_table_desc desc_for(const std::vector<uint8_t> &sec, uint64_t addr = 0x10000) {
  sfu_table_desc d{};
  d.section = sec.data();
  d.size = sec.size();
  d.section_addr = addr;
  d.abi = SFU_ABI_ANY;
  return d;
}

std::string init_error(const std::vector<uint8_t> &sec, sfu_table_desc d) {
  sfu_table t;
  d.section = sec.data();
  d.size = sec.size();
  return sfu_error_name(sfu_table_init(&t, &d));
}

std::string init_error(const std::vector<uint8_t> &sec) { return init_error(sec, desc_for(sec)); }

// A table only opened, not validated (CONFIG_SFU_VALIDATE_ON_REGISTER=n): its lookups meet a
// damaged row themselves. The header must be fine.
sfu_table opened(const std::vector<uint8_t> &sec, uint64_t addr = 0x10000) {
  sfu_table t{};
  sfu_table_desc d = desc_for(sec, addr);
  EXPECT_EQ(sfu_table_open(&t, &d), SFU_OK);
  return t;
}

std::vector<uint8_t> sample(uint8_t version = 3, uint8_t abi = SFU_ABI_AMD64_LE, Layout *l = nullptr) {
  return build_section(sample_table(version, abi), l);
}

TEST(Errors, EveryErrorHasADistinctName) {
  std::vector<std::string> seen;
  for (int e = 0; e < SFU_ERROR_COUNT; e++) {
    std::string name = sfu_error_name(sfu_error(e));
    EXPECT_NE(name, "unknown-error");
    for (const std::string &s : seen) EXPECT_NE(s, name);
    seen.push_back(name);
  }
  EXPECT_STREQ(sfu_error_name(sfu_error(SFU_ERROR_COUNT)), "unknown-error");
  EXPECT_STREQ(sfu_error_name(sfu_error(-1)), "unknown-error");
}

TEST(Errors, SamplesAreValidForEveryAbiAndVersion) {
  for (uint8_t v = 1; v <= 3; v++)
    for (uint8_t abi : {SFU_ABI_AMD64_LE, SFU_ABI_AARCH64_LE, SFU_ABI_AARCH64_BE, SFU_ABI_S390X_BE}) {
      if (abi == SFU_ABI_S390X_BE && v == 1) continue;
      EXPECT_EQ(init_error(sample(v, abi)), "ok") << "v" << int(v) << " abi " << int(abi);
    }
}

TEST(Errors, Empty) {
  std::vector<uint8_t> none;
  EXPECT_EQ(init_error(none), "empty-section");
}

TEST(Errors, NullArgument) {
  auto sec = sample();
  sfu_table t;
  sfu_table_desc d = desc_for(sec);
  EXPECT_EQ(sfu_table_init(nullptr, &d), SFU_E_NULL_ARGUMENT);
  EXPECT_EQ(sfu_table_init(&t, nullptr), SFU_E_NULL_ARGUMENT);
  d.section = nullptr;
  EXPECT_EQ(sfu_table_init(&t, &d), SFU_E_NULL_ARGUMENT);
  sfu_row row;
  ASSERT_EQ(sfu_table_init(&t, &(d = desc_for(sec))), SFU_OK);
  EXPECT_EQ(sfu_table_find(&t, 0, nullptr), SFU_E_NULL_ARGUMENT);
  EXPECT_EQ(sfu_table_find(nullptr, 0, &row), SFU_E_NULL_ARGUMENT);
}

TEST(Errors, SectionTooLarge) {
  auto sec = sample();
  sfu_table_desc d = desc_for(sec);
  d.size = size_t(1) << 31;  // never read: refused before the header
  sfu_table t;
  EXPECT_EQ(sfu_table_init(&t, &d), SFU_E_SECTION_TOO_LARGE);
}

TEST(Errors, TruncatedHeader) {
  auto sec = sample();
  sec.resize(27);
  EXPECT_EQ(init_error(sec), "truncated-header");
}

TEST(Errors, BadMagic) {
  auto sec = sample();
  sec[0] = 0xe3;
  EXPECT_EQ(init_error(sec), "bad-magic");
}

TEST(Errors, BadVersion) {
  for (uint8_t v : {0, 4, 255}) {
    auto sec = sample();
    sec[2] = v;
    EXPECT_EQ(init_error(sec), "bad-version") << int(v);
  }
}

TEST(Errors, UnknownFlags) {
  auto v3 = sample(3);
  v3[3] |= SFU_F_FRAME_POINTER;  // removed in V3
  EXPECT_EQ(init_error(v3), "unknown-flags");
  auto v1 = sample(1);
  v1[3] |= SFU_F_FDE_FUNC_START_PCREL;  // V1 never had it
  EXPECT_EQ(init_error(v1), "unknown-flags");
  auto v2 = sample(2);
  v2[3] |= 0x80;
  EXPECT_EQ(init_error(v2), "unknown-flags");
}

TEST(Errors, BadAbi) {
  auto sec = sample();
  sec[4] = 5;
  EXPECT_EQ(init_error(sec), "bad-abi");
  sec[4] = 0;
  EXPECT_EQ(init_error(sec), "bad-abi");
  auto v1 = sample(1, SFU_ABI_AARCH64_BE);
  v1[4] = SFU_ABI_S390X_BE;  // s390x arrived with V2
  EXPECT_EQ(init_error(v1), "bad-abi");
}

TEST(Errors, AbiByteOrder) {
  auto sec = sample(3, SFU_ABI_AARCH64_LE);
  sec[4] = SFU_ABI_AARCH64_BE;  // a little-endian table cannot be big-endian AArch64
  EXPECT_EQ(init_error(sec), "abi-byte-order-mismatch");
}

TEST(Errors, AbiMismatch) {
  auto sec = sample(3, SFU_ABI_AARCH64_LE);
  sfu_table_desc d = desc_for(sec);
  d.abi = SFU_ABI_AMD64_LE;
  EXPECT_EQ(init_error(sec, d), "abi-mismatch");
  d.abi = SFU_ABI_AARCH64_LE;
  EXPECT_EQ(init_error(sec, d), "ok");
}

TEST(Errors, BadFixedRaOffset) {
  auto amd = sample(3, SFU_ABI_AMD64_LE);
  amd[6] = 0;  // AMD64 rows never say where the RA is
  EXPECT_EQ(init_error(amd), "bad-fixed-ra-offset");
  auto arm = sample(3, SFU_ABI_AARCH64_LE);
  arm[6] = uint8_t(-8);
  EXPECT_EQ(init_error(arm), "bad-fixed-ra-offset");
}

TEST(Errors, AuxHeaderOutOfBounds) {
  auto sec = sample();
  sec.resize(40);
  sec[7] = 13;  // 28 + 13 > 40
  EXPECT_EQ(init_error(sec), "auxhdr-out-of-bounds");
}

TEST(Errors, FdesOutOfBounds) {
  auto sec = sample();
  patch(sec, 0x08, 1000, 4);  // num_fdes
  EXPECT_EQ(init_error(sec), "fde-subsection-out-of-bounds");
  auto off = sample();
  patch(off, 0x14, 0xfffffff0, 4);  // fdeoff far past the end, no 32-bit wrap
  EXPECT_EQ(init_error(off), "fde-subsection-out-of-bounds");
}

TEST(Errors, FresOutOfBounds) {
  auto sec = sample();
  patch(sec, 0x10, 0xffffffff, 4);  // fre_len
  EXPECT_EQ(init_error(sec), "fre-subsection-out-of-bounds");
}

TEST(Errors, SubsectionsOverlap) {
  auto sec = sample();
  patch(sec, 0x18, 8, 4);  // FREs start inside the FDE array
  EXPECT_EQ(init_error(sec), "subsections-overlap");
}

TEST(Errors, AttributesOutOfBounds) {
  Layout l;
  auto sec = sample(3, SFU_ABI_AMD64_LE, &l);
  uint32_t fre_len = uint32_t(sec.size() - l.fres_at);
  patch(sec, l.fdes_at + 12, fre_len - 4, 4);  // start_fre_off: only 4 of 5 bytes left
  EXPECT_EQ(init_error(sec), "fde-attributes-out-of-bounds");
}

TEST(Errors, BadFdeInfo) {
  Layout l;
  auto v2 = sample(2, SFU_ABI_AMD64_LE, &l);
  v2[l.fdes_at + 16] |= 0x40;  // reserved bit 6
  EXPECT_EQ(init_error(v2), "bad-fde-info");
  auto v3 = sample(3, SFU_ABI_AMD64_LE, &l);
  v3[l.chain_at[0] + 2] |= 0x20;  // pauth key on AMD64
  EXPECT_EQ(init_error(v3), "bad-fde-info");
  auto info2 = sample(3, SFU_ABI_AMD64_LE, &l);
  info2[l.chain_at[0] + 3] |= 0x80;  // reserved info2 bits
  EXPECT_EQ(init_error(info2), "bad-fde-info");
}

TEST(Errors, BadFreType) {
  Layout l;
  auto sec = sample(2, SFU_ABI_AMD64_LE, &l);
  sec[l.fdes_at + 16] = (sec[l.fdes_at + 16] & 0xf0) | 3;
  EXPECT_EQ(init_error(sec), "bad-fre-type");
}

TEST(Errors, BadFdeType) {
  Layout l;
  auto sec = sample(3, SFU_ABI_AMD64_LE, &l);
  sec[l.chain_at[1] + 3] = 2;
  EXPECT_EQ(init_error(sec), "bad-fde-type");
}

TEST(Errors, PcmaskZeroRepeatSize) {
  TableSpec t = sample_table(2, SFU_ABI_AMD64_LE);
  t.fdes[1].pcmask = true;
  t.fdes[1].rep_size = 0;
  EXPECT_EQ(init_error(build_section(t)), "pcmask-zero-repeat-size");
  t.fdes[1].rep_size = 16;
  EXPECT_EQ(init_error(build_section(t)), "ok");
}

TEST(Errors, FunctionOutsideText) {
  auto sec = sample();
  sfu_table_desc d = desc_for(sec);
  d.text_start = 0x11000;
  d.text_end = 0x11060;  // the second function ends at 0x11060
  EXPECT_EQ(init_error(sec, d), "ok");
  d.text_end = 0x1105f;
  EXPECT_EQ(init_error(sec, d), "function-outside-text");
  d.text_start = 0x11001;
  d.text_end = 0x12000;
  EXPECT_EQ(init_error(sec, d), "function-outside-text");
  TableSpec wrap = sample_table(3, SFU_ABI_AMD64_LE);
  wrap.fdes.resize(1);
  wrap.fdes[0].start = ~uint64_t(0) - 0x10;  // start + size wraps around
  EXPECT_EQ(init_error(build_section(wrap)), "function-outside-text");
}

TEST(Errors, FdesNotSorted) {
  TableSpec t = sample_table(3, SFU_ABI_AMD64_LE);
  std::swap(t.fdes[0], t.fdes[1]);
  EXPECT_EQ(init_error(build_section(t)), "fdes-not-sorted");
  t.flags = SFU_F_FDE_FUNC_START_PCREL;  // no sorted flag: order does not matter
  EXPECT_EQ(init_error(build_section(t)), "ok");
}

TEST(Errors, FunctionsOverlap) {
  TableSpec t = sample_table(3, SFU_ABI_AMD64_LE);
  t.fdes[0].size += 1;
  EXPECT_EQ(init_error(build_section(t)), "functions-overlap");
}

TEST(Errors, FreOutOfBounds) {
  Layout l;
  auto sec = sample(2, SFU_ABI_AMD64_LE, &l);
  patch(sec, l.fdes_at + 8, uint32_t(sec.size() - l.fres_at) + 1, 4);  // start_fre_off past end
  EXPECT_EQ(init_error(sec), "fre-out-of-bounds");
  auto count = sample(2, SFU_ABI_AMD64_LE, &l);
  patch(count, l.fdes_at + 20 + 12, 50, 4);  // second FDE claims 50 rows
  EXPECT_EQ(init_error(count), "fre-out-of-bounds");
  // A table only opened: the lookup's row scan stops at the end of the FRE data, and only a PC
  // whose scan gets there is refused.
  sfu_table t = opened(count);
  sfu_row row;
  EXPECT_EQ(sfu_table_find(&t, 0x1105f, &row), SFU_E_FRE_OUT_OF_BOUNDS);
  EXPECT_EQ(sfu_table_find(&t, 0x11040, &row), SFU_OK);
  EXPECT_EQ(row.row_start, 0u);
}

TEST(Errors, BadOffsetSize) {
  Layout l;
  auto sec = sample(3, SFU_ABI_AMD64_LE, &l);
  sec[l.fre_at[0] + 1] |= 0x60;  // word size code 3
  EXPECT_EQ(init_error(sec), "bad-offset-size");
  // Only opened: the lookup's row scan meets that row in the first function, not in the second.
  sfu_table t = opened(sec);
  sfu_row row;
  EXPECT_EQ(sfu_table_find(&t, 0x11000, &row), SFU_E_BAD_OFFSET_SIZE);
  EXPECT_EQ(sfu_table_find(&t, 0x11030, &row), SFU_E_BAD_OFFSET_SIZE);
  EXPECT_EQ(sfu_table_find(&t, 0x11044, &row), SFU_OK);
  EXPECT_EQ(row.row_start, 4u);
}

TEST(Errors, BadWordCount) {
  TableSpec amd = sample_table(3, SFU_ABI_AMD64_LE);
  amd.fdes[0].fres[1].words = {16, -16, -24};  // AMD64 has no RA word
  EXPECT_EQ(init_error(build_section(amd)), "bad-data-word-count");
  TableSpec arm = sample_table(3, SFU_ABI_AARCH64_LE);
  arm.fdes[0].fres[1].words = {16, -8, -16, -24};
  EXPECT_EQ(init_error(build_section(arm)), "bad-data-word-count");
  TableSpec v1 = sample_table(1, SFU_ABI_AMD64_LE);
  v1.fdes[1].fres[1].words = {};  // V1 has no outermost rows
  EXPECT_EQ(init_error(build_section(v1)), "bad-data-word-count");
  TableSpec flex = sample_table(3, SFU_ABI_AMD64_LE);
  flex.fdes[1].flex = true;
  flex.fdes[1].fres = {{0, {0x39}}};  // a flex CFA rule needs two words
  EXPECT_EQ(init_error(build_section(flex)), "bad-data-word-count");
}

TEST(Errors, FreStartNotRising) {
  TableSpec t = sample_table(3, SFU_ABI_AMD64_LE);
  t.fdes[0].fres[2].start = t.fdes[0].fres[1].start;
  EXPECT_EQ(init_error(build_section(t)), "fre-start-not-rising");
}

TEST(Errors, FreStartOutsideFunction) {
  TableSpec t = sample_table(3, SFU_ABI_AMD64_LE);
  t.fdes[1].fres[1].start = t.fdes[1].size;  // at the very end: allowed, matches no PC
  EXPECT_EQ(init_error(build_section(t)), "ok");
  t.fdes[1].fres[1].start = t.fdes[1].size + 1;
  EXPECT_EQ(init_error(build_section(t)), "fre-start-outside-function");
  TableSpec mask = sample_table(2, SFU_ABI_AMD64_LE);
  mask.fdes[1].pcmask = true;
  mask.fdes[1].rep_size = 3;  // the row at 4 is past a 3-byte block
  EXPECT_EQ(init_error(build_section(mask)), "fre-start-outside-function");
}

TEST(Errors, BadFlexRule) {
  TableSpec t = sample_table(3, SFU_ABI_AMD64_LE);
  t.fdes[1].flex = true;
  t.fdes[1].fres = {{0, {0x39, 8}}};
  EXPECT_EQ(init_error(build_section(t)), "ok");
  t.fdes[1].fres = {{0, {0x02, 8}}};  // CFA from the CFA
  EXPECT_EQ(init_error(build_section(t)), "bad-flex-rule");
  t.fdes[1].fres = {{0, {0x3d, 8}}};  // reserved control bit 2
  EXPECT_EQ(init_error(build_section(t)), "bad-flex-rule");
  t.fdes[1].fres = {{0, {0x39, 8, 0, 0x33, 0}}};  // padded RA, then FP: fine
  EXPECT_EQ(init_error(build_section(t)), "ok");
  t.fdes[1].fres = {{0, {0x39, 8, 0x19, 0, 0x33}}};  // odd count without padding
  EXPECT_EQ(init_error(build_section(t)), "bad-flex-rule");
}

TEST(Errors, BadRegister) {
  TableSpec t = sample_table(3, SFU_ABI_AMD64_LE);
  t.fdes[1].flex = true;
  t.fdes[1].fres = {{0, {(256 << 3) | 1, 8}}};
  EXPECT_EQ(init_error(build_section(t)), "bad-register-number");
  TableSpec s = sample_table(2, SFU_ABI_S390X_BE);
  s.fdes[1].fres[1].words = {2, (300 << 1) | 1};  // V2 s390x: RA in register 300
  EXPECT_EQ(init_error(build_section(s)), "bad-register-number");
}

TEST(Errors, CfaOffsetOutOfRange) {
  TableSpec t = sample_table(2, SFU_ABI_S390X_BE);
  t.fdes[0].fres[0].words = {0x0fffffeb};  // 0x0fffffeb * 8 + 160 = INT32_MAX - 7: fits
  EXPECT_EQ(init_error(build_section(t)), "ok");
  t.fdes[0].fres[0].words = {0x10000000};
  EXPECT_EQ(init_error(build_section(t)), "cfa-offset-out-of-range");
  TableSpec flex = sample_table(3, SFU_ABI_S390X_BE);
  flex.fdes[1].flex = true;
  flex.fdes[1].fres = {{0, {(15 << 3) | 1, -0x10000000 - 21}}};
  EXPECT_EQ(init_error(build_section(flex)), "cfa-offset-out-of-range");
}

TEST(Errors, FreCountMismatch) {
  auto sec = sample();
  uint32_t n = sec[0x0c];
  patch(sec, 0x0c, n + 1, 4);
  EXPECT_EQ(init_error(sec), "fre-count-mismatch");
}

TEST(Errors, FreLengthMismatch) {
  auto sec = sample();
  sec.push_back(0);  // a stray byte the rows do not account for
  uint32_t len = uint32_t(sec[0x10]);
  patch(sec, 0x10, len + 1, 4);
  EXPECT_EQ(init_error(sec), "fre-length-mismatch");
}

TEST(Errors, NotInitialized) {
  sfu_table t{};
  sfu_row row;
  EXPECT_EQ(sfu_table_find(&t, 0x11000, &row), SFU_E_NOT_INITIALIZED);
  EXPECT_EQ(sfu_table_validate(&t), SFU_E_NOT_INITIALIZED);
  auto sec = sample();
  sec[0] = 0;
  sfu_table_desc d = desc_for(sec);
  EXPECT_EQ(sfu_table_init(&t, &d), SFU_E_BAD_MAGIC);
  EXPECT_EQ(sfu_table_find(&t, 0x11000, &row), SFU_E_NOT_INITIALIZED);
}

TEST(Errors, ValidateClosesABadTable) {
  TableSpec spec = sample_table(3, SFU_ABI_AMD64_LE);
  std::swap(spec.fdes[0], spec.fdes[1]);
  auto sec = build_section(spec);
  sfu_table t = opened(sec);  // the header is fine
  EXPECT_EQ(sfu_table_validate(&t), SFU_E_FDES_NOT_SORTED);
  sfu_row row;
  EXPECT_EQ(sfu_table_find(&t, 0x11000, &row), SFU_E_NOT_INITIALIZED);
}

TEST(Errors, NoFunction) {
  auto sec = sample();
  sfu_table t;
  sfu_table_desc d = desc_for(sec);
  ASSERT_EQ(sfu_table_init(&t, &d), SFU_OK);
  sfu_row row;
  EXPECT_EQ(sfu_table_find(&t, 0x10fff, &row), SFU_E_NO_FUNCTION);
  EXPECT_EQ(sfu_table_find(&t, 0x11060, &row), SFU_E_NO_FUNCTION);
  EXPECT_EQ(sfu_table_find(&t, 0, &row), SFU_E_NO_FUNCTION);
  EXPECT_EQ(sfu_table_find(&t, ~uint64_t(0), &row), SFU_E_NO_FUNCTION);
  d.text_start = 0x11000;
  d.text_end = 0x11040;  // only the first function's text is ours
  TableSpec one = sample_table(3, SFU_ABI_AMD64_LE);
  one.fdes.resize(1);
  auto sec1 = build_section(one);
  d.section = sec1.data();
  d.size = sec1.size();
  ASSERT_EQ(sfu_table_init(&t, &d), SFU_OK);
  EXPECT_EQ(sfu_table_find(&t, 0x11040, &row), SFU_E_NO_FUNCTION);
}

TEST(Errors, NoRow) {
  TableSpec t = sample_table(3, SFU_ABI_AMD64_LE);
  t.fdes[1].fres.erase(t.fdes[1].fres.begin());  // first row now starts at offset 4
  auto sec = build_section(t);
  sfu_table table;
  sfu_table_desc d = desc_for(sec);
  ASSERT_EQ(sfu_table_init(&table, &d), SFU_OK);
  sfu_row row;
  EXPECT_EQ(sfu_table_find(&table, 0x11043, &row), SFU_E_NO_ROW);
  EXPECT_EQ(sfu_table_find(&table, 0x11044, &row), SFU_OK);
}

// One function of `rows` rows (x86_64, V2: V3 counts rows in 16 bits, the cap may be 65535).
std::vector<uint8_t> function_of_rows(uint32_t rows) {
  TableSpec t = table_spec(2, SFU_ABI_AMD64_LE, {});
  FdeSpec f = fde_spec(0x200000, rows * 2, {});
  for (uint32_t i = 0; i < rows; i++) f.fres.push_back(FreSpec{i * 2, {16}});
  t.fdes.push_back(f);
  return build_section(t);
}

TEST(Errors, TooManyRows) {
  EXPECT_EQ(init_error(function_of_rows(CONFIG_SFU_MAX_FUNCTION_ROWS)), "ok");
  auto sec = function_of_rows(CONFIG_SFU_MAX_FUNCTION_ROWS + 1);
  EXPECT_EQ(init_error(sec), "function-rows-over-limit");
  // A table only opened: the lookup refuses the function instead of scanning its rows.
  sfu_table t = opened(sec, 0x200000);
  sfu_row row;
  EXPECT_EQ(sfu_table_find(&t, 0x200000, &row), SFU_E_TOO_MANY_ROWS);
}

std::vector<uint8_t> unsorted_of(uint32_t functions) {
  TableSpec t = table_spec(2, SFU_ABI_AMD64_LE, {});
  t.flags = 0;
  for (uint32_t i = 0; i < functions; i++) t.fdes.push_back(fde_spec(0x300000 - (i + 1) * 16, 16, {FreSpec{0, {8}}}));
  return build_section(t);
}

TEST(Errors, UnsortedTooLarge) {
  EXPECT_EQ(init_error(unsorted_of(CONFIG_SFU_MAX_UNSORTED_FDES)), "ok");
  auto sec = unsorted_of(CONFIG_SFU_MAX_UNSORTED_FDES + 1);
  sfu_table t;
  sfu_table_desc d = desc_for(sec, 0x200000);
  EXPECT_EQ(sfu_table_open(&t, &d), SFU_E_UNSORTED_TOO_LARGE);  // at open, before any lookup
  EXPECT_EQ(init_error(sec), "unsorted-table-too-large");
  // The same functions sorted are any number.
  TableSpec sorted = table_spec(2, SFU_ABI_AMD64_LE, {});
  for (uint32_t i = 0; i <= CONFIG_SFU_MAX_UNSORTED_FDES; i++)
    sorted.fdes.push_back(fde_spec(0x300000 + i * 16, 16, {FreSpec{0, {8}}}));
  EXPECT_EQ(init_error(build_section(sorted)), "ok");
}

TEST(Errors, BadIndexMemory) {
  auto sec = sample();
  sfu_table_desc d = desc_for(sec);
  d.text_start = 0x10000;
  d.text_end = 0x12000;
  size_t need = sfu_index_size(&d);
  EXPECT_EQ(need, (0x2000 / SFU_INDEX_BLOCK + 1) * SFU_INDEX_BUCKET + SFU_INDEX_FIXED);
  sfu_table t;
  ASSERT_EQ(sfu_table_init(&t, &d), SFU_OK);
  std::vector<uint64_t> mem(need / 8 + 2);
  char *bytes = reinterpret_cast<char *>(mem.data());
  EXPECT_EQ(sfu_table_index(&t, mem.data(), need - 1), SFU_E_BAD_INDEX_MEMORY);
  EXPECT_EQ(sfu_table_index(&t, bytes + 4, need), SFU_E_BAD_INDEX_MEMORY);  // 4-aligned is not enough
  EXPECT_EQ(sfu_table_index(&t, bytes + 2, need), SFU_E_BAD_INDEX_MEMORY);
  EXPECT_EQ(t.index, nullptr);
  EXPECT_EQ(sfu_table_index(&t, bytes + 8, need), SFU_OK);
  ASSERT_NE(t.index, nullptr);
  EXPECT_GE(reinterpret_cast<const char *>(t.index), bytes + 8);
  EXPECT_LE(reinterpret_cast<const char *>(t.index) + t.index_entries * SFU_INDEX_BUCKET, bytes + 8 + need);
  // No text range: nothing to index.
  sfu_table bare;
  sfu_table_desc nd = desc_for(sec);
  EXPECT_EQ(sfu_index_size(&nd), 0u);
  ASSERT_EQ(sfu_table_init(&bare, &nd), SFU_OK);
  EXPECT_EQ(sfu_table_index(&bare, mem.data(), mem.size() * 8), SFU_E_BAD_INDEX_MEMORY);
}

}  // namespace

namespace {

TEST(Errors, EveryErrorIsDocumented) {
  std::ifstream in(std::string(SFU_SOURCE_DIR) + "/docs/errors.md");
  ASSERT_TRUE(in) << "docs/errors.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  for (int e = 0; e < SFU_ERROR_COUNT; e++) {
    std::string name = std::string("`") + sfu_error_name(sfu_error(e)) + "`";
    EXPECT_NE(ss.str().find(name), std::string::npos) << name << " is not in docs/errors.md";
  }
}

// The last column of every error's row names the tests that raise it ("Suite.Test", or "Test"
// in the suite its section names): each must be a test that exists.
TEST(Errors, EveryTestTheErrorTablesNameExists) {
  std::set<std::string> tests = test_names_under(std::string(SFU_SOURCE_DIR) + "/tests");  // "Suite.Test"
  for (const std::string &t : std::set<std::string>(tests)) tests.insert(t.substr(t.find('.') + 1));  // and "Test"
  ASSERT_GT(tests.size(), 100u);
  std::ifstream in(std::string(SFU_SOURCE_DIR) + "/docs/errors.md");
  ASSERT_TRUE(in);
  const std::regex name_re(R"(`([A-Za-z_][\w.]*)`)");
  std::string line;
  int rows = 0;
  bool tests_column = false;  // under a "| name | raised when | test |" header
  while (std::getline(in, line)) {
    if (line.rfind("| name |", 0) == 0) tests_column = line == "| name | raised when | test |";
    if (!tests_column || line.rfind("| `", 0) != 0) continue;  // an error's row
    std::string last = line.substr(0, line.find_last_of('|'));
    last = last.substr(last.find_last_of('|') + 1);
    rows++;
    for (std::sregex_iterator it(last.begin(), last.end(), name_re), end; it != end; ++it)
      EXPECT_TRUE(tests.count((*it)[1].str())) << (*it)[1].str() << " (docs/errors.md) is no test in tests/";
  }
  EXPECT_GT(rows, 50);
}

}  // namespace
