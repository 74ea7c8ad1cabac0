// Crash records on the host (src/crash/): capture on fake stacks for every ABI and byte order, the
// exact bytes it writes, open/take and every refusal, and who wins when captures meet.
// docs/errors.md points at these tests (CrashRecord.<Test>).
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <random>
#include <thread>

#include "crash/layout.h"
#include "crash/take.h"
#include "sframe/format.h"
#include "support/crash_machines.h"

using namespace sfu::test;
namespace layout = sfu::crash;

namespace {

constexpr size_t kAreaSize = 8192;

uint64_t get(const uint8_t *p, unsigned n, bool big) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; i++) v = (v << 8) | p[big ? i : n - 1 - i];
  return v;
}

void set(uint8_t *p, uint64_t v, unsigned n, bool big) { layout::put(p, v, n, big); }

// Recomputes the CRC after a test changed a covered field on purpose.
void reseal(uint8_t *rec, bool big) {
  uint32_t length = uint32_t(get(rec + layout::hdr::kLength, 4, big));
  set(rec + layout::hdr::kCrc, sfu_crc32(0, rec + layout::kCrcFrom, length - layout::kCrcFrom), 4, big);
}

sfu_crash_info panic_info(const char *message = "kernel BUG at mm/slab.c:42") {
  return sfu_crash_info{SFU_CRASH_PANIC, 7, 0xdead0000, message};
}

// A record captured from machine m into a fresh area.
struct Captured {
  Area area{kAreaSize};
  sfu_error error;
  sfu_crash_view view{};
  bool big;
  uint8_t *rec() { return area.data(); }
  uint32_t length() { return uint32_t(get(rec() + layout::hdr::kLength, 4, big)); }
  sfu_error reopen(size_t size = 0) { return sfu_crash_open(&view, rec(), size ? size : area.size()); }
};

std::unique_ptr<Captured> capture(CrashMachine &m, sfu_crash_info info = panic_info()) {
  auto c = std::make_unique<Captured>();
  c->big = sfu::sframe::abi_big_endian(m.abi);
  sfu_walk_config config = m.config();
  c->error = sfu_crash_capture(c->area.data(), c->area.size(), &info, &m.start, &config);
  return c;
}

std::string name(sfu_error e) { return sfu_error_name(e); }

// The x86_64 machine, its walk configuration and a fresh area: what most refusals start from.
struct X86Setup {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  sfu_walk_config config = m.config();
  Area area{kAreaSize};
  sfu_crash_view v{};
};

// ---- capture ------------------------------------------------------------------------------------

TEST(CrashRecord, CapturedFramesAreTheWalksOnEveryAbi) {
  for (uint8_t abi : kCrashAbis) {
    SCOPED_TRACE(int(abi));
    CrashMachine m = crash_machine(abi);
    ASSERT_EQ(m.reg->error(), SFU_OK);
    sfu_walk_config config = m.config();
    Walked w = walk_checked(m.start, config);
    ASSERT_EQ(w.pcs(), m.pcs);
    ASSERT_EQ(w.stop, SFU_STOP_END);
    auto c = capture(m);
    ASSERT_EQ(c->error, SFU_OK);
    ASSERT_EQ(c->reopen(), SFU_OK);
    EXPECT_EQ(c->view.abi, abi);
    EXPECT_EQ(c->view.big_endian, c->big);
    ASSERT_EQ(c->view.num_frames, w.frames.size());
    for (uint32_t i = 0; i < c->view.num_frames; i++) {
      sfu_frame f;
      int module = -2;
      ASSERT_TRUE(sfu_crash_get_frame(&c->view, i, &f, &module));
      EXPECT_EQ(f.pc, w.frames[i].pc);
      EXPECT_EQ(f.sp, w.frames[i].sp);
      EXPECT_EQ(f.source, w.frames[i].source);
      EXPECT_EQ(f.reliable, w.frames[i].reliable);
      EXPECT_EQ(f.stack_kind, w.frames[i].stack_kind);
      EXPECT_EQ(f.index, i);
      EXPECT_EQ(f.cfa, 0u);
      EXPECT_EQ(f.module, nullptr);
      EXPECT_EQ(module, 0);
    }
    sfu_crash_summary s;
    sfu_crash_get_summary(&c->view, &s);
    EXPECT_EQ(s.reason, uint32_t(SFU_CRASH_PANIC));
    EXPECT_EQ(s.detail, 7u);
    EXPECT_EQ(s.fault_address, 0xdead0000u);
    EXPECT_STREQ(s.message, "kernel BUG at mm/slab.c:42");
    EXPECT_EQ(s.stop, SFU_STOP_END);
    EXPECT_EQ(s.reliable, 1);
    EXPECT_EQ(s.frames_truncated + s.stack_truncated + s.modules_truncated, 0);
    EXPECT_EQ(s.walk_frames, w.frames.size());
    EXPECT_EQ(s.max_frames, uint32_t(CONFIG_SFU_MAX_FRAMES));
    EXPECT_EQ(s.arm64_va_bits, sfu::sframe::abi_aarch64(abi) ? CONFIG_SFU_ARM64_VA_BITS : 0);
    EXPECT_EQ(s.walk_options, SFU_CRASH_WALKED_FP_FALLBACK);
    sfu_regs r;
    sfu_crash_get_regs(&c->view, &r);
    EXPECT_EQ(r.pc, m.start.pc);
    EXPECT_EQ(r.valid, m.start.valid);
    EXPECT_EQ(0, memcmp(r.r, m.start.r, sizeof r.r));
    sfu_crash_module mod;
    ASSERT_EQ(c->view.num_modules, 1);
    ASSERT_TRUE(sfu_crash_get_module(&c->view, 0, &mod));
    EXPECT_EQ(mod.text_start, 0x100000u);
    EXPECT_EQ(mod.text_end, 0x101000u);
    ASSERT_EQ(mod.build_id_size, kCrashBuildId.size());
    EXPECT_EQ(std::vector<uint8_t>(mod.build_id, mod.build_id + mod.build_id_size), kCrashBuildId);
    EXPECT_STREQ(mod.name, "kernel");
  }
}

