// The output layer: exact text from the formatter, and whole printed traces of walks on the
// fake machine's synthetic stacks.
#include <gtest/gtest.h>

#include <stdint.h>

#include <memory>
#include <string>
#include <vector>

#include "sfu/print.h"
#include "support/crash_machines.h"
#include "support/fake_machine.h"
#include "support/symbols_builder.h"
#include "support/x86_chain.h"

using namespace sfu::test;

namespace {

// A sink that appends to a string.
struct Text {
  std::string s;
  sfu_sink sink{[](void *ctx, char c) { static_cast<std::string *>(ctx)->push_back(c); }, &s};
  Text() = default;
  Text(const Text &) = delete;  // the sink points at this object's string
  const sfu_sink *get() const { return &sink; }
};

template <class F>
std::string printed(F f) {
  Text t;
  f(t.get());
  return t.s;
}

std::string hex(uint64_t v, unsigned digits) {
  return printed([&](const sfu_sink *s) { sfu_print_hex(s, v, digits); });
}
std::string dec(int64_t v) {
  return printed([&](const sfu_sink *s) { sfu_print_dec(s, v); });
}
std::string udec(uint64_t v) {
  return printed([&](const sfu_sink *s) { sfu_print_udec(s, v); });
}
std::string str(const char *v) {
  return printed([&](const sfu_sink *s) { sfu_print_str(s, v); });
}

// ---- formatter ---------------------------------------------------------------------------------

TEST(PrintFormat, Hex) {
  EXPECT_EQ(hex(0, 0), "0x0");
  EXPECT_EQ(hex(0, 1), "0x0");
  EXPECT_EQ(hex(0, 16), "0x0000000000000000");
  EXPECT_EQ(hex(0xabcdef, 0), "0xabcdef");
  EXPECT_EQ(hex(0xabcdef, 4), "0xabcdef");  // min_digits never truncates
  EXPECT_EQ(hex(0xff, 4), "0x00ff");
  EXPECT_EQ(hex(0x401234, 16), "0x0000000000401234");
  EXPECT_EQ(hex(0x1000000000000000, 0), "0x1000000000000000");
  EXPECT_EQ(hex(UINT64_MAX, 0), "0xffffffffffffffff");
  EXPECT_EQ(hex(UINT64_MAX, 16), "0xffffffffffffffff");
  EXPECT_EQ(hex(1, 17), "0x0000000000000001");  // more than 16 is taken as 16
  EXPECT_EQ(hex(1, UINT32_MAX), "0x0000000000000001");
}

TEST(PrintFormat, SignedDecimal) {
  EXPECT_EQ(dec(0), "0");
  EXPECT_EQ(dec(7), "7");
  EXPECT_EQ(dec(-1), "-1");
  EXPECT_EQ(dec(10), "10");
  EXPECT_EQ(dec(-160), "-160");
  EXPECT_EQ(dec(INT64_MAX), "9223372036854775807");
  EXPECT_EQ(dec(INT64_MIN), "-9223372036854775808");
  EXPECT_EQ(dec(INT64_MIN + 1), "-9223372036854775807");
}

TEST(PrintFormat, UnsignedDecimal) {
  EXPECT_EQ(udec(0), "0");
  EXPECT_EQ(udec(9), "9");
  EXPECT_EQ(udec(1000), "1000");
  EXPECT_EQ(udec(uint64_t(INT64_MAX) + 1), "9223372036854775808");
  EXPECT_EQ(udec(UINT64_MAX), "18446744073709551615");
}

TEST(PrintFormat, Strings) {
  EXPECT_EQ(str(""), "");
  EXPECT_EQ(str("stop: end-of-stack"), "stop: end-of-stack");
  EXPECT_EQ(str(nullptr), "(null)");
  std::string longer(SFU_PRINT_STR_MAX + 10, 'x');
  EXPECT_EQ(str(longer.c_str()), std::string(SFU_PRINT_STR_MAX, 'x'));
}

TEST(PrintFormat, NoSinkPrintsNothingAndDoesNotCrash) {
  sfu_sink no_putc{nullptr, nullptr};
  for (const sfu_sink *s : {static_cast<const sfu_sink *>(nullptr), static_cast<const sfu_sink *>(&no_putc)}) {
    sfu_print_str(s, "x");
    sfu_print_hex(s, 1, 4);
    sfu_print_dec(s, -1);
    sfu_print_udec(s, 1);
    sfu_frame f{};
    sfu_print_frame(s, &f);
  }
  EXPECT_EQ(printed([](const sfu_sink *s) { sfu_print_frame(s, nullptr); }), "");
}

// ---- one frame ---------------------------------------------------------------------------------

TEST(PrintFrame, EveryField) {
  sfu_module m{};
  m.name = "ext4";
  sfu_frame f{};
  f.pc = 0xffffffff81001234;
  f.sp = 0xffffc90000003f58;
  f.module = &m;
  f.source = SFU_SOURCE_TABLE;
  f.reliable = 1;
  f.stack_kind = SFU_STACK_IRQ;
  f.index = 7;
  auto line = [&] { return printed([&](const sfu_sink *s) { sfu_print_frame(s, &f); }); };
  EXPECT_EQ(line(), " #7     0xffffffff81001234  sp 0xffffc90000003f58  irq    [table]      ext4\n");

  f.reliable = 0;
  f.source = SFU_SOURCE_FRAME_POINTER;
  f.stack_kind = SFU_STACK_EXCEPTION;
  f.index = 42;
  EXPECT_EQ(line(), " #42  ? 0xffffffff81001234  sp 0xffffc90000003f58  exc    [fp]         ext4\n");

  f.source = SFU_SOURCE_BACK_CHAIN;
  f.stack_kind = SFU_STACK_OTHER;
  f.index = 255;  // saturated
  m.name = nullptr;
  EXPECT_EQ(line(), " #255 ? 0xffffffff81001234  sp 0xffffc90000003f58  other  [backchain]  (unnamed)\n");

  f.source = SFU_SOURCE_REGISTERS;
  f.stack_kind = SFU_STACK_TASK;
  f.reliable = 1;
  f.index = 0;
  f.module = nullptr;
  f.pc = 0;
  f.sp = 0;
  EXPECT_EQ(line(), " #0     0x0000000000000000  sp 0x0000000000000000  task   [regs]       -\n");

  f.source = 4;  // a trap frame
  f.stack_kind = 200;  // a kind the API does not name
  m.name = "";
  f.module = &m;
  EXPECT_EQ(line(), " #0     0x0000000000000000  sp 0x0000000000000000  other  [trap]       (unnamed)\n");

  f.source = 99;
  EXPECT_EQ(line(), " #0     0x0000000000000000  sp 0x0000000000000000  other  [unknown]    (unnamed)\n");
}

// ---- whole traces ------------------------------------------------------------------------------

struct Trace {
  std::string text;
  size_t frames;
};

Trace print_trace(const sfu_regs &regs, const sfu_walk_config &config) {
  Text t;
  size_t n = sfu_print_backtrace(t.get(), &regs, &config);
  return {t.s, n};
}

TEST(PrintBacktrace, TableFramesToTheEndAreReliable) {
  X86Chain x("vmlinux");
  ASSERT_EQ(x.reg.error(), SFU_OK);
  Trace t = print_trace(x.start(), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(t.text,
            "module 0 vmlinux 0x0000000000100000-0x0000000000101000 no build-id\n"
            " #0     0x0000000000100210  sp 0x0000000000007f00  task   [regs]       vmlinux\n"
            " #1     0x0000000000100120  sp 0x0000000000007f10  task   [table]      vmlinux\n"
            " #2     0x0000000000100030  sp 0x0000000000007fb0  task   [table]      vmlinux\n"
            "stop: end-of-stack (reliable)\n");
  EXPECT_EQ(t.frames, 3u);
  EXPECT_TRUE(x.mem.stray_reads().empty());
}

TEST(PrintBacktrace, PrintsTheSameFramesAsTheWalk) {
  X86Chain x("vmlinux");
  sfu_regs r = x.start();
  sfu_walk_config c = x.mem.config(SFU_ABI_AMD64_LE);
  Walked w = walk_checked(r, c);
  std::string expected = "module 0 vmlinux 0x0000000000100000-0x0000000000101000 no build-id\n";
  for (const sfu_frame &f : w.frames) expected += printed([&](const sfu_sink *s) { sfu_print_frame(s, &f); });
  expected += "stop: end-of-stack (reliable)\n";
  EXPECT_EQ(print_trace(r, c).text, expected);
}

TEST(PrintBacktrace, ModuleLineCarriesTheBuildIdAndACleanName) {
  // What a host needs to place a moved image: the registered text range and the build-id; a name
  // with a control character cannot break the line.
  ModuleExtras extras;
  extras.build_id_note = gnu_build_id_note(false, {0x5a, 0x1f, 0x00, 0x9c, 0x42});
  X86Chain x("vm\nlinux", extras);
  ASSERT_EQ(x.reg.module().build_id_error, SFU_OK);
  std::string text = print_trace(x.start(), x.mem.config(SFU_ABI_AMD64_LE)).text;
  EXPECT_EQ(text.substr(0, text.find('\n') + 1),
            "module 0 vm?linux 0x0000000000100000-0x0000000000101000 build-id 5a1f009c42\n");
}

TEST(PrintBacktrace, FrameLinesPrintTheModuleNameClean) {
  // A name holding LF, CR and ESC: in the frame lines too every byte outside printable ASCII is
  // '?', so the name cannot start a line of its own (here a forged stop line) in the log.
  X86Chain x("vm\nstop: end-of-stack (reliable)\r\x1b[2J\x7f\xc3\xa9");
  ASSERT_EQ(x.reg.error(), SFU_OK);
  Trace t = print_trace(x.start(), x.mem.config(SFU_ABI_AMD64_LE));
  const std::string name = "vm?stop: end-of-stack (reliable)??[2J???";
  EXPECT_EQ(t.text,
            "module 0 " + name + " 0x0000000000100000-0x0000000000101000 no build-id\n"
            " #0     0x0000000000100210  sp 0x0000000000007f00  task   [regs]       " + name + "\n"
            " #1     0x0000000000100120  sp 0x0000000000007f10  task   [table]      " + name + "\n"
            " #2     0x0000000000100030  sp 0x0000000000007fb0  task   [table]      " + name + "\n"
            "stop: end-of-stack (reliable)\n");
  // sfu_print_frame alone, the same.
  sfu_frame f{};
  f.module = &x.reg.module();
  f.reliable = 1;
  EXPECT_EQ(printed([&](const sfu_sink *s) { sfu_print_frame(s, &f); }),
            " #0     0x0000000000000000  sp 0x0000000000000000  task   [regs]       " + name + "\n");
}

TEST(PrintBacktrace, AModuleLineOncePerTraceForUpToFourModules) {
  // Six modules M0..M5, each function called from the one before: M5's is frame 0, then M4 ... M0,
  // and then M4 again (its line pushed out by M1 and M0: printed again, as module 6) and M0 (among
  // the last four printed: not again).
  FakeMemory mem{false};
  mem.add_stack(kStackLo, kStackHi);
  std::vector<std::unique_ptr<Registered>> mods;
  std::vector<std::string> names;
  for (int i = 0; i < 6; i++) names.push_back("m" + std::to_string(i));
  auto base = [](int i) { return 0x1000000 + 0x100000 * uint64_t(i); };
  for (int i = 0; i < 6; i++) {
    TableSpec t = table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(base(i), 0x40, {{0, {8}}})});
    t.section_addr = base(i) + 0x80000;
    mods.push_back(std::make_unique<Registered>(t, base(i), base(i) + 0x1000, names[i].c_str()));
    ASSERT_EQ(mods.back()->error(), SFU_OK);
  }
  // Frames: M5 (regs), then callers in M4, M3, M2, M1, M0, M4, M0; each CFA = SP + 8.
  const int callers[] = {4, 3, 2, 1, 0, 4, 0};
  uint64_t sp = 0x7f00;
  for (int c : callers) {
    mem.put(sp, base(c) + 0x10);
    sp += 8;
  }
  Trace t = print_trace(regs_with(base(5) + 8, {{SFU_X86_64_RSP, 0x7f00}, {SFU_X86_64_RBP, 0}}),
                        mem.config(SFU_ABI_AMD64_LE));
  std::vector<std::string> modules;
  for (size_t at = 0; (at = t.text.find("module ", at)) != std::string::npos; at = t.text.find('\n', at))
    modules.push_back(t.text.substr(at, t.text.find(' ', at + 9) - at));
  EXPECT_EQ(modules, (std::vector<std::string>{"module 0 m5", "module 1 m4", "module 2 m3", "module 3 m2",
                                               "module 4 m1", "module 5 m0", "module 6 m4"}))
      << t.text;
}

