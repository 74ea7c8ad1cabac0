// The profiler in the unit suite's core, built with the Kconfig defaults: CONFIG_SFU_PROFILE off.
// The calls stay, init answers profile-disabled, and nothing samples, prints or writes.
// (The profiler on: profile_test.cpp, in build/tests/profile_tests.)
#include <gtest/gtest.h>

#include <vector>

#include "config.h"
#include "sfu/profile.h"
#include "support/x86_chain.h"

using namespace sfu::test;

namespace {

TEST(ProfileDisabled, EveryCallDoesNothing) {
  static_assert(!sfu::config::kProfile, "the unit suite's core is built with the defaults: no profiler");
  X86Chain x;
  sfu_walk_config config = x.mem.config(SFU_ABI_AMD64_LE);
  sfu_regs regs = x.start();
  std::vector<uint64_t> memory(SFU_PROFILE_MEMORY_SIZE(4, 8) / 8, 0x5555555555555555ull);
  sfu_profile p;
  for (size_t i = 0; i < sizeof p; i++) reinterpret_cast<uint8_t *>(&p)[i] = 0x77;
  sfu_profile_params params{4, 8, 0, nullptr};
  EXPECT_STREQ(sfu_error_name(sfu_profile_init(&p, memory.data(), memory.size() * 8, &params)), "profile-disabled");
  EXPECT_EQ(sfu_profile_init(nullptr, nullptr, 0, nullptr), SFU_E_PROFILE_DISABLED);
  sfu_profile_sample(&p, &regs, &config);
  sfu_profile_sample(&p, nullptr, nullptr);
  sfu_sink sink{[](void *, char) { ADD_FAILURE() << "printed"; }, nullptr};
  sfu_profile_print(&sink, &p);
  EXPECT_EQ(sfu_profile_samples(&p), 0u);
  EXPECT_EQ(sfu_profile_lost(&p, SFU_PROFILE_LOST_BAD_REGS), 0u);
  EXPECT_EQ(sfu_profile_stopped(&p, SFU_STOP_END), 0u);
  for (uint64_t w : memory) ASSERT_EQ(w, 0x5555555555555555ull);
  for (size_t i = 0; i < sizeof p; i++) ASSERT_EQ(reinterpret_cast<uint8_t *>(&p)[i], 0x77) << i;
}

}  // namespace