TEST(CrashRecord, ExactBytesInTheTargetsByteOrder) {
  for (uint8_t abi : {SFU_ABI_AMD64_LE, SFU_ABI_S390X_BE}) {
    SCOPED_TRACE(int(abi));
    CrashMachine m = crash_machine(abi);
    auto c = capture(m);
    ASSERT_EQ(c->error, SFU_OK);
    bool big = c->big;
    const uint8_t *p = c->rec();
    EXPECT_EQ(0, memcmp(p, "SFUCRASH", 8));
    EXPECT_EQ(0, memcmp(p + 8, "DOOD", 4));  // complete, in either byte order
    EXPECT_EQ(p[0x14 + (big ? 1 : 0)], 1);   // version 1
    EXPECT_EQ(p[0x14 + (big ? 0 : 1)], 0);
    EXPECT_EQ(p[0x16], abi);
    EXPECT_EQ(p[0x17], 0);                   // no flags
    EXPECT_EQ(get(p + 0x18, 4, big), uint32_t(SFU_CRASH_PANIC));
    EXPECT_EQ(get(p + 0x20, 8, big), 0xdead0000u);
    EXPECT_EQ(p[0x28], SFU_STOP_END);
    EXPECT_EQ(p[0x29], 1);
    EXPECT_EQ(get(p + 0x2a, 2, big), 3u);    // frames
    EXPECT_EQ(get(p + 0x2c, 2, big), 1u);    // modules
    EXPECT_EQ(get(p + 0x2e, 2, big), 1u);    // windows
    EXPECT_EQ(0, memcmp(p + 0x40, "kernel BUG at mm/slab.c:42\0", 27));
    // Registers at 0x80: pc first, in the record's byte order.
    EXPECT_EQ(p[0x80 + (big ? 7 : 0)], uint8_t(m.start.pc));
    EXPECT_EQ(get(p + 0x80, 8, big), m.start.pc);
    EXPECT_EQ(get(p + 0x80 + 264, 4, big), m.start.valid);
    // The module at 400: text range, build-id size, build-id, name.
    EXPECT_EQ(get(p + 400, 8, big), 0x100000u);
    EXPECT_EQ(get(p + 408, 8, big), 0x101000u);
    EXPECT_EQ(p[416], kCrashBuildId.size());
    EXPECT_EQ(0, memcmp(p + 424, kCrashBuildId.data(), kCrashBuildId.size()));
    EXPECT_EQ(0, memcmp(p + 488, "kernel\0", 7));
    // Frame 0 at 520: pc, sp, module 0, source regs, reliable, task stack.
    EXPECT_EQ(get(p + 520, 8, big), m.pcs[0]);
    EXPECT_EQ(get(p + 528, 8, big), m.start.r[sfu::sframe::abi_sp_reg(abi)]);
    EXPECT_EQ(get(p + 536, 2, big), 0u);
    EXPECT_EQ(p[538], SFU_SOURCE_REGISTERS);
    EXPECT_EQ(p[539], 1);
    EXPECT_EQ(p[540], SFU_STACK_TASK);
    // The window at 520 + 3 * 24: from the lowest SP to the top of the stack, bytes as in memory.
    const uint8_t *w = p + 592;
    uint64_t sp = m.start.r[sfu::sframe::abi_sp_reg(abi)];
    EXPECT_EQ(get(w, 8, big), sp);
    EXPECT_EQ(get(w + 8, 4, big), 0x8000 - sp);
    std::vector<uint8_t> memory(0x8000 - sp);
    ASSERT_EQ(m.mem->read(memory.data(), sp, memory.size()), 0);
    EXPECT_EQ(0, memcmp(w + 16, memory.data(), memory.size()));
    EXPECT_EQ(c->length(), 592 + 16 + memory.size());
    EXPECT_EQ(get(p + 0x0c, 4, big), sfu_crc32(0, p + 16, c->length() - 16));
    // Nothing past the record was written.
    EXPECT_TRUE(c->area.untouched(c->length()));
  }
}

TEST(CrashRecord, Crc32IsZlibs) {
  EXPECT_EQ(sfu_crc32(0, "123456789", 9), 0xcbf43926u);
  EXPECT_EQ(sfu_crc32(0, "", 0), 0u);
  EXPECT_EQ(sfu_crc32(sfu_crc32(0, "1234", 4), "56789", 5), 0xcbf43926u);  // continued
  EXPECT_EQ(sfu_crc32(0, "The quick brown fox jumps over the lazy dog", 43), 0x414fa339u);
}

