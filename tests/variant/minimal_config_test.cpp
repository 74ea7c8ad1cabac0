// The core built with tests/variant/minimal.config: what the Kconfig switches change.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "config.h"  // CONFIG_SFU_MAX_MODULES: minimal.config keeps the default
#include "sfu/print.h"
#include "sfu/sframe.h"
#include "support/fake_machine.h"
#include "support/sframe_builder.h"
#include "support/symbols_builder.h"

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

namespace {

constexpr uint64_t kText = 0x100000;

TEST(MinimalConfig, AnUnvalidatedBadRowIsATableError) {
  // Registered without validation, a row with three words on AMD64 (which has two at most)
  // is found only when a walk decodes it.
  Registered reg{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kText, 0x40, {{0, {8, -16, -24}}})}), kText, kText + 0x100};
  ASSERT_EQ(reg.error(), SFU_OK);
  FakeMemory mem(false);
  mem.add_stack(0x7000, 0x8000);
  Walked w = walk(regs_with(kText + 4, {{SFU_X86_64_RSP, 0x7f00}}), mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.frames.size(), 1u);
  EXPECT_EQ(w.stop, SFU_STOP_TABLE_ERROR);
}

TEST(MinimalConfig, NoFramePointerFallback) {
  Registered reg{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kText, 0x40, {{0, {8}}})}), kText, kText + 0x1000};
  FakeMemory mem(false);
  mem.add_stack(0x7000, 0x8000);
  mem.put(0x7f00, 0x7f80);
  mem.put(0x7f08, kText + 0x10);
  Walked w = walk(regs_with(kText + 0x800, {{SFU_X86_64_RSP, 0x7ef0}, {SFU_X86_64_RBP, 0x7f00}}),
                  mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(w.frames.size(), 1u);
  EXPECT_EQ(w.stop, SFU_STOP_NO_UNWIND_INFO);
}

TEST(MinimalConfig, S390xBackChainWhereNoRowCoversThePc) {
  // At kText + 0x800 no row: the back chain at SP leads to the caller's frame, whose register
  // save area holds r14 (+112) and r11 (+88). The caller F has a row again.
  const uint64_t F = kText;
  Registered reg{table_spec(3, SFU_ABI_S390X_BE, {fde_spec(F, 0x40, {{0, {0}}, {0x20, {}}})}), kText, kText + 0x1000};
  FakeMemory mem(true);
  mem.add_stack(0x7000, 0x8000);
  mem.put(0x7c00, 0x7d00);          // back chain: the caller's SP
  mem.put(0x7d00 + 112, F + 0x24);  // r14 in the caller's save area
  mem.put(0x7d00 + 88, 0x7e00);     // r11
  Walked w = walk(regs_with(kText + 0x800, {{SFU_S390X_SP, 0x7c00}}), mem.config(SFU_ABI_S390X_BE));
  ASSERT_EQ(w.frames.size(), 2u);
  EXPECT_EQ(w.frames[1].pc, F + 0x24);
  EXPECT_EQ(w.frames[1].sp, 0x7d00u);
  EXPECT_EQ(w.frames[1].source, SFU_SOURCE_BACK_CHAIN);
  EXPECT_FALSE(w.frames[1].reliable);
  EXPECT_EQ(w.stop, SFU_STOP_END);  // F's outermost row
  EXPECT_TRUE(mem.stray_reads().empty());
}

TEST(MinimalConfig, S390xBackChainZeroEndsTheWalkOnlyAtTheTop) {
  // A back chain of 0 ends the walk cleanly in a frame where the stack ends: its CFA (SP + 160)
  // within 32 bytes of the top, r15 160 bytes below it as boot code sets it. Anywhere else the
  // chain says nothing of the caller: no-unwind-info.
  Registered reg{table_spec(3, SFU_ABI_S390X_BE, {fde_spec(kText, 0x40, {{0, {0}}})}), kText, kText + 0x1000};
  ASSERT_EQ(reg.error(), SFU_OK);  // else the walk would end at the unknown PC, never reading the chain
  for (uint64_t sp : {0x8000 - 160, 0x8000 - 192, 0x8000 - 200, 0x7c00}) {
    FakeMemory mem(true);
    mem.add_stack(0x7000, 0x8000);
    mem.put(sp, 0);
    Walked w = walk(regs_with(kText + 0x800, {{SFU_S390X_SP, sp}}), mem.config(SFU_ABI_S390X_BE));
    ASSERT_EQ(w.frames.size(), 1u) << sp;
    EXPECT_NE(w.frames[0].module, nullptr);
    EXPECT_TRUE(w.frames[0].reliable);
    EXPECT_EQ(w.stop, sp + 160 >= 0x8000 - 32 ? SFU_STOP_END : SFU_STOP_NO_UNWIND_INFO) << sp;
  }
}

