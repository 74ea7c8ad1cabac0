// The minidump and microdump writers and the microdump reader (tools/breakpad/minidump.h,
// microdump.h, dump.h): exact bytes of the header, the directory and both contexts, every stream
// where the directory says it is, the microdump's exact text and its reading back, each refusal of
// the reader with its line, and records turned into dumps (signals, modules, s390x refused).
#include <gtest/gtest.h>

#include "support/crash_machines.h"
#include "tools/breakpad/dump.h"
#include "tools/breakpad/microdump.h"
#include "tools/breakpad/minidump.h"
#include "tools/breakpad/module_id.h"

using namespace sfu::tools::breakpad;

namespace {

uint64_t le(const std::vector<uint8_t> &b, size_t at, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = n; i-- > 0;) v = (v << 8) | b.at(at + i);
  return v;
}

CrashDump sample(DumpCpu cpu) {
  CrashDump d;
  d.cpu = cpu;
  for (int i = 0; i < dump_reg_count(cpu); i++) d.regs.r[i] = 0x1000 + uint64_t(i);
  d.regs.valid = (uint64_t(1) << dump_reg_count(cpu)) - 1;
  d.stacks.push_back(DumpMemory{0x7000, std::vector<uint8_t>(16, 0x11)});
  DumpModule m;
  m.base = 0x100000;
  m.size = 0x8713;
  m.name = "kernel.elf";
  for (uint8_t i = 1; i <= 20; i++) m.build_id.push_back(i);
  m.debug_id = module_id_text(m.build_id);
  d.modules.push_back(m);
  d.signal = 4;
  d.signal_code = 2;
  d.crash_address = 0x1234;
  d.crash_reason = "SIGILL";
  d.reason = 2;
  d.detail = 6;
  d.message = "boom";
  return d;
}

TEST(BreakpadMinidump, HeaderAndDirectory) {
  std::vector<uint8_t> b = write_minidump(sample(DumpCpu::kAmd64));
  ASSERT_EQ(b.size(), 1877u);
  // 'MDMP', version 0xa793, 6 streams, directory at 32, checksum, time and flags 0.
  const std::vector<uint8_t> header = {0x4d, 0x44, 0x4d, 0x50, 0x93, 0xa7, 0, 0, 6, 0, 0, 0, 32, 0, 0, 0,
                                       0,    0,    0,    0,    0,    0,    0, 0, 0, 0, 0, 0, 0,  0, 0, 0};
  EXPECT_EQ(std::vector<uint8_t>(b.begin(), b.begin() + 32), header);
  // type, size, offset: thread list, module list, memory list, exception, system info, comment.
  const uint32_t dir[6][3] = {{3, 52, 1352},  {4, 112, 1464}, {5, 20, 1576},
                              {6, 168, 1600}, {7, 56, 1816},  {10, 5, 1872}};
  for (int i = 0; i < 6; i++)
    for (int k = 0; k < 3; k++) EXPECT_EQ(le(b, 32 + 12 * size_t(i) + 4 * size_t(k), 4), dir[i][k]) << i << " " << k;
}

TEST(BreakpadMinidump, Amd64Context) {
  CrashDump d = sample(DumpCpu::kAmd64);
  std::vector<uint8_t> c = context_bytes(d.cpu, d.regs);
  ASSERT_EQ(c.size(), 1232u);
  std::vector<uint8_t> want(1232, 0);
  auto put = [&](size_t at, uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; i++) want[at + i] = uint8_t(v >> (8 * i));
  };
  put(0x30, 0x00100003, 4);  // MD_CONTEXT_AMD64 | CONTROL | INTEGER
  // rax rcx rdx rbx rsp rbp rsi rdi r8..r15 rip, by DWARF number 0 2 1 3 7 6 4 5 8..15 16.
  const int order[] = {0, 2, 1, 3, 7, 6, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  for (int k = 0; k < 17; k++) put(0x78 + 8 * size_t(k), 0x1000 + uint64_t(order[k]), 8);
  EXPECT_EQ(c, want);
  // The minidump holds it where the thread and the exception say.
  std::vector<uint8_t> b = write_minidump(d);
  size_t thread = 1352 + 4;
  EXPECT_EQ(le(b, 1352, 4), 1u);                // one thread
  EXPECT_EQ(le(b, thread, 4), 1u);              // id 1
  EXPECT_EQ(le(b, thread + 24, 8), 0x7000u);    // stack start
  EXPECT_EQ(le(b, thread + 32, 4), 16u);        // stack size
  EXPECT_EQ(le(b, thread + 40, 4), 1232u);      // context size
  size_t context = le(b, thread + 44, 4), stack = le(b, thread + 36, 4);
  EXPECT_EQ(std::vector<uint8_t>(b.begin() + long(context), b.begin() + long(context) + 1232), want);
  EXPECT_EQ(std::vector<uint8_t>(b.begin() + long(stack), b.begin() + long(stack) + 16), std::vector<uint8_t>(16, 0x11));
  EXPECT_EQ(le(b, 1600 + 160, 4), 1232u);        // the exception's context
  EXPECT_EQ(le(b, 1600 + 164, 4), context);
}