TEST(CrashRecord, NoInfoAndALongMessage) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  Area area(kAreaSize);
  sfu_walk_config config = m.config();
  ASSERT_EQ(sfu_crash_capture(area.data(), area.size(), nullptr, &m.start, &config), SFU_OK);
  sfu_crash_view v;
  ASSERT_EQ(sfu_crash_open(&v, area.data(), area.size()), SFU_OK);
  sfu_crash_summary s;
  sfu_crash_get_summary(&v, &s);
  EXPECT_EQ(s.reason, 0u);
  EXPECT_STREQ(s.message, "");
  std::string longer(200, 'x');
  Area again(kAreaSize);
  sfu_crash_info info = panic_info(longer.c_str());
  ASSERT_EQ(sfu_crash_capture(again.data(), again.size(), &info, &m.start, &config), SFU_OK);
  ASSERT_EQ(sfu_crash_open(&v, again.data(), again.size()), SFU_OK);
  sfu_crash_get_summary(&v, &s);
  EXPECT_EQ(std::string(s.message), std::string(SFU_CRASH_MESSAGE_MAX - 1, 'x'));
}

TEST(CrashRecord, WindowsAreClippedToTheDeclaredStack) {
  // A walk from a PC in no registered text: one frame, its SP just above an unaligned stack start.
  FakeMemory mem(false);
  mem.add_stack(0x7f04, 0x7ffc);
  for (uint64_t a = 0x7f08; a < 0x7ff8; a += 8) mem.put(a, a * 3);
  sfu_walk_config config = mem.config(SFU_ABI_AMD64_LE);
  sfu_regs r = regs_with(0x900000, {{SFU_X86_64_RSP, 0x7f0c}});
  Area area(kAreaSize);
  ASSERT_EQ(sfu_crash_capture(area.data(), area.size(), nullptr, &r, &config), SFU_OK);
  sfu_crash_view v;
  ASSERT_EQ(sfu_crash_open(&v, area.data(), area.size()), SFU_OK);
  ASSERT_EQ(v.num_windows, 1);
  sfu_crash_window w;
  ASSERT_TRUE(sfu_crash_get_window(&v, 0, &w));
  EXPECT_EQ(w.addr, 0x7f08u);  // the SP's word, inside the stack
  EXPECT_EQ(w.size, 0x7ff8u - 0x7f08u);  // the last whole word below the stack's end
  EXPECT_EQ(get(w.bytes, 8, false), 0x7f08u * 3);
  EXPECT_EQ(w.kind, uint32_t(SFU_STACK_TASK));
  EXPECT_TRUE(mem.stray_reads().empty());
  sfu_crash_summary s;
  sfu_crash_get_summary(&v, &s);
  EXPECT_EQ(s.stack_truncated, 0);
  EXPECT_EQ(s.reliable, 0);  // a PC in no known text
}

TEST(CrashRecord, OneWindowPerStackVisitedAndTheBudget) {
  // Frame 0 on an IRQ stack; its row takes the CFA from rbp, on the task stack.
  const uint64_t outer = 0x100000, mid = 0x100100;
  Registered reg{table_spec(3, SFU_ABI_AMD64_LE,
                            {fde_spec(outer, 0x40, {{0, {8}}, {4, {40}}, {0x20, {}}}),
                             fde_spec(mid, 0x40, {{0, {8}}, {4, {16, -16}, false}})}),
                 0x100000, 0x101000};
  FakeMemory mem(false);
  mem.add_stack(0x3000, 0x4000, SFU_STACK_IRQ);
  mem.add_stack(0x6000, 0x8000, SFU_STACK_TASK);
  mem.put(0x7fa8, outer + 0x30);
  sfu_walk_config config = mem.config(SFU_ABI_AMD64_LE);
  sfu_regs r = regs_with(mid + 0x20, {{SFU_X86_64_RSP, 0x3f80}, {SFU_X86_64_RBP, 0x7fa0}});
  Area area(kAreaSize);
  ASSERT_EQ(sfu_crash_capture(area.data(), area.size(), nullptr, &r, &config), SFU_OK);
  sfu_crash_view v;
  ASSERT_EQ(sfu_crash_open(&v, area.data(), area.size()), SFU_OK);
  ASSERT_EQ(v.num_frames, 2);
  ASSERT_EQ(v.num_windows, 2);
  sfu_crash_window irq, task;
  ASSERT_TRUE(sfu_crash_get_window(&v, 0, &irq));
  ASSERT_TRUE(sfu_crash_get_window(&v, 1, &task));
  EXPECT_EQ(irq.addr, 0x3f80u);
  EXPECT_EQ(irq.size, 0x80u);
  EXPECT_EQ(irq.kind, uint32_t(SFU_STACK_IRQ));
  EXPECT_EQ(task.addr, 0x7fb0u);  // the caller's SP: the CFA
  EXPECT_EQ(task.size, 0x50u);
  EXPECT_EQ(task.kind, uint32_t(SFU_STACK_TASK));
  EXPECT_FALSE(sfu_crash_get_window(&v, 2, &task));

  // From low on the task stack, the window stops at the stack budget.
  r = regs_with(0x900000, {{SFU_X86_64_RSP, 0x6000}});
  Area deep(kAreaSize);
  ASSERT_EQ(sfu_crash_capture(deep.data(), deep.size(), nullptr, &r, &config), SFU_OK);
  ASSERT_EQ(sfu_crash_open(&v, deep.data(), deep.size()), SFU_OK);
  ASSERT_TRUE(sfu_crash_get_window(&v, 0, &task));
  EXPECT_EQ(task.addr, 0x6000u);
  EXPECT_EQ(task.size, uint32_t(CONFIG_SFU_CRASH_STACK_BYTES));
  sfu_crash_summary s;
  sfu_crash_get_summary(&v, &s);
  EXPECT_EQ(s.stack_truncated, 1);
}

