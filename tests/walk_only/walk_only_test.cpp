// The core built with configs/walk-only.config, as the walk-only kernels link it: what the
// configuration leaves out answers as Kconfig says, and what it keeps walks and prints as ever.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config.h"
#include "sfu/print.h"
#include "sfu/sframe.h"
#include "support/fake_machine.h"
#include "support/sframe_builder.h"
#include "support/walks.h"

using namespace sfu::test;

namespace {

constexpr uint64_t kText = 0x100000;

void append(void *ctx, char c) { static_cast<std::string *>(ctx)->push_back(c); }

TEST(WalkOnly, TheConfigurationIsTheOneShipped) {
  static_assert(!sfu::config::kVersion1 && sfu::config::kVersion2 && sfu::config::kVersion3);
  static_assert(sfu::config::kValidateOnRegister && sfu::config::kFpFallback && sfu::config::kBackChainFallback);
  static_assert(!sfu::config::kSymbols && !sfu::config::kCrashRecords && !sfu::config::kBlockIndex);
  static_assert(!sfu::config::kNames && !sfu::config::kBuildId && sfu::config::kForSize);
  static_assert(sfu::config::kRowCacheEntries == 0 && sfu::config::kIndexPrefetchBytes == 0);
}

TEST(WalkOnly, NamesAreCodes) {
  EXPECT_STREQ(sfu_error_name(SFU_OK), "E0");
  EXPECT_STREQ(sfu_error_name(SFU_E_BAD_MAGIC), "E5");
  EXPECT_EQ(sfu_error_name(SFU_E_BAD_INDEX_MEMORY), "E" + std::to_string(int(SFU_E_BAD_INDEX_MEMORY)));
  EXPECT_STREQ(sfu_error_name(sfu_error(SFU_ERROR_COUNT)), "E?");
  EXPECT_STREQ(sfu_error_name(sfu_error(-1)), "E?");
  EXPECT_STREQ(sfu_stop_name(SFU_STOP_NONE), "S0");
  EXPECT_STREQ(sfu_stop_name(SFU_STOP_END), "S1");
  EXPECT_STREQ(sfu_stop_name(SFU_STOP_ZERO_RETURN_ADDRESS), "S13");
  EXPECT_STREQ(sfu_stop_name(sfu_stop(SFU_STOP_COUNT + 7)), "S?");
}

TEST(WalkOnly, PrintErrorPrintsTheCodeFromTheNumber) {
  std::string out;
  sfu_sink sink{append, &out};
  sfu_print_error(&sink, SFU_E_BAD_MAGIC);
  out += ' ';
  sfu_print_error(&sink, SFU_E_BAD_INDEX_MEMORY);
  out += ' ';
  sfu_print_error(&sink, sfu_error(SFU_ERROR_COUNT + 1));
  EXPECT_EQ(out, "E5 E" + std::to_string(int(SFU_E_BAD_INDEX_MEMORY)) + " E?");
  sfu_print_error(nullptr, SFU_E_BAD_MAGIC);
  sfu_sink none{nullptr, &out};
  sfu_print_error(&none, SFU_E_BAD_MAGIC);
  EXPECT_EQ(out, "E5 E" + std::to_string(int(SFU_E_BAD_INDEX_MEMORY)) + " E?");  // neither printed
}

// One function of one row: CFA = SP + 8, the return address below it (x86_64).
TableSpec one_function() { return table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kText, 0x40, {{0, {8}}})}); }

TEST(WalkOnly, TheStopLinePrintsTheStopCode) {
  Registered reg{one_function(), kText, kText + 0x100};
  ASSERT_EQ(reg.error(), SFU_OK);
  FakeMemory mem(false);
  mem.add_stack(0x7000, 0x8000);
  mem.put(0x7ff8, 0);  // a zero return address at the top: the end of the stack
  sfu_regs regs = regs_with(kText + 4, {{SFU_X86_64_RSP, 0x7ff8}});
  sfu_walk_config config = mem.config(SFU_ABI_AMD64_LE);
  std::string out;
  sfu_sink sink{append, &out};
  EXPECT_EQ(sfu_print_backtrace(&sink, &regs, &config), 1u);
  EXPECT_EQ(out,
            "module 0 test 0x0000000000100000-0x0000000000100100 no build-id\n"
            " #0     0x0000000000100004  sp 0x0000000000007ff8  task   [regs]       test\n"
            "stop: S1 (reliable)\n");
  // A guard's stop prints its code too: a CFA past every stack, unreliable.
  out.clear();
  mem.put(0x7ff8, kText + 0x10);  // a caller in the same function, whose CFA lies past the stack
  EXPECT_EQ(sfu_print_backtrace(&sink, &regs, &config), 2u);
  EXPECT_NE(out.find("\nstop: S" + std::to_string(int(SFU_STOP_CFA_OUTSIDE_STACK)) + " (unreliable)\n"),
            std::string::npos)
      << out;
}