TEST(PrintBacktrace, FramePointerFallbackIsMarked) {
  // The PC is in registered text that no function covers: one frame-record step, then rows.
  X86Chain x("vmlinux");
  x.mem.put(0x7f00, 0x7fa0);
  x.mem.put(0x7f08, x.B + 0x20);
  Trace t = print_trace(regs_with(kText + 0x800, {{SFU_X86_64_RSP, 0x7ef0}, {SFU_X86_64_RBP, 0x7f00}}),
                        x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(t.text,
            "module 0 vmlinux 0x0000000000100000-0x0000000000101000 no build-id\n"
            " #0     0x0000000000100800  sp 0x0000000000007ef0  task   [regs]       vmlinux\n"
            " #1   ? 0x0000000000100120  sp 0x0000000000007f10  task   [fp]         vmlinux\n"
            " #2   ? 0x0000000000100030  sp 0x0000000000007fb0  task   [table]      vmlinux\n"
            "stop: end-of-stack (unreliable)\n");
  EXPECT_EQ(t.frames, 3u);
}

TEST(PrintBacktrace, FrameCapIsUnreliable) {
  X86Chain x("vmlinux");
  Trace t = print_trace(x.start(), x.mem.config(SFU_ABI_AMD64_LE, 2));
  EXPECT_EQ(t.text,
            "module 0 vmlinux 0x0000000000100000-0x0000000000101000 no build-id\n"
            " #0     0x0000000000100210  sp 0x0000000000007f00  task   [regs]       vmlinux\n"
            " #1     0x0000000000100120  sp 0x0000000000007f10  task   [table]      vmlinux\n"
            "stop: frame-cap-reached (unreliable)\n");
  EXPECT_EQ(t.frames, 2u);
}

TEST(PrintBacktrace, GuardStopIsUnreliable) {
  X86Chain x("vmlinux");
  x.mem.poison(0x7fa8);
  Trace t = print_trace(x.start(), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(t.text,
            "module 0 vmlinux 0x0000000000100000-0x0000000000101000 no build-id\n"
            " #0     0x0000000000100210  sp 0x0000000000007f00  task   [regs]       vmlinux\n"
            " #1     0x0000000000100120  sp 0x0000000000007f10  task   [table]      vmlinux\n"
            "stop: read-refused (unreliable)\n");
  EXPECT_EQ(t.frames, 2u);
}

TEST(PrintBacktrace, BadStartPrintsOnlyTheStopLine) {
  X86Chain x("vmlinux");
  Trace t = print_trace(regs_with(x.C, {{SFU_X86_64_RSP, 0x100}}), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(t.text, "stop: bad-start (unreliable)\n");
  EXPECT_EQ(t.frames, 0u);
  Text none;
  EXPECT_EQ(sfu_print_backtrace(none.get(), nullptr, nullptr), 0u);
  EXPECT_EQ(none.s, "stop: bad-start (unreliable)\n");
}

TEST(PrintBacktrace, UnnamedModuleAndStackKinds) {
  // An interrupt handler H on the IRQ stack; its rbp-based CFA leads to B on the task stack.
  const uint64_t A = kText, B = kText + 0x100, H = kText + 0x200;
  Registered reg{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(A, 0x40, {{0, {}}}), fde_spec(B, 0x40, {{0, {16}}}), fde_spec(H, 0x20, {{0, {16, -16}, false}})}),
                 kText, kText + 0x1000, nullptr};
  ASSERT_EQ(reg.error(), SFU_OK);
  FakeMemory mem{false};
  mem.add_stack(0x3000, 0x4000, SFU_STACK_IRQ);
  mem.add_stack(kStackLo, kStackHi, SFU_STACK_TASK);
  mem.put(0x7f08, B + 0x10);
  mem.put(0x7f00, 0);
  mem.put(0x7f18, A + 0x10);
  Trace t = print_trace(regs_with(H + 4, {{SFU_X86_64_RSP, 0x3f00}, {SFU_X86_64_RBP, 0x7f00}}),
                        mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(t.text,
            "module 0 (unnamed) 0x0000000000100000-0x0000000000101000 no build-id\n"
            " #0     0x0000000000100204  sp 0x0000000000003f00  irq    [regs]       (unnamed)\n"
            " #1     0x0000000000100110  sp 0x0000000000007f10  task   [table]      (unnamed)\n"
            " #2     0x0000000000100010  sp 0x0000000000007f20  task   [table]      (unnamed)\n"
            "stop: end-of-stack (reliable)\n");
  EXPECT_EQ(t.frames, 3u);
}

TEST(PrintBacktrace, TwoModules) {
  // K (the kernel image) calls into M (a module), which calls back into K's leaf L.
  const uint64_t K = kText, L = kText + 0x100, M = 0x300000;
  Registered kernel{table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(K, 0x40, {{0, {8}}, {0x20, {}}}), fde_spec(L, 0x20, {{0, {8}}})}), kText, kText + 0x1000,
                    "vmlinux"};
  TableSpec mt = table_spec(3, SFU_ABI_AMD64_LE, {fde_spec(M, 0x40, {{0, {16}}})});
  mt.section_addr = 0x400000;
  Registered module{mt, M, M + 0x1000, "ext4"};
  ASSERT_EQ(kernel.error(), SFU_OK);
  ASSERT_EQ(module.error(), SFU_OK);
  FakeMemory mem{false};
  mem.add_stack(kStackLo, kStackHi);
  mem.put(0x7f00, M + 0x10);   // L: CFA = rsp + 8
  mem.put(0x7f10, K + 0x24);   // M: CFA = 0x7f08 + 16
  Trace t = print_trace(regs_with(L + 8, {{SFU_X86_64_RSP, 0x7f00}, {SFU_X86_64_RBP, 0}}),
                        mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(t.text,
            "module 0 vmlinux 0x0000000000100000-0x0000000000101000 no build-id\n"
            " #0     0x0000000000100108  sp 0x0000000000007f00  task   [regs]       vmlinux\n"
            "module 1 ext4 0x0000000000300000-0x0000000000301000 no build-id\n"
            " #1     0x0000000000300010  sp 0x0000000000007f08  task   [table]      ext4\n"
            " #2     0x0000000000100024  sp 0x0000000000007f18  task   [table]      vmlinux\n"
            "stop: end-of-stack (reliable)\n");
  EXPECT_EQ(t.frames, 3u);
}

// ---- the symbol column ---------------------------------------------------------------------------

constexpr uint64_t kSymbolsAt = kText + 0x2000;

// Names for the chain's functions (x86_chain.h): A_fn [A, +0x40), B_fn [B, +0x20) and right after
// it after_b [B + 0x20, +0x20), so B's call to C, at B's very end, returns to after_b's first
// byte; C_fn [C, +0x20). The gap [A + 0x40, B) has no name.
ModuleExtras chain_symbols() {
  auto rel = [](uint64_t addr) { return int64_t(addr) - int64_t(kSymbolsAt); };
  RawSymbols r = plain_symbols({{rel(kText), 0x40, codes("A_fn")},
                                {rel(kText + 0x100), 0x20, codes("B_fn")},
                                {rel(kText + 0x120), 0x20, codes("after_b")},
                                {rel(kText + 0x200), 0x20, codes("C_fn")}});
  return ModuleExtras{build_symbols(r), kSymbolsAt, {}};
}

TEST(PrintSymbols, NameOffsetAndSizeInEveryFrame) {
  X86Chain x("vmlinux", chain_symbols());
  ASSERT_EQ(x.reg.error(), SFU_OK);
  ASSERT_EQ(x.reg.module().symbols_error, SFU_OK);
  Trace t = print_trace(x.start(), x.mem.config(SFU_ABI_AMD64_LE));
  // #1 returns to B + 0x20, after_b's first byte: the call is B's last instruction (a call that
  // never returns would leave it so), and the frame names B, at offset 0x20 of its 0x20 bytes.
  EXPECT_EQ(t.text,
            "module 0 vmlinux 0x0000000000100000-0x0000000000101000 no build-id\n"
            " #0     0x0000000000100210  sp 0x0000000000007f00  task   [regs]       vmlinux  C_fn+0x10/0x20\n"
            " #1     0x0000000000100120  sp 0x0000000000007f10  task   [table]      vmlinux  B_fn+0x20/0x20\n"
            " #2     0x0000000000100030  sp 0x0000000000007fb0  task   [table]      vmlinux  A_fn+0x30/0x40\n"
            "stop: end-of-stack (reliable)\n");
}

TEST(PrintSymbols, ExactPcWhereTheCpuStoppedPcMinusOneForReturnAddresses) {
  X86Chain x("vmlinux", chain_symbols());
  sfu_frame f{};
  f.pc = kText + 0x120;  // after_b's first byte, B's end
  f.module = &x.reg.module();
  f.reliable = 1;
  auto column = [&](uint8_t source) {
    f.source = source;
    std::string line = printed([&](const sfu_sink *s) { sfu_print_frame(s, &f); });
    return line.substr(line.find("vmlinux") + 7);
  };
  EXPECT_EQ(column(SFU_SOURCE_REGISTERS), "  after_b+0x0/0x20\n");
  EXPECT_EQ(column(SFU_SOURCE_TRAP_FRAME), "  after_b+0x0/0x20\n");
  EXPECT_EQ(column(SFU_SOURCE_SIGNAL_FRAME), "  after_b+0x0/0x20\n");
  EXPECT_EQ(column(SFU_SOURCE_TABLE), "  B_fn+0x20/0x20\n");
  EXPECT_EQ(column(SFU_SOURCE_FRAME_POINTER), "  B_fn+0x20/0x20\n");
  EXPECT_EQ(column(SFU_SOURCE_BACK_CHAIN), "  B_fn+0x20/0x20\n");
  // No function covers the gap: no column, and no trailing space.
  f.pc = kText + 0x80;
  EXPECT_EQ(column(SFU_SOURCE_REGISTERS), "\n");
  // The column on its own.
  EXPECT_EQ(printed([&](const sfu_sink *s) { EXPECT_EQ(sfu_print_symbol(s, f.module, kText + 0x1f, kText + 0x20), 1); }),
            "A_fn+0x20/0x40");
  EXPECT_EQ(printed([&](const sfu_sink *s) { EXPECT_EQ(sfu_print_symbol(s, f.module, kText + 0x40, kText + 0x40), 0); }),
            "");
  EXPECT_EQ(printed([&](const sfu_sink *s) { EXPECT_EQ(sfu_print_symbol(s, nullptr, kText, kText), 0); }), "");
}

TEST(PrintSymbols, FunctionNamesPrintedClean) {
  // A symbol table names a function with a newline and an escape sequence (any byte but NUL may
  // be stored): the frame line and sfu_print_symbol print '?' for them, as for module names.
  auto rel = [](uint64_t addr) { return int64_t(addr) - int64_t(kSymbolsAt); };
  RawSymbols r = plain_symbols({{rel(kText), 0x40, codes("A_fn")},
                                {rel(kText + 0x100), 0x20, codes("B\nstop: x\x1b[0m")},
                                {rel(kText + 0x120), 0x20, codes("after_b")},
                                {rel(kText + 0x200), 0x20, codes("C\rfn\x80")}});
  X86Chain x("vmlinux", ModuleExtras{build_symbols(r), kSymbolsAt, {}});
  ASSERT_EQ(x.reg.module().symbols_error, SFU_OK);
  Trace t = print_trace(x.start(), x.mem.config(SFU_ABI_AMD64_LE));
  EXPECT_EQ(t.text,
            "module 0 vmlinux 0x0000000000100000-0x0000000000101000 no build-id\n"
            " #0     0x0000000000100210  sp 0x0000000000007f00  task   [regs]       vmlinux  C?fn?+0x10/0x20\n"
            " #1     0x0000000000100120  sp 0x0000000000007f10  task   [table]      vmlinux  B?stop: x?[0m+0x20/0x20\n"
            " #2     0x0000000000100030  sp 0x0000000000007fb0  task   [table]      vmlinux  A_fn+0x30/0x40\n"
            "stop: end-of-stack (reliable)\n");
  EXPECT_EQ(printed([&](const sfu_sink *s) { EXPECT_EQ(sfu_print_symbol(s, &x.reg.module(), kText + 0x200, kText + 0x204), 1); }),
            "C?fn?+0x4/0x20");
  // A NULL sink, or one without putc, still prints nothing (the cleaning sink passes nothing on).
  EXPECT_EQ(sfu_print_symbol(nullptr, &x.reg.module(), kText + 0x200, kText + 0x204), 1);
  sfu_sink no_putc{nullptr, nullptr};
  EXPECT_EQ(sfu_print_symbol(&no_putc, &x.reg.module(), kText + 0x200, kText + 0x204), 1);
}

TEST(PrintSymbols, NoColumnWithoutSymbolsOrWithRefusedOnes) {
  const std::string plain =
      "module 0 vmlinux 0x0000000000100000-0x0000000000101000 no build-id\n"
      " #0     0x0000000000100210  sp 0x0000000000007f00  task   [regs]       vmlinux\n"
      " #1     0x0000000000100120  sp 0x0000000000007f10  task   [table]      vmlinux\n"
      " #2     0x0000000000100030  sp 0x0000000000007fb0  task   [table]      vmlinux\n"
      "stop: end-of-stack (reliable)\n";
  {
    ModuleExtras bad = chain_symbols();
    bad.symbols[4] = 7;  // version
    X86Chain x("vmlinux", bad);
    ASSERT_EQ(x.reg.error(), SFU_OK);
    EXPECT_EQ(x.reg.module().symbols_error, SFU_E_SYMBOLS_BAD_VERSION);
    EXPECT_EQ(print_trace(x.start(), x.mem.config(SFU_ABI_AMD64_LE)).text, plain);
  }
  {
    // Symbols outside the module's text are refused the same way.
    ModuleExtras outside = chain_symbols();
    outside.symbols_addr = kText + 0x100000;
    X86Chain y("vmlinux", outside);
    ASSERT_EQ(y.reg.error(), SFU_OK);
    EXPECT_EQ(y.reg.module().symbols_error, SFU_E_SYMBOL_OUTSIDE_TEXT);
    EXPECT_EQ(print_trace(y.start(), y.mem.config(SFU_ABI_AMD64_LE)).text, plain);
  }
  X86Chain none("vmlinux");  // none given
  EXPECT_EQ(none.reg.module().symbols_error, SFU_E_NO_SYMBOLS);
  EXPECT_EQ(print_trace(none.start(), none.mem.config(SFU_ABI_AMD64_LE)).text, plain);
}

}  // namespace