TEST(CrashRecord, AnUnreadableWordEndsItsWindow) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  m.mem->poison(0x7fc0);  // above every word the walk reads
  auto c = capture(m);
  ASSERT_EQ(c->error, SFU_OK);
  ASSERT_EQ(c->reopen(), SFU_OK);
  sfu_crash_window w;
  ASSERT_TRUE(sfu_crash_get_window(&c->view, 0, &w));
  EXPECT_EQ(w.addr + w.size, 0x7fc0u);
  sfu_crash_summary s;
  sfu_crash_get_summary(&c->view, &s);
  EXPECT_EQ(s.stack_truncated, 1);
  EXPECT_EQ(c->view.num_frames, 3);
}

TEST(CrashRecord, ASmallAreaKeepsWhatFitsAndSaysSo) {
  CrashMachine m = crash_machine(SFU_ABI_AARCH64_BE);
  sfu_walk_config config = m.config();
  sfu_crash_info info = panic_info();
  // Fixed part, the module, two frames: the third frame and the stack are left out.
  size_t size = layout::kFixedSize + layout::module::kSize + 2 * layout::frame::kSize;
  Area area(size + 8);
  ASSERT_EQ(sfu_crash_capture(area.data(), size, &info, &m.start, &config), SFU_OK);
  sfu_crash_view v;
  ASSERT_EQ(sfu_crash_open(&v, area.data(), size), SFU_OK);
  EXPECT_EQ(v.length, size);
  EXPECT_EQ(v.num_frames, 2);
  EXPECT_EQ(v.num_windows, 0);
  sfu_crash_summary s;
  sfu_crash_get_summary(&v, &s);
  EXPECT_EQ(s.frames_truncated, 1);
  EXPECT_EQ(s.stack_truncated, 1);
  EXPECT_EQ(s.modules_truncated, 0);
  EXPECT_EQ(s.walk_frames, 3u);
  EXPECT_EQ(s.stop, SFU_STOP_END);
  EXPECT_TRUE(area.untouched(size));

  // The fixed part alone: no module, no frame; the frame's module index would have nowhere to
  // point.
  Area fixed(layout::kFixedSize);
  ASSERT_EQ(sfu_crash_capture(fixed.data(), fixed.size(), &info, &m.start, &config), SFU_OK);
  ASSERT_EQ(sfu_crash_open(&v, fixed.data(), fixed.size()), SFU_OK);
  sfu_crash_get_summary(&v, &s);
  EXPECT_EQ(v.num_modules, 0);
  EXPECT_EQ(v.num_frames, 0);
  EXPECT_EQ(s.modules_truncated, 1);
  EXPECT_EQ(s.frames_truncated, 1);

  // A module and a frame: the frame names the module.
  size = layout::kFixedSize + layout::module::kSize + layout::frame::kSize + 7;  // 7 bytes unused
  Area one(size);
  ASSERT_EQ(sfu_crash_capture(one.data(), size, &info, &m.start, &config), SFU_OK);
  ASSERT_EQ(sfu_crash_open(&v, one.data(), size), SFU_OK);
  EXPECT_EQ(v.length, size - 7);
  sfu_frame f;
  int module = -2;
  ASSERT_TRUE(sfu_crash_get_frame(&v, 0, &f, &module));
  EXPECT_EQ(module, 0);
}

TEST(CrashRecord, AreaTooSmall) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  sfu_walk_config config = m.config();
  Area area(layout::kFixedSize);
  EXPECT_EQ(name(sfu_crash_capture(area.data(), layout::kFixedSize - 1, nullptr, &m.start, &config)),
            "crash-area-too-small");
  EXPECT_EQ(sfu_crash_capture(area.data(), 0, nullptr, &m.start, &config), SFU_E_CRASH_AREA_TOO_SMALL);
  EXPECT_TRUE(area.untouched());
}

TEST(CrashRecord, AreaMisaligned) {
  X86Setup x;
  EXPECT_EQ(name(sfu_crash_capture(x.area.data() + 4, kAreaSize - 8, nullptr, &x.m.start, &x.config)),
            "crash-area-misaligned");
  EXPECT_EQ(sfu_crash_take(&x.v, x.area.data() + 4, kAreaSize - 8), SFU_E_CRASH_AREA_MISALIGNED);
  EXPECT_TRUE(x.area.untouched());
}