TEST(BreakpadMinidump, Arm64Context) {
  CrashDump d = sample(DumpCpu::kArm64);
  std::vector<uint8_t> c = context_bytes(d.cpu, d.regs);
  ASSERT_EQ(c.size(), 912u);
  std::vector<uint8_t> want(912, 0);
  want[0] = 0x03, want[2] = 0x40;  // MD_CONTEXT_ARM64 | CONTROL | INTEGER = 0x00400003
  for (int i = 0; i < 33; i++)     // x0-x30, sp, pc at 8
    for (int k = 0; k < 8; k++) want[8 + 8 * size_t(i) + size_t(k)] = uint8_t((0x1000 + uint64_t(i)) >> (8 * k));
  EXPECT_EQ(c, want);
  std::vector<uint8_t> b = write_minidump(d);
  EXPECT_EQ(le(b, 32 + 12 * 4, 4), 7u);
  EXPECT_EQ(le(b, le(b, 32 + 12 * 4 + 8, 4), 2), 12u);  // system info: MD_CPU_ARCHITECTURE_ARM64
  size_t thread = le(b, 32 + 8, 4) + 4;
  EXPECT_EQ(le(b, thread + 40, 4), 912u);
  size_t context = le(b, thread + 44, 4);
  EXPECT_EQ(std::vector<uint8_t>(b.begin() + long(context), b.begin() + long(context) + 912), want);
}

TEST(BreakpadMinidump, Streams) {
  std::vector<uint8_t> b = write_minidump(sample(DumpCpu::kAmd64));
  // Module list: one module, base, size, name, CodeView 'BpEL' + the build-id.
  EXPECT_EQ(le(b, 1464, 4), 1u);
  EXPECT_EQ(le(b, 1468, 8), 0x100000u);
  EXPECT_EQ(le(b, 1468 + 8, 4), 0x8713u);
  size_t name = le(b, 1468 + 20, 4);
  EXPECT_EQ(le(b, name, 4), 20u);  // bytes of UTF-16
  std::string text;
  for (size_t i = 0; i < 10; i++) text += char(le(b, name + 4 + 2 * i, 2));
  EXPECT_EQ(text, "kernel.elf");
  EXPECT_EQ(le(b, name + 24, 2), 0u);
  EXPECT_EQ(le(b, 1468 + 76, 4), 24u);
  size_t cv = le(b, 1468 + 80, 4);
  EXPECT_EQ(le(b, cv, 4), 0x4270454cu);
  for (size_t i = 0; i < 20; i++) EXPECT_EQ(b[cv + 4 + i], i + 1);
  // Memory list: the stack.
  EXPECT_EQ(le(b, 1576, 4), 1u);
  EXPECT_EQ(le(b, 1580, 8), 0x7000u);
  EXPECT_EQ(le(b, 1588, 4), 16u);
  // Exception: thread 1, SIGILL, ILL_ILLOPN, the address, reason and detail as parameters.
  EXPECT_EQ(le(b, 1600, 4), 1u);
  EXPECT_EQ(le(b, 1608, 4), 4u);
  EXPECT_EQ(le(b, 1612, 4), 2u);
  EXPECT_EQ(le(b, 1624, 8), 0x1234u);
  EXPECT_EQ(le(b, 1632, 4), 2u);
  EXPECT_EQ(le(b, 1640, 8), 2u);
  EXPECT_EQ(le(b, 1648, 8), 6u);
  // System info: AMD64, one CPU, Linux, the CSD string.
  EXPECT_EQ(le(b, 1816, 2), 9u);
  EXPECT_EQ(b[1816 + 6], 1u);
  EXPECT_EQ(le(b, 1816 + 20, 4), 0x8201u);
  EXPECT_EQ(le(b, 1816 + 24, 4), 1768u);
  EXPECT_EQ(le(b, 1768, 4), 42u);
  // The comment: the message.
  EXPECT_EQ(std::string(b.begin() + 1872, b.end()), std::string("boom", 5));
  // No message, no comment stream; no build-id, no CodeView record.
  CrashDump quiet = sample(DumpCpu::kAmd64);
  quiet.message.clear();
  quiet.modules[0].build_id.clear();
  std::vector<uint8_t> q = write_minidump(quiet);
  EXPECT_EQ(le(q, 8, 4), 5u);
  size_t modules = le(q, 32 + 12 + 8, 4);
  EXPECT_EQ(le(q, modules + 4 + 76, 4), 0u);
  EXPECT_EQ(le(q, modules + 4 + 80, 4), 0u);
}