// A module of one_function's table in sec, named name, with nothing else.
sfu_module_desc one_function_module(const std::vector<uint8_t> &sec, const char *name) {
  sfu_module_desc d{};
  d.table.section = sec.data();
  d.table.size = sec.size();
  d.table.section_addr = one_function().section_addr;
  d.table.text_start = kText;
  d.table.text_end = kText + 0x100;
  d.name = name;
  return d;
}

TEST(WalkOnly, RegistrationIgnoresIndexMemory) {
  std::vector<uint8_t> sec = build_section(one_function());
  sfu_module_desc d = one_function_module(sec, "indexed");
  alignas(64) static uint8_t index[SFU_INDEX_BYTES(0x100)];
  d.index = index;
  d.index_size = 1;  // too small: the default build refuses it (bad-index-memory); unused here
  sfu_module m{};
  ASSERT_EQ(sfu_register_module(&m, &d), SFU_OK);
  EXPECT_EQ(m.table.index, nullptr);
  EXPECT_EQ(m.symbols_error, SFU_E_NO_SYMBOLS);  // none given, said so without the reader
  EXPECT_EQ(m.build_id_error, SFU_E_NO_BUILD_ID);
  sfu_row row;
  EXPECT_EQ(sfu_table_find(&m.table, kText + 4, &row), SFU_OK);
  EXPECT_EQ(sfu_unregister(&m), SFU_OK);
}

// CONFIG_SFU_BUILD_ID off: a module's note is not read, and its line says so; the host then places
// the image by that line alone (tests/crash/moved.sh).
TEST(WalkOnly, ModuleLineWithoutBuildId) {
  std::vector<uint8_t> sec = build_section(one_function());
  // namesz 4, descsz 4, type 3 (NT_GNU_BUILD_ID), "GNU\0", the id: a note the default build reads.
  const uint8_t note[] = {4, 0, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 0xde, 0xad, 0xbe, 0xef};
  sfu_module_desc d = one_function_module(sec, "noted");
  d.build_id_note = note;
  d.build_id_note_size = sizeof(note);
  sfu_module m{};
  ASSERT_EQ(sfu_register_module(&m, &d), SFU_OK);
  EXPECT_EQ(m.build_id_error, SFU_E_BUILD_ID_DISABLED);
  EXPECT_EQ(m.build_id, nullptr);
  FakeMemory mem(false);
  mem.add_stack(0x7000, 0x8000);
  mem.put(0x7ff8, 0);
  sfu_regs regs = regs_with(kText + 4, {{SFU_X86_64_RSP, 0x7ff8}});
  sfu_walk_config config = mem.config(SFU_ABI_AMD64_LE);
  std::string out;
  sfu_sink sink{append, &out};
  EXPECT_EQ(sfu_print_backtrace(&sink, &regs, &config), 1u);
  EXPECT_EQ(out.substr(0, out.find('\n')), "module 0 noted 0x0000000000100000-0x0000000000100100 no build-id");
  EXPECT_EQ(sfu_unregister(&m), SFU_OK);
  // The parser itself still links for a kernel that calls it.
  const uint8_t *id = nullptr;
  uint32_t id_size = 0;
  EXPECT_EQ(sfu_build_id_from_note(note, sizeof(note), 0, &id, &id_size), SFU_OK);
  EXPECT_EQ(id_size, 4u);
}

// The walk's general step takes the plain rows the default build's own path takes, and the
// fallback stays: a PC no row covers, a frame record, then a row (CFA = SP + 16, RBP saved at
// CFA - 16) that leads to a zero return address at the top of the stack.
TEST(WalkOnly, WalksThroughTheFramePointerFallbackAndRows) {
  Registered reg{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(kText, 0x40, {{0, {8}}, {1, {16, -16}}})}), kText,
                 kText + 0x1000};
  ASSERT_EQ(reg.error(), SFU_OK);
  FakeMemory mem(false);
  mem.add_stack(0x7000, 0x8000);
  mem.put(0x7fd0, 0x7ff0);       // the frame record at RBP: saved RBP,
  mem.put(0x7fd8, kText + 0x9);  // return address
  mem.put(0x7fe8, 0);            // the caller's return address (CFA 0x7ff0 - 8): the end
  Walked w = walk(regs_with(kText + 0x800, {{SFU_X86_64_RSP, 0x7e00}, {SFU_X86_64_RBP, 0x7fd0}}),
                  mem.config(SFU_ABI_AMD64_LE));
  ASSERT_EQ(w.frames.size(), 2u);
  EXPECT_EQ(w.frames[1].pc, kText + 0x9);
  EXPECT_EQ(w.frames[1].sp, 0x7fe0u);
  EXPECT_EQ(w.frames[1].source, SFU_SOURCE_FRAME_POINTER);
  EXPECT_EQ(w.frames[1].reliable, 0);
  EXPECT_EQ(w.stop, SFU_STOP_END);
}

}  // namespace