TEST(CrashRecord, NullArguments) {
  X86Setup x;
  uint8_t *area = x.area.data();
  EXPECT_EQ(sfu_crash_capture(nullptr, kAreaSize, nullptr, &x.m.start, &x.config), SFU_E_NULL_ARGUMENT);
  EXPECT_EQ(sfu_crash_capture(area, kAreaSize, nullptr, nullptr, &x.config), SFU_E_NULL_ARGUMENT);
  EXPECT_EQ(sfu_crash_capture(area, kAreaSize, nullptr, &x.m.start, nullptr), SFU_E_NULL_ARGUMENT);
  EXPECT_EQ(sfu_crash_open(nullptr, area, kAreaSize), SFU_E_NULL_ARGUMENT);
  EXPECT_EQ(sfu_crash_open(&x.v, nullptr, kAreaSize), SFU_E_NULL_ARGUMENT);
  EXPECT_EQ(sfu_crash_take(nullptr, area, kAreaSize), SFU_E_NULL_ARGUMENT);
  EXPECT_EQ(sfu_crash_take(&x.v, nullptr, kAreaSize), SFU_E_NULL_ARGUMENT);
  EXPECT_TRUE(x.area.untouched());
  // Accessors on nothing answer nothing.
  sfu_crash_summary s{};
  sfu_crash_get_summary(nullptr, &s);
  sfu_frame f;
  EXPECT_EQ(sfu_crash_get_frame(nullptr, 0, &f, nullptr), 0);
  EXPECT_EQ(sfu_crash_print(nullptr, nullptr), 0u);
}

TEST(CrashRecord, WrongArch) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  sfu_walk_config config = m.config();
  config.abi = 9;  // no such ABI: refused before anything is written
  Area area(kAreaSize);
  EXPECT_EQ(name(sfu_crash_capture(area.data(), kAreaSize, nullptr, &m.start, &config)), "crash-wrong-arch");
  EXPECT_TRUE(area.untouched());
  auto c = capture(m);
  ASSERT_EQ(c->error, SFU_OK);
  for (uint8_t abi : {0, 5, 0xff}) {
    c->rec()[layout::hdr::kAbi] = abi;
    EXPECT_EQ(c->reopen(), SFU_E_CRASH_WRONG_ARCH) << int(abi);
  }
}

TEST(CrashRecord, NoStacksGiveARecordOfABadStartInTheConfiguredAbi) {
  // The walk starts nowhere (a stack count without the array), but the record still says which
  // ABI it was asked for: the cursor resolves the configuration before it refuses the start.
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  sfu_walk_config config = m.config();
  config.stacks = nullptr;
  Area area(kAreaSize);
  ASSERT_EQ(sfu_crash_capture(area.data(), kAreaSize, nullptr, &m.start, &config), SFU_OK);
  sfu_crash_view v;
  ASSERT_EQ(sfu_crash_open(&v, area.data(), area.size()), SFU_OK);
  EXPECT_EQ(v.abi, SFU_ABI_AMD64_LE);
  EXPECT_EQ(v.num_frames, 0u);
  sfu_crash_summary s;
  sfu_crash_get_summary(&v, &s);
  EXPECT_EQ(s.stop, SFU_STOP_BAD_START);
}

// ---- open and take: every refusal ---------------------------------------------------------------

TEST(CrashRecord, NoRecord) {
  Area zeros(kAreaSize, 0);
  sfu_crash_view v;
  EXPECT_EQ(name(sfu_crash_open(&v, zeros.data(), zeros.size())), "crash-no-record");
  std::mt19937 rng(7);
  Area random(kAreaSize);
  for (int round = 0; round < 100; round++) {
    for (size_t i = 0; i < random.size(); i++) random.data()[i] = uint8_t(rng());
    EXPECT_EQ(sfu_crash_open(&v, random.data(), random.size()), SFU_E_CRASH_NO_RECORD);
  }
  // The magic with a state no capture writes (a freed area, or memory that happens to match).
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto c = capture(m);
  memcpy(c->rec() + 8, "FRRF", 4);
  EXPECT_EQ(c->reopen(), SFU_E_CRASH_NO_RECORD);
  memcpy(c->rec() + 8, "\0\0\0\0", 4);
  EXPECT_EQ(c->reopen(), SFU_E_CRASH_NO_RECORD);
  for (size_t size = 0; size < 8; size++) EXPECT_EQ(sfu_crash_open(&v, c->rec(), size), SFU_E_CRASH_NO_RECORD);
}

TEST(CrashRecord, RecordTorn) {
  CrashMachine m = crash_machine(SFU_ABI_S390X_BE);
  auto c = capture(m);
  memcpy(c->rec() + 8, "WRRW", 4);  // what a reset in the middle of a capture leaves
  EXPECT_EQ(name(c->reopen()), "crash-record-torn");
  // take refuses it too, and frees the area: the next take finds nothing, a capture may write.
  EXPECT_EQ(sfu_crash_take(&c->view, c->rec(), c->area.size()), SFU_E_CRASH_RECORD_TORN);
  EXPECT_EQ(0, memcmp(c->rec() + 8, "FRRF", 4));
  EXPECT_EQ(sfu_crash_take(&c->view, c->rec(), c->area.size()), SFU_E_CRASH_NO_RECORD);
  sfu_walk_config config = m.config();
  EXPECT_EQ(sfu_crash_capture(c->rec(), c->area.size(), nullptr, &m.start, &config), SFU_OK);
}

TEST(CrashRecord, RecordTaken) {
  CrashMachine m = crash_machine(SFU_ABI_AARCH64_LE);
  auto c = capture(m);
  std::vector<uint8_t> before(c->rec(), c->rec() + c->length());
  sfu_crash_view v;
  ASSERT_EQ(sfu_crash_take(&v, c->rec(), c->area.size()), SFU_OK);
  EXPECT_EQ(v.rec, c->rec());
  EXPECT_EQ(0, memcmp(c->rec() + 8, "TKKT", 4));
  EXPECT_EQ(name(sfu_crash_take(&v, c->rec(), c->area.size())), "crash-record-taken");
  // Only the state word changed, and the record still opens (a host reading a saved copy).
  before[8] = 'T', before[9] = 'K', before[10] = 'K', before[11] = 'T';
  EXPECT_EQ(0, memcmp(before.data(), c->rec(), before.size()));
  EXPECT_EQ(c->reopen(), SFU_OK);
}