TEST(BreakpadMicrodump, ExactText) {
  CrashDump d = sample(DumpCpu::kArm64);
  d.signal = 11;
  d.crash_reason = "SIGSEGV";
  d.stacks[0].bytes.assign(400, 0xab);  // two S lines: 384 bytes, then 16
  std::string text = write_microdump(d);
  std::string context;
  for (uint8_t byte : context_bytes(DumpCpu::kArm64, d.regs)) {
    char buf[3];
    snprintf(buf, sizeof buf, "%02X", byte);
    context += buf;
  }
  const std::string p = "google-breakpad: ";
  std::string want;
  want = p + "-----BEGIN BREAKPAD MICRODUMP-----\n" + p + "V sfunwind:1\n" + p +
         "O L arm64 01 aarch64 sfunwind crash record\n" + p + "P UNKNOWN\n" + p +
         "R 0000000B SIGSEGV 0000000000001234\n" + p + "G UNKNOWN\n" + p +
         "S 0 000000000000101F 0000000000007000 0000000000000190\n";
  std::string ab;
  for (int i = 0; i < 384; i++) ab += "AB";
  want += p + "S 0000000000007000 " + ab + "\n";
  want += p + "S 0000000000007180 " + ab.substr(0, 32) + "\n";
  want += p + "C " + context + "\n";
  want += p + "M 0000000000100000 0000000000000000 0000000000008713 " + d.modules[0].debug_id + " kernel.elf\n";
  want += p + "-----END BREAKPAD MICRODUMP-----\n";
  EXPECT_EQ(text, want);
}

TEST(BreakpadMicrodump, ReadsBackWhatItWrites) {
  CrashDump d = sample(DumpCpu::kArm64);
  d.stacks[0].bytes.clear();
  for (int i = 0; i < 1000; i++) d.stacks[0].bytes.push_back(uint8_t(i * 7));
  std::string text = "boot log line\n[  1.0] " + write_microdump(d) + "after\n";
  ASSERT_TRUE(looks_like_microdump(text));
  CrashDump r;
  std::string error;
  ASSERT_TRUE(read_microdump(text, "m.txt", r, error)) << error;
  EXPECT_EQ(r.cpu, DumpCpu::kArm64);
  for (int i = 0; i < 33; i++) EXPECT_EQ(r.regs.r[i], d.regs.r[i]);
  ASSERT_EQ(r.stacks.size(), 1u);
  EXPECT_EQ(r.stacks[0].base, 0x7000u);
  EXPECT_EQ(r.stacks[0].bytes, d.stacks[0].bytes);
  ASSERT_EQ(r.modules.size(), 1u);
  EXPECT_EQ(r.modules[0].base, 0x100000u);
  EXPECT_EQ(r.modules[0].size, 0x8713u);
  EXPECT_EQ(r.modules[0].name, "kernel.elf");
  EXPECT_EQ(r.modules[0].debug_id, d.modules[0].debug_id);
  EXPECT_TRUE(r.modules[0].base_is_load_address);
  EXPECT_EQ(r.crash_reason, "SIGILL");
  EXPECT_EQ(r.signal, 4u);
  EXPECT_EQ(r.crash_address, 0x1234u);
  EXPECT_EQ(r.os_version, "sfunwind crash record");
  // CRLF line ends (logcat) read the same.
  std::string crlf;
  for (char c : text) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  ASSERT_TRUE(read_microdump(crlf, "m.txt", r, error)) << error;
  EXPECT_EQ(r.stacks[0].bytes, d.stacks[0].bytes);
}

