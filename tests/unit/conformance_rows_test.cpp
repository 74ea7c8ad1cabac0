// Every corpus case: the rows the decoder gives equal the rows binutils' objdump printed.
// Checked twice: row by row through the table views (every FRE, zero-size functions too), and
// through sfu_table_find at the first and last byte each row covers.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sframe/table.h"
#include "support/corpus.h"
#include "support/objdump_rows.h"

using namespace sfu::test;
using sfu::sframe::Fde;
using sfu::sframe::Fre;

namespace {

std::string read_objdump(const std::string &name) {
  std::ifstream in(corpus_dir() + "/" + name + "/objdump.txt");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void expect_row(const ExpectedRow &want, const sfu_row &got, const std::string &where) {
  EXPECT_TRUE(rule_matches(want.cfa, got.cfa)) << where << " CFA " << describe(got.cfa);
  EXPECT_TRUE(rule_matches(want.ra, got.ra)) << where << " RA " << describe(got.ra);
  EXPECT_TRUE(rule_matches(want.fp, got.fp)) << where << " FP " << describe(got.fp);
  EXPECT_EQ(want.outermost, (got.flags & SFU_ROW_OUTERMOST) != 0) << where;
  EXPECT_EQ(want.ra_signed, (got.flags & SFU_ROW_RA_SIGNED) != 0) << where;
}

class ConformanceRows : public testing::TestWithParam<std::string> {};

TEST_P(ConformanceRows, DecodedRowsEqualObjdump) {
  const std::string name = GetParam();
  CorpusCase c = load_corpus_case(name);
  std::vector<ObjdumpFunction> funcs = parse_objdump_functions(read_objdump(name));
  sfu_table t;
  sfu_table_desc d{};
  d.section = c.section.data();
  d.size = c.section.size();
  d.section_addr = c.section_base;
  sfu_error err = sfu_table_init(&t, &d);
  if (c.section.empty()) {
    EXPECT_EQ(err, SFU_E_EMPTY);
    EXPECT_TRUE(funcs.empty());
    return;
  }
  ASSERT_EQ(err, SFU_OK) << sfu_error_name(err);
  ASSERT_EQ(funcs.size(), t.num_fdes);
  ASSERT_FALSE(funcs.empty());

  for (uint32_t i = 0; i < t.num_fdes; i++) {
    const ObjdumpFunction &want = funcs[i];
    std::string fn = name + " func " + std::to_string(i);
    Fde fde;
    ASSERT_EQ(read_fde(t, i, fde), SFU_OK);
    EXPECT_EQ(fde.start, want.pc) << fn;
    EXPECT_EQ(fde.size, want.size) << fn;
    EXPECT_EQ(fde.pcmask(), want.pcmask) << fn;
    ASSERT_EQ(fde.num_fres, want.rows.size()) << fn;

    uint32_t at = fde.fres_at;
    for (uint32_t j = 0; j < fde.num_fres; j++) {
      const ObjdumpRow &wr = want.rows[j];
      std::string where = fn + " row " + std::to_string(j);
      Fre fre;
      ASSERT_EQ(read_fre(t, fde, at, fre), SFU_OK) << where;
      at = fre.end;
      sfu_row row;
      ASSERT_EQ(row_from_fre(t, fde, fre, row), SFU_OK) << where;
      EXPECT_EQ(want.pcmask ? fre.start : fde.start + fre.start, wr.address) << where;
      expect_row(expected_rules(wr, t.abi, t.fixed_ra_offset, t.fixed_fp_offset), row, where);
      EXPECT_EQ(want.attrs.find('S') != std::string::npos, (row.flags & SFU_ROW_SIGNAL_FRAME) != 0) << where;
      EXPECT_EQ(want.attrs.find('F') != std::string::npos, (row.flags & SFU_ROW_FLEX) != 0) << where;
      EXPECT_EQ(want.pauth_key_b, (row.flags & SFU_ROW_PAUTH_KEY_B) != 0) << where;

      // The same row through the public lookup, at the first and last byte it covers.
      if (want.pcmask || fde.size == 0) continue;
      uint64_t first = want.rows[j].address;
      uint64_t last = j + 1 < want.rows.size() ? want.rows[j + 1].address - 1 : fde.start + fde.size - 1;
      for (uint64_t pc : {first, last}) {
        sfu_row found;
        ASSERT_EQ(sfu_table_find(&t, pc, &found), SFU_OK) << where << " pc " << std::hex << pc;
        EXPECT_EQ(found.func_start, fde.start);
        EXPECT_EQ(found.row_start, fre.start) << where << " pc " << std::hex << pc;
        expect_row(expected_rules(wr, t.abi, t.fixed_ra_offset, t.fixed_fp_offset), found, where);
      }
    }
  }
}

std::string case_name(const testing::TestParamInfo<std::string> &info) {
  std::string s = info.param;
  for (char &ch : s)
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return s;
}

INSTANTIATE_TEST_SUITE_P(Corpus, ConformanceRows, testing::ValuesIn(corpus_case_names()), case_name);

TEST(ConformanceCorpus, IsThere) { EXPECT_GE(corpus_case_names().size(), 90u); }

// A real PLT function (gas 2.44): PCMASK, one 8-byte block, its one row at every byte. (Rows
// repeating over several blocks: Rows.PcmaskV2MatchesModuloRepeatSize.)
TEST(ConformanceCorpus, PltFunctionIsPcmaskWithOneRowPerBlock) {
  CorpusCase c = load_corpus_case("test-fp-x86_64-2.44");
  sfu_table t;
  sfu_table_desc d{};
  d.section = c.section.data();
  d.size = c.section.size();
  d.section_addr = c.section_base;
  ASSERT_EQ(sfu_table_init(&t, &d), SFU_OK);
  Fde plt;
  ASSERT_EQ(read_fde(t, 1, plt), SFU_OK);
  ASSERT_TRUE(plt.pcmask());
  ASSERT_EQ(plt.rep_size, 8);  // one 8-byte block; objdump: func idx [1], size 8
  for (uint64_t pc = plt.start; pc < plt.start + plt.size; pc++) {
    sfu_row row;
    ASSERT_EQ(sfu_table_find(&t, pc, &row), SFU_OK);
    EXPECT_EQ(row.row_start, 0u);
    EXPECT_EQ(row.cfa.offset, 16);
    EXPECT_TRUE(row.flags & SFU_ROW_PCMASK);
  }
}

}  // namespace
