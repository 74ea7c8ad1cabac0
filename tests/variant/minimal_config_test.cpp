// The core built with tests/variant/minimal.config: what the Kconfig switches change.
#include <gtest/gtest.h>

#include "sfu/sframe.h"
#include "support/sframe_builder.h"

using namespace sfu::test;

namespace {

sfu_error init(const std::vector<uint8_t> &sec, sfu_table &t) {
  sfu_table_desc d{};
  d.section = sec.data();
  d.size = sec.size();
  d.section_addr = 0x10000;
  return sfu_table_init(&t, &d);
}

TEST(MinimalConfig, DisabledVersionIsRefusedByName) {
  sfu_table t;
  EXPECT_EQ(init(build_section(sample_table(1, SFU_ABI_AMD64_LE)), t), SFU_E_VERSION_DISABLED);
  EXPECT_EQ(init(build_section(sample_table(2, SFU_ABI_AMD64_LE)), t), SFU_OK);
}

TEST(MinimalConfig, InitSkipsTheFullValidation) {
  TableSpec spec = sample_table(3, SFU_ABI_AMD64_LE);
  std::swap(spec.fdes[0], spec.fdes[1]);  // claims sorted, is not
  auto sec = build_section(spec);
  sfu_table t;
  ASSERT_EQ(init(sec, t), SFU_OK);
  EXPECT_EQ(t.ready, 1);
  EXPECT_EQ(sfu_table_validate(&t), SFU_E_FDES_NOT_SORTED);
}

TEST(MinimalConfig, ValidateStillAcceptsAGoodTable) {
  auto sec = build_section(sample_table(3, SFU_ABI_S390X_BE));
  sfu_table t;
  ASSERT_EQ(init(sec, t), SFU_OK);
  EXPECT_EQ(sfu_table_validate(&t), SFU_OK);
  EXPECT_EQ(t.ready, 2);
}

}  // namespace
