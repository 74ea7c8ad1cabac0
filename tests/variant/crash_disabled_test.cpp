// The core built with CONFIG_SFU_CRASH_RECORDS off (tests/variant/minimal.config): the crash calls
// stay, answer crash-records-disabled, and write nothing.
#include <gtest/gtest.h>

#include "sfu/crash.h"
#include "support/fake_machine.h"

using namespace sfu::test;

namespace {

TEST(CrashDisabled, EveryCallAnswersDisabled) {
  FakeMemory mem(false);
  mem.add_stack(0x7000, 0x8000);
  sfu_walk_config config = mem.config(SFU_ABI_AMD64_LE);
  sfu_regs regs = regs_with(0x100000, {{SFU_X86_64_RSP, 0x7f00}});
  std::vector<uint64_t> area(1024, 0x5555555555555555ull);
  sfu_crash_view view;
  EXPECT_STREQ(sfu_error_name(sfu_crash_capture(area.data(), 8192, nullptr, &regs, &config)),
               "crash-records-disabled");
  EXPECT_EQ(sfu_crash_open(&view, area.data(), 8192), SFU_E_CRASH_DISABLED);
  EXPECT_EQ(sfu_crash_take(&view, area.data(), 8192), SFU_E_CRASH_DISABLED);
  EXPECT_EQ(sfu_crash_wait(area.data(), 10), SFU_E_CRASH_DISABLED);
  for (uint64_t w : area) ASSERT_EQ(w, 0x5555555555555555ull);
  view.rec = reinterpret_cast<const uint8_t *>(area.data());
  view.length = 8192;
  sfu_sink sink{[](void *, char) { ADD_FAILURE() << "printed"; }, nullptr};
  EXPECT_EQ(sfu_crash_print(&sink, &view), 0u);
  EXPECT_EQ(sfu_crc32(0, "123456789", 9), 0xcbf43926u);  // stays: kernels share it
}

}  // namespace
