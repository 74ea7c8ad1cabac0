// The x86_64 core as a kernel links it (build/x86_64/libsfu.a: freestanding, SFU_BUILD_ABI the
// build's own), run on the host: what only a target build does. Such a build serves its own ABI
// alone (format.h's ABI tests are constants there), so it must refuse every other one by name,
// whatever the caller asks for, and still read its own exactly.
#include <gtest/gtest.h>

#include "sfu/unwind.h"
#include "support/sframe_builder.h"

namespace {

using sfu::test::build_section;
using sfu::test::sample_table;
using sfu::test::TableSpec;

sfu_error open_as(const std::vector<uint8_t> &sec, const TableSpec &spec, uint8_t asked, sfu_table &t) {
  sfu_table_desc d{};
  d.section = sec.data();
  d.size = sec.size();
  d.section_addr = spec.section_addr;
  d.abi = asked;
  return sfu_table_open(&t, &d);
}

TEST(TargetBuild, RefusesAnotherAbiEvenWhenAskedFor) {
  for (uint8_t abi : {SFU_ABI_AARCH64_BE, SFU_ABI_AARCH64_LE, SFU_ABI_S390X_BE})
    for (uint8_t version : {2, 3}) {
      TableSpec spec = sample_table(version, abi);
      auto sec = build_section(spec);
      sfu_table t;
      EXPECT_EQ(open_as(sec, spec, abi, t), SFU_E_ABI_MISMATCH) << "abi " << int(abi) << " V" << int(version);
      EXPECT_EQ(open_as(sec, spec, SFU_ABI_ANY, t), SFU_E_ABI_MISMATCH) << "abi " << int(abi) << " V" << int(version);
    }
}

TEST(TargetBuild, ReadsItsOwnAbi) {
  TableSpec spec = sample_table(2, SFU_ABI_AMD64_LE);  // first function: push %rbp at +0, mov at +1
  auto sec = build_section(spec);
  sfu_table t;
  ASSERT_EQ(open_as(sec, spec, SFU_ABI_ANY, t), SFU_OK);
  ASSERT_EQ(sfu_table_validate(&t), SFU_OK);
  sfu_row row;
  ASSERT_EQ(sfu_table_find(&t, spec.fdes[0].start + 2, &row), SFU_OK);
  EXPECT_EQ(row.row_start, 1u);
  EXPECT_EQ(row.cfa.kind, SFU_RULE_REGISTER);
  EXPECT_EQ(row.cfa.reg, SFU_X86_64_RSP);
  EXPECT_EQ(row.cfa.offset, 16);
  EXPECT_EQ(row.ra.kind, SFU_RULE_AT_CFA);
  EXPECT_EQ(row.ra.offset, -8);
  EXPECT_EQ(row.fp.kind, SFU_RULE_AT_CFA);
  EXPECT_EQ(row.fp.offset, -16);
}

TEST(TargetBuild, WalksOnlyItsOwnAbi) {
  uint64_t words[4] = {};
  sfu_stack stack{uint64_t(uintptr_t(words)), uint64_t(uintptr_t(words + 4)), SFU_STACK_TASK};
  sfu_regs regs{};
  regs.pc = 0x1000;
  regs.r[SFU_X86_64_RSP] = stack.lo;
  regs.valid = 1u << SFU_X86_64_RSP;
  sfu_walk_config cfg{};
  cfg.stacks = &stack;
  cfg.num_stacks = 1;
  sfu_cursor c;
  for (uint8_t abi : {SFU_ABI_AARCH64_BE, SFU_ABI_AARCH64_LE, SFU_ABI_S390X_BE}) {
    cfg.abi = abi;
    sfu_walk_start(&c, &regs, &cfg);
    EXPECT_EQ(sfu_walk_stop(&c), SFU_STOP_BAD_START) << "abi " << int(abi);
  }
  cfg.abi = SFU_ABI_AMD64_LE;
  sfu_walk_start(&c, &regs, &cfg);
  EXPECT_EQ(sfu_walk_stop(&c), SFU_STOP_NONE);
}

}  // namespace