// The sample microdump with line `n` (1 = BEGIN) replaced by `line`, or dropped when empty.
std::string microdump_error(size_t n, const std::string &line) {
  std::string text = write_microdump(sample(DumpCpu::kArm64)), out;
  size_t k = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    std::string l = text.substr(at, end - at);
    at = end + 1;
    if (++k == n) l = line;
    if (!l.empty()) out += l + "\n";
  }
  CrashDump r;
  std::string error;
  EXPECT_FALSE(read_microdump(out, "m.txt", r, error)) << line;
  return error;
}

TEST(BreakpadMicrodump, Refusals) {
  const std::string p = "google-breakpad: ";
  EXPECT_EQ(microdump_error(3, p + "O L x86 01 i686 v"), "m.txt:3: a microdump of CPU 'x86': only arm64 ones are read here");
  EXPECT_EQ(microdump_error(3, p + "O Q arm64 01 aarch64 v"), "m.txt:3: O names OS 'Q': Linux (L) or Android (A) expected");
  EXPECT_EQ(microdump_error(3, p + "O L arm64"), "m.txt:3: O needs an OS, a CPU, a CPU count and a hardware name");
  EXPECT_EQ(microdump_error(3, ""), "m.txt:8: C before any O line names the CPU");
  EXPECT_EQ(microdump_error(5, p + "R 0000000B"), "m.txt:5: R needs a signal number, its name and an address");
  EXPECT_EQ(microdump_error(8, p + "S 0000000000007000 1G"), "m.txt:8: S needs an address and hex bytes");
  EXPECT_EQ(microdump_error(8, p + "S 0000000000007000 ABC"), "m.txt:8: S needs an address and hex bytes");
  EXPECT_EQ(microdump_error(9, p + "C 0011"), "m.txt:9: an arm64 context of 2 bytes (912 expected)");
  EXPECT_EQ(microdump_error(9, p + "C 0g"), "m.txt:9: C needs the context as hex bytes");
  EXPECT_EQ(microdump_error(10, p + "M 0000000000100000 0 8713 ID"),
            "m.txt:10: M needs a base, an offset, a size, a module id and a name");
  EXPECT_EQ(microdump_error(10, p + "M 0000000000100000 0 z ID n"),
            "m.txt:10: M needs a base, an offset, a size, a module id and a name");
  EXPECT_EQ(microdump_error(11, ""), "m.txt: the microdump has no end marker (-----END BREAKPAD MICRODUMP-----): cut short?");
  EXPECT_EQ(microdump_error(9, ""), "m.txt: the microdump has no C (CPU context) line");
  EXPECT_EQ(microdump_error(1, "-----BEGIN BREAKPAD MICRODUMP-----"),
            "m.txt: no microdump (no line with google-breakpad and -----BEGIN BREAKPAD MICRODUMP-----)");
  // Stack lines that leave a gap.
  std::string text = write_microdump(sample(DumpCpu::kArm64));
  text.insert(text.find(p + "C "), p + "S 0000000000009000 00\n");
  CrashDump r;
  std::string error;
  EXPECT_FALSE(read_microdump(text, "m.txt", r, error));
  EXPECT_EQ(error, "m.txt:9: stack bytes at 0x9000 do not follow those before (0x7010)");
}

TEST(BreakpadMicrodump, OverlappingModulesKeepTheFirst) {
  CrashDump d = sample(DumpCpu::kArm64);
  DumpModule second = d.modules[0];
  second.base += 0x1000;
  second.name = "second";
  d.modules.push_back(second);
  DumpModule third = d.modules[0];
  third.base = 0x200000;
  third.name = "third";
  d.modules.push_back(third);
  CrashDump r;
  std::string error;
  ASSERT_TRUE(read_microdump(write_microdump(d), "m.txt", r, error)) << error;
  ASSERT_EQ(r.modules.size(), 2u);
  EXPECT_EQ(r.modules[0].name, "kernel.elf");
  EXPECT_EQ(r.modules[1].name, "third");
}