TEST(CrashRecord, BadVersion) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto c = capture(m);
  for (uint16_t version : {0, 2, 0x100, 0xffff}) {
    set(c->rec() + layout::hdr::kVersion, version, 2, false);
    reseal(c->rec(), false);
    EXPECT_EQ(name(c->reopen()), "crash-bad-version") << version;
  }
}

TEST(CrashRecord, BadLength) {
  CrashMachine m = crash_machine(SFU_ABI_AARCH64_BE);
  auto c = capture(m);
  uint32_t length = c->length();
  // Every truncation: the bytes end before the record.
  for (size_t size = 8; size < length; size++)
    ASSERT_EQ(name(c->reopen(size)), "crash-bad-length") << size;
  EXPECT_EQ(c->reopen(length), SFU_OK);
  // A length under the fixed part, or past the area.
  set(c->rec() + layout::hdr::kLength, layout::kFixedSize - 1, 4, true);
  EXPECT_EQ(c->reopen(), SFU_E_CRASH_BAD_LENGTH);
  set(c->rec() + layout::hdr::kLength, c->area.size() + 1, 4, true);
  EXPECT_EQ(c->reopen(), SFU_E_CRASH_BAD_LENGTH);
}

TEST(CrashRecord, BadCrc) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto c = capture(m);
  c->rec()[c->length() - 1] ^= 1;  // the last stack byte
  EXPECT_EQ(name(c->reopen()), "crash-bad-crc");
  c->rec()[c->length() - 1] ^= 1;
  c->rec()[layout::hdr::kCrc] ^= 0x80;
  EXPECT_EQ(c->reopen(), SFU_E_CRASH_BAD_CRC);
}

// Every bit of every byte of a valid record, flipped: never accepted, always named; inside the
// CRC's cover (but for the fields read before it) always bad-crc.
TEST(CrashRecord, EveryFlippedBitIsRefusedByName) {
  for (uint8_t abi : kCrashAbis) {
    CrashMachine m = crash_machine(abi);
    auto c = capture(m);
    uint32_t length = c->length();
    for (uint32_t at = 0; at < length; at++) {
      for (int bit = 0; bit < 8; bit++) {
        c->rec()[at] ^= uint8_t(1 << bit);
        sfu_error e = c->reopen();
        c->rec()[at] ^= uint8_t(1 << bit);
        std::string n = name(e);
        ASSERT_NE(e, SFU_OK) << "abi " << int(abi) << " byte " << at << " bit " << bit;
        ASSERT_EQ(n.rfind("crash-", 0), 0u) << n;
        if (at < 8) {
          ASSERT_EQ(e, SFU_E_CRASH_NO_RECORD) << at;
        } else if (at < 12) {
          ASSERT_TRUE(e == SFU_E_CRASH_NO_RECORD || e == SFU_E_CRASH_RECORD_TORN) << at;
        } else if (at < 16) {
          ASSERT_EQ(e, SFU_E_CRASH_BAD_CRC) << at;
        } else if (at == 20 || at == 21) {
          ASSERT_EQ(e, SFU_E_CRASH_BAD_VERSION) << at;
        } else if (at >= 0x17) {
          ASSERT_EQ(e, SFU_E_CRASH_BAD_CRC) << at;
        }
      }
    }
    ASSERT_EQ(c->reopen(), SFU_OK);
  }
}

// Each layout check, with the CRC made right again: what a writer with a fault would produce.
TEST(CrashRecord, BadLayout) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto c = capture(m);
  const std::vector<uint8_t> good(c->rec(), c->rec() + c->area.size());
  uint32_t frames = layout::frames_at(1), windows = layout::windows_at(1, 3);
  struct Damage {
    const char *what;
    uint32_t at;
    uint64_t value;
    unsigned n;
  } damages[] = {
      {"unknown flag", layout::hdr::kFlags, 0x8, 1},
      {"frames-truncated flag without frames left out", layout::hdr::kFlags, layout::kFramesTruncated, 1},
      {"walk gave fewer frames than recorded", layout::hdr::kWalkFrames, 2, 4},
      {"walk gave more frames, no flag", layout::hdr::kWalkFrames, 4, 4},
      {"unknown walk option", layout::hdr::kWalkOptions, 0x80, 1},
      {"stop reason out of range", layout::hdr::kStop, SFU_STOP_COUNT, 1},
      {"reliable not 0 or 1", layout::hdr::kReliable, 2, 1},
      {"reserved header byte", layout::hdr::kReserved + 5, 1, 1},
      {"message without its NUL", layout::hdr::kMessage + SFU_CRASH_MESSAGE_MAX - 1, 'x', 1},
      {"bytes after the message's NUL", layout::hdr::kMessage + SFU_CRASH_MESSAGE_MAX - 2, 'x', 1},
      {"register padding", layout::regs::kAt + layout::regs::kPad, 1, 4},
      {"module text range empty", layout::modules_at() + layout::module::kTextEnd, 0x100000, 8},
      {"module build-id too long", layout::modules_at() + layout::module::kBuildIdSize, 65, 1},
      {"module reserved byte", layout::modules_at() + layout::module::kReserved, 1, 1},
      {"module build-id tail", layout::modules_at() + layout::module::kBuildId + 40, 1, 1},
      {"module name without its NUL", layout::modules_at() + layout::module::kName + 31, 'x', 1},
      {"frame module out of range", frames + layout::frame::kModule, 1, 2},
      {"frame source out of range", frames + layout::frame::kSource, SFU_SOURCE_SIGNAL_FRAME + 1, 1},
      {"frame reliable not 0 or 1", frames + layout::frame::kReliable, 2, 1},
      {"frame reserved byte", frames + layout::frame::kReserved, 1, 1},
      {"window misaligned", windows + layout::window::kAddr, 0x7f04, 8},
      {"window size not a multiple of 8", windows + layout::window::kSize, 0xfc, 4},
      {"window runs past the record", windows + layout::window::kSize, 0x108, 4},
      {"window short of the record's end", windows + layout::window::kSize, 0xf8, 4},
      {"window of no bytes", windows + layout::window::kSize, 0, 4},
      {"window wraps", windows + layout::window::kAddr, 0xffffffffffffff80, 8},
      {"window reserved byte", windows + layout::window::kReserved, 1, 1},
      {"more windows than the record holds", layout::hdr::kNumWindows, 2, 2},
      {"more frames than the record holds", layout::hdr::kNumFrames, 200, 2},
  };
  for (const Damage &d : damages) {
    memcpy(c->rec(), good.data(), good.size());
    set(c->rec() + d.at, d.value, d.n, false);
    reseal(c->rec(), false);
    EXPECT_EQ(name(c->reopen()), "crash-bad-layout") << d.what;
  }
  memcpy(c->rec(), good.data(), good.size());
  EXPECT_EQ(c->reopen(), SFU_OK);
}

