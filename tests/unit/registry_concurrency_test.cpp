// Walks on several threads while another thread registers and unregisters tables: every walk
// must see the table it needs and give the same frames, with no lock in the walker or registry.
#include <gtest/gtest.h>
#include <sanitizer/asan_interface.h>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "support/fake_machine.h"
#include "support/sframe_builder.h"

using namespace sfu::test;

namespace {

constexpr uint64_t kText = 0x300000;

// A table whose single function's row is CFA = sp + 16, RA at CFA - 8: enough for one step.
std::vector<uint8_t> one_function_table(uint64_t start) {
  return build_section(table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(start, 0x100, {{0, {16}}})}));
}

sfu_table_desc desc_for(const std::vector<uint8_t> &bytes, uint64_t start) {
  sfu_table_desc d{};
  d.section = bytes.data();
  d.size = bytes.size();
  d.section_addr = 0x200000;
  d.text_start = start;
  d.text_end = start + 0x100;
  return d;
}

TEST(RegistryConcurrency, WalksSeeTheirTableWhileOthersComeAndGo) {
  // The walked table stays registered; churn tables come and go in the other slots.
  std::vector<uint8_t> walked_bytes = one_function_table(kText);
  sfu_table_desc walked_desc = desc_for(walked_bytes, kText);
  sfu_module walked{};
  ASSERT_EQ(sfu_register(&walked, &walked_desc, "walked"), SFU_OK);

  constexpr int kChurn = 6;
  std::vector<std::vector<uint8_t>> churn_bytes;
  std::vector<sfu_module> churn(kChurn);
  for (int i = 0; i < kChurn; i++) churn_bytes.push_back(one_function_table(kText + 0x1000 * (i + 1)));

  std::atomic<bool> stop{false};
  std::atomic<long> walks{0}, wrong{0};
  // Two frames in the walked function (it "called itself"), then a return address of 0 at the
  // top of the stack: a walk that ever missed the table would stop after the first frame.
  FakeMemory mem(false);
  mem.add_stack(0x7000, 0x7f20);
  mem.put(0x7f08, kText + 0x30);
  mem.put(0x7f18, 0);
  const sfu_walk_config c = mem.config(SFU_ABI_AMD64_LE);
  auto walker = [&] {
    sfu_regs regs = regs_with(kText + 0x10, {{SFU_X86_64_RSP, 0x7f00}});
    while (!stop.load()) {
      uint64_t pcs[4];
      sfu_stop why;
      size_t n = sfu_backtrace(&regs, &c, pcs, 4, &why);
      if (n != 2 || pcs[1] != kText + 0x30 || why != SFU_STOP_END) wrong++;
      walks++;
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; t++) threads.emplace_back(walker);
  long registrations = 0;
  // Churn until both sides have done plenty, however the threads are scheduled (bounded, so a
  // walker that never runs fails the test instead of hanging it).
  long round = 0;
  for (; (round < 3000 || walks.load() < 20000) && round < 5000000; round++) {
    int i = round % kChurn;
    sfu_table_desc d = desc_for(churn_bytes[i], kText + 0x1000 * (i + 1));
    if (sfu_register(&churn[i], &d, "churn") == SFU_OK) registrations++;
    if (round % 2) sfu_unregister(&churn[(round / 2) % kChurn]);
  }
  stop = true;
  for (std::thread &t : threads) t.join();
  for (sfu_module &m : churn) sfu_unregister(&m);
  sfu_unregister(&walked);

  EXPECT_GE(walks.load(), 20000);
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_GT(registrations, 1000);
}

TEST(RegistryConcurrency, RegistrationReadsNoRegisteredModule) {
  // A registration on one CPU while another unregisters a module and frees it (the documented
  // rule waits for walks only): the registration must not read the freed module. Poisoned here,
  // the module's memory would be reported by ASan on any read; its slot's range must still
  // count until it is unregistered.
  std::vector<uint8_t> a_bytes = one_function_table(kText), b_bytes = one_function_table(kText + 0x80),
                       c_bytes = one_function_table(kText + 0x1000);
  sfu_table_desc a_desc = desc_for(a_bytes, kText), b_desc = desc_for(b_bytes, kText + 0x80),
                 c_desc = desc_for(c_bytes, kText + 0x1000);
  auto a = std::make_unique<sfu_module>();
  sfu_module b{}, c{};
  ASSERT_EQ(sfu_register(a.get(), &a_desc, "a"), SFU_OK);
  ASAN_POISON_MEMORY_REGION(a.get(), sizeof(sfu_module));
  EXPECT_EQ(sfu_register(&b, &b_desc, "b"), SFU_E_TEXT_OVERLAP);  // a's text, from the registry's copy
  EXPECT_EQ(sfu_register(&c, &c_desc, "c"), SFU_OK);
  ASAN_UNPOISON_MEMORY_REGION(a.get(), sizeof(sfu_module));
  EXPECT_EQ(sfu_unregister(a.get()), SFU_OK);
  EXPECT_EQ(sfu_register(&b, &b_desc, "b"), SFU_OK);  // the text is free again
  EXPECT_EQ(sfu_unregister(&b), SFU_OK);
  EXPECT_EQ(sfu_unregister(&c), SFU_OK);
}

TEST(RegistryConcurrency, RacingOverlappingRegistrationsNeverBothWin) {
  // Two CPUs registering overlapping text at the same moment: at most one is published.
  std::vector<uint8_t> x_bytes = one_function_table(kText), y_bytes = one_function_table(kText + 0x40);
  sfu_table_desc x_desc = desc_for(x_bytes, kText), y_desc = desc_for(y_bytes, kText + 0x40);
  for (int round = 0; round < 2000; round++) {
    sfu_module x{}, y{};
    std::atomic<int> ready{0};
    sfu_error ex = SFU_OK, ey = SFU_OK;
    std::thread tx([&] {
      ready++;
      while (ready.load() < 2) {
      }
      ex = sfu_register(&x, &x_desc, "x");
    });
    std::thread ty([&] {
      ready++;
      while (ready.load() < 2) {
      }
      ey = sfu_register(&y, &y_desc, "y");
    });
    tx.join();
    ty.join();
    ASSERT_FALSE(ex == SFU_OK && ey == SFU_OK) << "round " << round;
    if (ex == SFU_OK) sfu_unregister(&x);
    if (ey == SFU_OK) sfu_unregister(&y);
  }
}

}  // namespace
