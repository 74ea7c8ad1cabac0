// The host's second walk over a crash record (tools/crash/reunwind.h): from the record alone
// (the fake memory the walk reads holds nothing but the record's windows), for every ABI, and
// each way it can disagree with the device.
#include <gtest/gtest.h>

#include "crash/layout.h"
#include "sframe/format.h"
#include "support/crash_machines.h"
#include "tools/crash/reunwind.h"

using namespace sfu::test;
using sfu::tools::crash::ModuleTable;
using sfu::tools::crash::reunwind;
using sfu::tools::crash::Reunwound;

namespace {

// A record captured on a machine that is then gone: its table kept as an image would give it.
struct Record {
  std::vector<uint8_t> bytes;
  ModuleTable table;
  uint8_t abi;
  sfu_crash_view view{};

  explicit Record(uint8_t abi_, size_t area_size = 8192, uint64_t text = kCrashText) : abi(abi_) {
    CrashModuleOptions options;
    options.text = text;
    CrashMachine m = crash_machine(abi, options);
    Area area(area_size);
    sfu_walk_config config = m.config();
    EXPECT_EQ(sfu_crash_capture(area.data(), area.size(), nullptr, &m.start, &config), SFU_OK);
    bytes.assign(area.data(), area.data() + area.size());
    table.section = build_section(m.spec);
    table.section_addr = m.spec.section_addr;
  }
  sfu_error open() { return sfu_crash_open(&view, bytes.data(), bytes.size()); }
  // Changes a byte of the record and makes its CRC right again.
  void patch_window_word(uint32_t window_offset, uint64_t value) {
    bool big = sfu::sframe::abi_big_endian(abi);
    uint32_t at = sfu::crash::windows_at(1, view.num_frames) + sfu::crash::window::kHeader + window_offset;
    sfu::crash::put(bytes.data() + at, value, 8, big);
    sfu::crash::put(bytes.data() + sfu::crash::hdr::kCrc,
                    sfu_crc32(0, bytes.data() + sfu::crash::kCrcFrom, view.length - sfu::crash::kCrcFrom), 4, big);
  }
};

// Memory holding the record's windows and nothing else: what the walk may read.
std::unique_ptr<FakeMemory> windows_only(const sfu_crash_view &v) {
  auto mem = std::make_unique<FakeMemory>(v.big_endian);
  for (uint32_t i = 0; i < v.num_windows; i++) {
    sfu_crash_window w;
    EXPECT_TRUE(sfu_crash_get_window(&v, i, &w));
    mem->add_stack(w.addr, w.addr + w.size, w.kind);
    for (uint32_t k = 0; k < w.size; k += 8) {
      uint64_t word = 0;
      for (int b = 0; b < 8; b++) word = (word << 8) | w.bytes[k + (v.big_endian ? b : 7 - b)];
      mem->put(w.addr + k, word);
    }
  }
  mem->config(v.abi);  // the memory the unit tests' hook serves
  return mem;
}

Reunwound walk_again(Record &r) {
  EXPECT_EQ(r.open(), SFU_OK);
  auto mem = windows_only(r.view);
  Reunwound out;
  EXPECT_TRUE(reunwind(r.view, {&r.table}, {0}, out)) << out.error;
  EXPECT_TRUE(mem->stray_reads().empty());
  return out;
}

TEST(CrashReunwind, TheSameFramesOnEveryAbi) {
  for (uint8_t abi : kCrashAbis) {
    SCOPED_TRACE(int(abi));
    Record r(abi);
    Reunwound out = walk_again(r);
    EXPECT_EQ(out.frames.size(), 3u);
    EXPECT_EQ(out.stop, SFU_STOP_END);
    EXPECT_TRUE(out.differences.empty()) << out.differences[0];
    EXPECT_TRUE(out.notes.empty()) << out.notes[0];
  }
}

// The table as an image linked at `link` holds it: the record's run-time one moved back.
ModuleTable linked_table(uint8_t abi, uint64_t link) {
  CrashModuleOptions options;
  options.text = link;
  CrashMachine at_link = crash_machine(abi, options);
  return ModuleTable{build_section(at_link.spec), at_link.spec.section_addr};
}

TEST(CrashReunwind, AnImageThatRanAwayFromItsLinkAddress) {
  // Linked at one address, run at another: 1.5 GiB up (relocated firmware), 2 GiB down, and up by
  // far more than its own size (a randomised position-independent image). The host reads the
  // image's table at its link address plus the bias, the stack at run-time addresses.
  struct Move {
    uint64_t link, run;
  } moves[] = {{kCrashText, kCrashText + 0x60000000}, {kCrashText + 0x80000000, kCrashText},
               {kCrashText, 0x7f0000000000}};
  for (uint8_t abi : kCrashAbis)
    for (const Move &move : moves) {
      SCOPED_TRACE(std::to_string(abi) + " link " + std::to_string(move.link) + " run " + std::to_string(move.run));
      Record r(abi, 8192, move.run);
      r.table = linked_table(abi, move.link);
      ASSERT_EQ(r.open(), SFU_OK);
      auto mem = windows_only(r.view);
      Reunwound out;
      ASSERT_TRUE(reunwind(r.view, {&r.table}, {move.run - move.link}, out)) << out.error;
      EXPECT_EQ(out.frames.size(), 3u);
      EXPECT_EQ(out.stop, SFU_STOP_END);
      EXPECT_TRUE(out.differences.empty()) << out.differences[0];
      EXPECT_EQ(out.frames[2].pc, move.run + (abi == SFU_ABI_AMD64_LE ? 0x30 : 0x24));  // outer's, where it ran
      // The table at its link address does not cover the text where the record says it ran.
      Reunwound unmoved;
      EXPECT_FALSE(reunwind(r.view, {&r.table}, {0}, unmoved));
      EXPECT_EQ(unmoved.error, "module 0 (kernel): its image's table is refused: function-outside-text");
    }
}

TEST(CrashReunwind, AFrameThatDiffersIsNamed) {
  // The window's copy of mid's return address no longer says what the device read.
  Record r(SFU_ABI_AMD64_LE);
  ASSERT_EQ(r.open(), SFU_OK);
  r.patch_window_word(0x7fa8 - 0x7f00, 0x100000 + 0x34);
  Reunwound out = walk_again(r);
  ASSERT_EQ(out.differences.size(), 1u);
  EXPECT_EQ(out.differences[0],
            "frame 2: device pc 0x100030 sp 0x7fb0 [table], host pc 0x100034 sp 0x7fb0 [table]");
}

TEST(CrashReunwind, AWalkThatStopsEarlierIsNamed) {
  Record r(SFU_ABI_AMD64_LE);
  ASSERT_EQ(r.open(), SFU_OK);
  r.patch_window_word(0x7fa8 - 0x7f00, 0);  // a return address of 0: the host's walk stops there
  Reunwound out = walk_again(r);
  ASSERT_EQ(out.differences.size(), 1u);
  EXPECT_EQ(out.differences[0],
            "the host walk stops after 2 frames (zero-return-address); the device's gave 3 (end-of-stack)");
}

TEST(CrashReunwind, WindowsEndingBeforeTheDevicesWalkAreANoteNotADifference) {
  // An area just too small for the whole window: the window is cut, the walk needs what is past it.
  Record full(SFU_ABI_AARCH64_LE);
  ASSERT_EQ(full.open(), SFU_OK);
  size_t size = full.view.length - 0xf0;  // 16 of the window's 256 bytes: up to mid's SP
  Record r(SFU_ABI_AARCH64_LE, size);
  ASSERT_EQ(r.open(), SFU_OK);
  Reunwound out = walk_again(r);
  EXPECT_TRUE(out.differences.empty()) << out.differences[0];
  ASSERT_EQ(out.notes.size(), 1u);
  EXPECT_EQ(out.notes[0], "the stack windows end at frame 2 (host: cfa-outside-stacks); the device's walk went on to 3 frames");
}

TEST(CrashReunwind, ATableTheCoreRefusesIsNamed) {
  Record r(SFU_ABI_S390X_BE);
  ASSERT_EQ(r.open(), SFU_OK);
  r.table.section[0] ^= 0xff;
  Reunwound out;
  EXPECT_FALSE(reunwind(r.view, {&r.table}, {0}, out));
  EXPECT_EQ(out.error, "module 0 (kernel): its image's table is refused: bad-magic");
  // Nothing stays registered: the same text registers again.
  Record again(SFU_ABI_S390X_BE);
  EXPECT_EQ(again.open(), SFU_OK);
}

TEST(CrashReunwind, WithoutATableTheFirstFrameIsAllThereIs) {
  Record r(SFU_ABI_AMD64_LE);
  ASSERT_EQ(r.open(), SFU_OK);
  auto mem = windows_only(r.view);
  Reunwound out;
  ASSERT_TRUE(reunwind(r.view, {nullptr}, {0}, out));
  EXPECT_EQ(out.frames.size(), 1u);
  ASSERT_EQ(out.differences.size(), 2u);
  EXPECT_EQ(out.differences[0], "frame 0: device pc 0x100310 sp 0x7f00 [regs], host pc 0x100310 sp 0x7f00 [regs] ?");
}

TEST(CrashReunwind, TheWindowReaderServesNothingOutsideAWalk) {
  Record r(SFU_ABI_AMD64_LE);
  ASSERT_EQ(r.open(), SFU_OK);
  uint64_t word = 0;
  // Outside a reunwind, nothing is served.
  EXPECT_EQ(sfu::tools::crash::read_window_memory(&word, 0x7f00, 8), -1);
}

}  // namespace