TEST(BreakpadDump, LinuxSignals) {
  uint32_t s = 0, c = 0;
  linux_signal(DumpCpu::kAmd64, SFU_CRASH_EXCEPTION, 6, s, c);  // #UD
  EXPECT_EQ(std::make_pair(s, c), std::make_pair(uint32_t(4u), uint32_t(2u)));
  linux_signal(DumpCpu::kAmd64, SFU_CRASH_EXCEPTION, 14, s, c);  // #PF
  EXPECT_EQ(std::make_pair(s, c), std::make_pair(uint32_t(11u), uint32_t(1u)));
  linux_signal(DumpCpu::kAmd64, SFU_CRASH_EXCEPTION, 13, s, c);  // #GP
  EXPECT_EQ(std::make_pair(s, c), std::make_pair(uint32_t(11u), uint32_t(0x80u)));
  linux_signal(DumpCpu::kAmd64, SFU_CRASH_EXCEPTION, 3, s, c);  // #BP
  EXPECT_EQ(std::make_pair(s, c), std::make_pair(uint32_t(5u), uint32_t(1u)));
  linux_signal(DumpCpu::kArm64, SFU_CRASH_EXCEPTION, 0x96000040, s, c);  // data abort, translation
  EXPECT_EQ(std::make_pair(s, c), std::make_pair(uint32_t(11u), uint32_t(1u)));
  linux_signal(DumpCpu::kArm64, SFU_CRASH_EXCEPTION, 0x9600004f, s, c);  // data abort, permission
  EXPECT_EQ(std::make_pair(s, c), std::make_pair(uint32_t(11u), uint32_t(2u)));
  linux_signal(DumpCpu::kArm64, SFU_CRASH_EXCEPTION, 0xf2000000, s, c);  // BRK
  EXPECT_EQ(std::make_pair(s, c), std::make_pair(uint32_t(5u), uint32_t(1u)));
  linux_signal(DumpCpu::kArm64, SFU_CRASH_EXCEPTION, 0x02000000, s, c);  // unknown: undefined instruction
  EXPECT_EQ(std::make_pair(s, c), std::make_pair(uint32_t(4u), uint32_t(1u)));
  linux_signal(DumpCpu::kArm64, SFU_CRASH_EXCEPTION, 0x96000021, s, c);  // data abort, alignment fault
  EXPECT_EQ(std::make_pair(s, c), std::make_pair(uint32_t(7u), uint32_t(1u)));
  // detail is the whole ESR (crash.h): a data abort's class alone is an ESR of class 0.
  linux_signal(DumpCpu::kArm64, SFU_CRASH_EXCEPTION, 0x25, s, c);
  EXPECT_EQ(std::make_pair(s, c), std::make_pair(uint32_t(4u), uint32_t(1u)));
  for (uint32_t reason : {0u, 1u, 3u, 4u, 0x100u}) {
    linux_signal(DumpCpu::kAmd64, reason, 6, s, c);
    EXPECT_EQ(s, 6u) << reason;  // SIGABRT
  }
  EXPECT_STREQ(linux_signal_name(11), "SIGSEGV");
  EXPECT_STREQ(linux_signal_name(99), "");
}

// A record captured on the fake machines of the crash tests, for every ABI.
struct Captured {
  sfu::test::Area area{8192};
  sfu_crash_view view{};
  explicit Captured(uint8_t abi, uint32_t detail = 14, uint64_t fault = 0xdead0) {
    sfu::test::CrashMachine m = sfu::test::crash_machine(abi);
    sfu_walk_config config = m.config();
    sfu_crash_info info{SFU_CRASH_EXCEPTION, detail, fault, "fault"};
    EXPECT_EQ(sfu_crash_capture(area.data(), area.size(), &info, &m.start, &config), SFU_OK);
    EXPECT_EQ(sfu_crash_open(&view, area.data(), area.size()), SFU_OK);
  }
};