TEST(CrashRecord, AccessorsRefuseOutOfRange) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto c = capture(m);
  ASSERT_EQ(c->reopen(), SFU_OK);
  sfu_frame f{};
  f.pc = 123;
  sfu_crash_module mod{};
  sfu_crash_window w{};
  EXPECT_EQ(sfu_crash_get_frame(&c->view, 3, &f, nullptr), 0);
  EXPECT_EQ(f.pc, 123u);
  EXPECT_EQ(sfu_crash_get_module(&c->view, 1, &mod), 0);
  EXPECT_EQ(sfu_crash_get_window(&c->view, 1, &w), 0);
  EXPECT_EQ(sfu_crash_get_frame(&c->view, 2, &f, nullptr), 1);  // module_index may be NULL
}

// ---- who wins -----------------------------------------------------------------------------------

TEST(CrashRecord, CaptureBusy) {
  // A capture in progress (another CPU, or the capture the fault interrupted): the state word
  // says "writing". A second capture writes nothing.
  X86Setup x;
  memcpy(x.area.data() + 8, "WRRW", 4);
  std::vector<uint8_t> before(x.area.data(), x.area.data() + x.area.size());
  sfu_crash_info info = panic_info();
  EXPECT_EQ(name(sfu_crash_capture(x.area.data(), x.area.size(), &info, &x.m.start, &x.config)),
            "crash-capture-busy");
  EXPECT_EQ(0, memcmp(before.data(), x.area.data(), x.area.size()));
}

TEST(CrashRecord, TakeChangesTheStateOnlyFromTheOneItRead) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  sfu_walk_config config = m.config();
  // The take read "free" (nothing to hand over), then a capture on another CPU claimed the area
  // before the take could write: the capture keeps it.
  Area area(kAreaSize);
  memcpy(area.data() + 8, "WRRW", 4);
  sfu_crash_view v;
  EXPECT_EQ(name(layout::take_as_seen(v, area.data(), area.size(), layout::kStateFree)), "crash-capture-busy");
  EXPECT_EQ(0, memcmp(area.data() + 8, "WRRW", 4));
  // Two takes of one record: the second read "complete" too, but the first swapped it already.
  auto c = capture(m);
  ASSERT_EQ(sfu_crash_take(&v, c->rec(), c->area.size()), SFU_OK);
  EXPECT_EQ(name(layout::take_as_seen(v, c->rec(), c->area.size(), layout::kStateComplete)), "crash-record-taken");
  EXPECT_EQ(0, memcmp(c->rec() + 8, "TKKT", 4));
  // A capture after the take writes again.
  EXPECT_EQ(sfu_crash_capture(c->rec(), c->area.size(), nullptr, &m.start, &config), SFU_OK);
}

TEST(CrashRecord, TakeFreesTheAreaOnEveryRefusal) {
  // Whatever the take refuses, the next capture may write (the area is never left stuck).
  CrashMachine m = crash_machine(SFU_ABI_AARCH64_LE);
  sfu_walk_config config = m.config();
  struct Damage {
    const char *want;
    void (*apply)(uint8_t *rec);
  };
  const Damage damages[] = {
      {"crash-no-record", [](uint8_t *r) { r[0] ^= 1; }},
      {"crash-record-torn", [](uint8_t *r) { memcpy(r + 8, "WRRW", 4); }},
      {"crash-wrong-arch", [](uint8_t *r) { r[layout::hdr::kAbi] = 0x7f; }},
      {"crash-bad-version", [](uint8_t *r) { r[layout::hdr::kVersion] ^= 0x40; }},
      {"crash-bad-length", [](uint8_t *r) { set(r + layout::hdr::kLength, kAreaSize + 8, 4, false); }},
      {"crash-bad-crc", [](uint8_t *r) { r[layout::hdr::kCrc] ^= 1; }},
  };
  for (const Damage &d : damages) {
    auto c = capture(m);
    ASSERT_EQ(c->error, SFU_OK);
    d.apply(c->rec());
    sfu_crash_view v;
    EXPECT_EQ(name(sfu_crash_take(&v, c->rec(), c->area.size())), d.want);
    EXPECT_EQ(0, memcmp(c->rec() + 8, "FRRF", 4)) << d.want;
    EXPECT_EQ(name(sfu_crash_take(&v, c->rec(), c->area.size())), "crash-no-record") << d.want;
    EXPECT_EQ(sfu_crash_capture(c->rec(), c->area.size(), nullptr, &m.start, &config), SFU_OK) << d.want;
  }
}