TEST(MinimalConfig, S390xBackChainToAZeroReturnAddress) {
  // The chain leads to a frame whose save area holds r14 = 0: a return address of 0, clean where
  // the caller's CFA (its SP + 160) is the stack's top, a damaged stack below.
  Registered reg{table_spec(3, SFU_ABI_S390X_BE, {fde_spec(kText, 0x40, {{0, {0}}})}), kText, kText + 0x1000};
  for (uint64_t caller_sp : {0x8000 - 160, 0x7d00}) {
    FakeMemory mem(true);
    mem.add_stack(0x7000, 0x8000);
    mem.put(0x7c00, caller_sp);
    mem.put(caller_sp + 112, 0);
    Walked w = walk(regs_with(kText + 0x800, {{SFU_S390X_SP, 0x7c00}}), mem.config(SFU_ABI_S390X_BE));
    ASSERT_EQ(w.frames.size(), 1u) << caller_sp;
    EXPECT_TRUE(w.frames[0].reliable);
    EXPECT_EQ(w.stop, caller_sp == 0x8000 - 160 ? SFU_STOP_END : SFU_STOP_ZERO_RETURN_ADDRESS) << caller_sp;
  }
}

TEST(MinimalConfig, SymbolsOffReadsNoTable) {
  // A valid table for [kText, kText + 0x40), 0x1000 below its section.
  std::vector<uint8_t> sec = build_symbols(plain_symbols({{-0x1000, 0x40, codes("f")}}));
  sfu_symbols view;
  sfu_symbols_desc d{sec.data(), sec.size(), kText + 0x1000, 0, 0};
  EXPECT_EQ(sfu_symbols_init(&view, &d), SFU_E_SYMBOLS_DISABLED);
  sfu_symbols_desc none{nullptr, 0, 0, 0, 0};
  EXPECT_EQ(sfu_symbols_init(&view, &none), SFU_E_NO_SYMBOLS);  // none given is still said so
  sfu_symbol sym{kText, 0x40, 0};
  EXPECT_EQ(sfu_symbols_find(&view, kText, &sym), SFU_E_NOT_INITIALIZED);
  char buf[8] = "junk";
  EXPECT_EQ(sfu_symbol_name(&view, &sym, buf, sizeof buf), 0u);
  EXPECT_STREQ(buf, "");

  // The module registers all the same; its frames print without the column.
  Registered reg{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kText, 0x40, {{0, {8}}})}), kText, kText + 0x1000, "img",
                 ModuleExtras{sec, kText + 0x1000, {}}};
  ASSERT_EQ(reg.error(), SFU_OK);
  EXPECT_EQ(reg.module().symbols_error, SFU_E_SYMBOLS_DISABLED);
  sfu_frame f{};
  f.pc = kText + 4;
  f.module = &reg.module();
  f.reliable = 1;
  std::string line;
  sfu_sink sink{[](void *ctx, char c) { static_cast<std::string *>(ctx)->push_back(c); }, &line};
  sfu_print_frame(&sink, &f);
  EXPECT_EQ(line, " #0     0x0000000000100004  sp 0x0000000000000000  task   [regs]       img\n");
  EXPECT_EQ(sfu_print_symbol(&sink, &reg.module(), kText, kText), 0);
}

}  // namespace

namespace {

// CONFIG_SFU_SMP off: the registry claims slots with a plain load and store (src/atomic.h).
// Everything registration promises still holds on one CPU.
TEST(MinimalConfig, OneCpuRegistryClaimsFillsAndFreesSlots) {
  std::vector<std::unique_ptr<Registered>> all;
  for (int i = 0; i < CONFIG_SFU_MAX_MODULES; i++) {
    uint64_t at = kText + uint64_t(i) * 0x100;
    all.push_back(std::make_unique<Registered>(table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(at, 0x10, {{0, {8}}})}), at, at + 0x100));
    ASSERT_EQ(all.back()->error(), SFU_OK) << i;
  }
  ASSERT_EQ(all.size(), size_t(CONFIG_SFU_MAX_MODULES));
  EXPECT_EQ(sfu_module_for_pc(kText + 0x180), &all[1]->module());
  uint64_t at = kText + 0x100000;
  Registered extra{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(at, 0x10, {{0, {8}}})}), at, at + 0x100};
  EXPECT_EQ(extra.error(), SFU_E_REGISTRY_FULL);
  all.erase(all.begin() + 1);  // unregistered: its slot is free, its text no one's
  EXPECT_EQ(sfu_module_for_pc(kText + 0x180), nullptr);
  Registered overlap{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kText, 0x10, {{0, {8}}})}), kText + 0x80, kText + 0x180};
  EXPECT_EQ(overlap.error(), SFU_E_TEXT_OVERLAP);  // the first module's text
  Registered again{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(at, 0x10, {{0, {8}}})}), at, at + 0x100};
  EXPECT_EQ(again.error(), SFU_OK);
  EXPECT_EQ(sfu_module_for_pc(at), &again.module());
}

}  // namespace