TEST(BreakpadDump, FromRecords) {
  Captured x86(SFU_ABI_AMD64_LE);
  CrashDump d;
  std::string error;
  ImageIdentity image{"kernel.elf", 0};
  std::vector<const ImageIdentity *> images(x86.view.num_modules, nullptr);
  ASSERT_GE(images.size(), 1u);
  images[0] = &image;
  ASSERT_TRUE(dump_from_record(x86.view, images, d, error)) << error;
  EXPECT_EQ(d.cpu, DumpCpu::kAmd64);
  sfu_regs regs;
  sfu_crash_get_regs(&x86.view, &regs);
  EXPECT_EQ(d.regs.r[kAmd64Rip], regs.pc);
  EXPECT_EQ(d.regs.r[kAmd64Rsp], regs.r[7]);
  EXPECT_EQ(d.signal, 11u);
  EXPECT_EQ(d.crash_reason, "SIGSEGV");
  EXPECT_EQ(d.crash_address, 0xdead0u);
  EXPECT_EQ(d.message, "fault");
  EXPECT_EQ(d.stacks.size(), x86.view.num_windows);
  sfu_crash_module m;
  ASSERT_TRUE(sfu_crash_get_module(&x86.view, 0, &m));
  EXPECT_EQ(d.modules[0].name, "kernel.elf");
  EXPECT_EQ(d.modules[0].base, 0u);
  EXPECT_TRUE(d.modules[0].base_is_load_address);
  EXPECT_EQ(d.modules[0].size, m.text_end);
  // Without an image: the record's name and the text start.
  ASSERT_TRUE(dump_from_record(x86.view, {}, d, error)) << error;
  EXPECT_EQ(d.modules[0].base, m.text_start);
  EXPECT_FALSE(d.modules[0].base_is_load_address);

  Captured arm(SFU_ABI_AARCH64_LE);
  ASSERT_TRUE(dump_from_record(arm.view, {}, d, error)) << error;
  EXPECT_EQ(d.cpu, DumpCpu::kArm64);
  Captured s390x(SFU_ABI_S390X_BE);
  EXPECT_FALSE(dump_from_record(s390x.view, {}, d, error));
  EXPECT_EQ(error, "an s390x record: Breakpad defines no minidump CPU type (no register context, no stack walker) "
                   "for s390x");
  Captured arm_be(SFU_ABI_AARCH64_BE);
  EXPECT_FALSE(dump_from_record(arm_be.view, {}, d, error));
  EXPECT_EQ(error, "a big-endian arm64 record: Breakpad's arm64 dumps are little-endian only");
}

// A SIGILL without a fault address is at the PC, as Linux's si_addr is; a SIGSEGV at 0 stays at 0.
TEST(BreakpadDump, CrashAddress) {
  CrashDump d;
  std::string error;
  sfu_regs regs;
  Captured ud(SFU_ABI_AMD64_LE, 6, 0);  // #UD
  ASSERT_TRUE(dump_from_record(ud.view, {}, d, error)) << error;
  sfu_crash_get_regs(&ud.view, &regs);
  ASSERT_NE(regs.pc, 0u);
  EXPECT_EQ(d.crash_reason, "SIGILL");
  EXPECT_EQ(d.crash_address, regs.pc);
  Captured ud_at(SFU_ABI_AMD64_LE, 6, 0x4321);  // a record that gives one keeps it
  ASSERT_TRUE(dump_from_record(ud_at.view, {}, d, error)) << error;
  EXPECT_EQ(d.crash_address, 0x4321u);
  Captured unknown(SFU_ABI_AARCH64_LE, 0, 0);  // ESR class 0: an unknown instruction
  ASSERT_TRUE(dump_from_record(unknown.view, {}, d, error)) << error;
  sfu_crash_get_regs(&unknown.view, &regs);
  EXPECT_EQ(d.crash_reason, "SIGILL");
  EXPECT_EQ(d.crash_address, regs.pc);
  Captured null(SFU_ABI_AMD64_LE, 14, 0);  // #PF at 0
  ASSERT_TRUE(dump_from_record(null.view, {}, d, error)) << error;
  EXPECT_EQ(d.crash_reason, "SIGSEGV");
  EXPECT_EQ(d.crash_address, 0u);
}

}  // namespace