TEST(CrashRecord, ALoserWaitsForTheWinnerBeforeAReset) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  const sfu_walk_config config = m.config();
  Area area(kAreaSize);
  // Nothing captured: nothing to wait for.
  EXPECT_EQ(name(sfu_crash_wait(area.data(), 10)), "crash-no-record");
  // The winner is still writing (or died writing): the wait gives up after its spins.
  memcpy(area.data() + 8, "WRRW", 4);
  EXPECT_EQ(name(sfu_crash_wait(area.data(), 1000)), "crash-capture-busy");
  // The winner finishes on another CPU while the loser waits.
  memcpy(area.data() + 8, "FRRF", 4);
  std::atomic<bool> claimed{false};
  std::thread winner([&] {
    ASSERT_EQ(sfu_crash_capture(area.data(), area.size(), nullptr, &m.start, &config), SFU_OK);
    claimed = true;
  });
  while (!claimed.load() && memcmp(area.data() + 8, "FRRF", 4) == 0) {
  }
  sfu_error waited = sfu_crash_wait(area.data(), 0xffffffffu);
  winner.join();
  EXPECT_EQ(name(waited), "ok");
  sfu_crash_view v;
  EXPECT_EQ(sfu_crash_open(&v, area.data(), area.size()), SFU_OK);
  EXPECT_EQ(sfu_crash_wait(area.data(), 0), SFU_OK);
  EXPECT_EQ(name(sfu_crash_wait(area.data() + 4, 1)), "crash-area-misaligned");
  EXPECT_EQ(name(sfu_crash_wait(nullptr, 1)), "null-argument");
}

TEST(CrashRecord, RecordKept) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto c = capture(m, panic_info("first"));
  ASSERT_EQ(c->error, SFU_OK);
  std::vector<uint8_t> first(c->rec(), c->rec() + c->area.size());
  sfu_walk_config config = m.config();
  sfu_crash_info second = panic_info("second");
  EXPECT_EQ(name(sfu_crash_capture(c->rec(), c->area.size(), &second, &m.start, &config)), "crash-record-kept");
  EXPECT_EQ(0, memcmp(first.data(), c->rec(), first.size()));
  // Once taken, the area is free again: the next capture writes.
  ASSERT_EQ(sfu_crash_take(&c->view, c->rec(), c->area.size()), SFU_OK);
  EXPECT_EQ(sfu_crash_capture(c->rec(), c->area.size(), &second, &m.start, &config), SFU_OK);
  ASSERT_EQ(c->reopen(), SFU_OK);
  sfu_crash_summary s;
  sfu_crash_get_summary(&c->view, &s);
  EXPECT_STREQ(s.message, "second");
}

TEST(CrashRecord, RacingCapturesOneWins) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  const sfu_walk_config config = m.config();
  constexpr int kThreads = 8;
  for (int round = 0; round < 50; round++) {
    Area area(kAreaSize);
    std::atomic<int> ready{0};
    std::vector<sfu_error> results(kThreads);
    std::vector<std::string> messages(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
      messages[t] = "cpu " + std::to_string(t);
      threads.emplace_back([&, t] {
        sfu_crash_info info = panic_info(messages[t].c_str());
        ready++;
        while (ready.load() < kThreads) {
        }
        results[t] = sfu_crash_capture(area.data(), area.size(), &info, &m.start, &config);
      });
    }
    for (auto &th : threads) th.join();
    int winners = 0, winner = -1;
    for (int t = 0; t < kThreads; t++) {
      if (results[t] == SFU_OK) winners++, winner = t;
      else ASSERT_TRUE(results[t] == SFU_E_CRASH_CAPTURE_BUSY || results[t] == SFU_E_CRASH_RECORD_KEPT)
          << name(results[t]);
    }
    ASSERT_EQ(winners, 1);
    sfu_crash_view v;
    ASSERT_EQ(sfu_crash_open(&v, area.data(), area.size()), SFU_OK);
    sfu_crash_summary s;
    sfu_crash_get_summary(&v, &s);
    EXPECT_EQ(s.message, messages[winner]);
    EXPECT_EQ(v.num_frames, 3);
  }
}

TEST(CrashRecord, NoAreaWithoutTheLinkerFragment) {
  // This test program is linked without linker/sfunwind-crash.ld: the weak symbols are NULL.
  X86Setup x;
  EXPECT_EQ(name(sfu_crash_capture_image(nullptr, &x.m.start, &x.config)), "crash-no-area");
  EXPECT_EQ(sfu_crash_take_image(&x.v), SFU_E_CRASH_NO_AREA);
}

}  // namespace
