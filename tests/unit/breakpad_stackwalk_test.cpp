// Breakpad's stack walk (tools/breakpad/stackwalk.h) on made-up stacks: STACK CFI with callee-saved
// registers carried, the frame-pointer and stack-scan fallbacks of each CPU, arm64's link register
// and pointer-authentication stripping, inlined frames, every way a walk ends, and the frame lines
// of `-m` for frames with and without module, symbols, function or line.
#include <gtest/gtest.h>

#include "tools/breakpad/image_symbols.h"
#include "tools/breakpad/stackwalk.h"

using namespace sfu::tools::breakpad;

namespace {

constexpr uint64_t kBase = 0x100000, kStack = 0x7000;

// A dump of one module at kBase with a stack of `words` at kStack.
CrashDump dump(DumpCpu cpu, const std::vector<uint64_t> &words) {
  CrashDump d;
  d.cpu = cpu;
  DumpMemory m{kStack, {}};
  for (uint64_t w : words)
    for (int i = 0; i < 8; i++) m.bytes.push_back(uint8_t(w >> (8 * i)));
  d.stacks.push_back(m);
  DumpModule mod;
  mod.base = kBase;
  mod.size = 0x1000;
  mod.name = "/path/to/k.elf";
  mod.debug_id = "ID";
  d.modules.push_back(mod);
  return d;
}

SymFileSymbols symbols(const std::string &text) {
  SymbolFile f;
  std::string error;
  EXPECT_TRUE(f.load(text, "k.sym", error)) << error;
  return SymFileSymbols(std::move(f));
}

const char kX86Sym[] =
    "MODULE Linux x86_64 ID k.elf\n"
    "FILE 0 k.c\n"
    "FUNC 100 20 0 leaf\n100 20 1 0\n"
    "FUNC 200 20 0 mid\n200 10 2 0\n210 10 3 0\n"
    "FUNC 300 20 0 outer\n300 20 4 0\n"
    "STACK CFI INIT 100 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n"
    "STACK CFI INIT 200 20 .cfa: $rsp 16 + .ra: .cfa -8 + ^ $rbp: .cfa -16 + ^\n"
    "STACK CFI INIT 300 20 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n";

std::string walk_m(const CrashDump &d, const ModuleSymbols *s, WalkResult *out = nullptr) {
  WalkResult w;
  stackwalk(d, {s}, w);
  if (out) *out = w;
  return machine_frames(d, w);
}

TEST(BreakpadStackwalk, Amd64Cfi) {
  // leaf's frame: the return into mid; mid's: saved rbp, the return into outer; outer's: 0.
  CrashDump d = dump(DumpCpu::kAmd64, {kBase + 0x210, 0x7fa0, kBase + 0x310, 0});
  d.regs.r[kAmd64Rip] = kBase + 0x105;
  d.regs.r[kAmd64Rsp] = kStack;
  d.regs.r[kAmd64Rbp] = 0x5555;
  d.regs.r[3] = 33;  // rbx: callee-saved, carried to every caller
  d.regs.r[0] = 11;  // rax: not
  SymFileSymbols s = symbols(kX86Sym);
  WalkResult w;
  EXPECT_EQ(walk_m(d, &s, &w),
            "0|0|k.elf|leaf|k.c|1|0x5\n"
            "0|1|k.elf|mid|k.c|2|0x10\n"  // the line of the call (0x20f), the offset from its start
            "0|2|k.elf|outer|k.c|4|0x10\n");
  ASSERT_EQ(w.frames.size(), 3u);
  EXPECT_EQ(w.frames[1].trust, Trust::kCfi);
  EXPECT_EQ(w.frames[1].regs.r[kAmd64Rsp], kStack + 8);
  EXPECT_EQ(w.frames[1].instruction, kBase + 0x20f);  // return address less 1: the call
  EXPECT_EQ(w.frames[1].regs.r[3], 33u);
  EXPECT_FALSE(w.frames[1].regs.valid >> 0 & 1);
  EXPECT_EQ(w.frames[2].regs.r[kAmd64Rbp], 0x7fa0u);  // restored by mid's rule
  // outer's return address is 0: no CFI caller; rbp 0x7fa0 is outside the stack; nothing to scan.
  EXPECT_EQ(w.stop, "no caller: no CFI, frame pointer or return address on the stack gives one");
  // A broken rule: mid's return address read from where its rbp is saved.
  std::string broken = kX86Sym;
  broken.replace(broken.find(".ra: .cfa -8 + ^ $rbp"), 16, ".ra: .cfa -16 + ^");
  SymFileSymbols t = symbols(broken);
  EXPECT_EQ(walk_m(d, &t), "0|0|k.elf|leaf|k.c|1|0x5\n0|1|k.elf|mid|k.c|2|0x10\n0|2|||||0x7fa0\n");
}

TEST(BreakpadStackwalk, Amd64FramePointer) {
  // No CFI at all: rbp chains. leaf at 0x7000 has rbp = 0x7010: [0x7010] = 0x7030, [0x7018] = ret.
  CrashDump d = dump(DumpCpu::kAmd64,
                     {0, 0, 0x7030, kBase + 0x210, 0, 0, 0x7050, kBase + 0x310, 0, 0, 0x7060, 0, 0, 0});
  d.regs.r[kAmd64Rip] = kBase + 0x105;
  d.regs.r[kAmd64Rsp] = kStack;
  d.regs.r[kAmd64Rbp] = 0x7010;
  SymFileSymbols s = symbols("FUNC 100 20 0 leaf\nFUNC 200 20 0 mid\nFUNC 300 20 0 outer\n");
  WalkResult w;
  EXPECT_EQ(walk_m(d, &s, &w), "0|0|k.elf|leaf|||0x5\n0|1|k.elf|mid|||0x10\n0|2|k.elf|outer|||0x10\n");
  ASSERT_EQ(w.frames.size(), 3u);
  EXPECT_EQ(w.frames[1].trust, Trust::kFramePointer);
  EXPECT_EQ(w.frames[1].regs.r[kAmd64Rsp], 0x7020u);
  EXPECT_EQ(w.frames[2].trust, Trust::kFramePointer);
  // outer's rbp 0x7050 holds 0x7060 and a return address of 0: below 4096.
  EXPECT_EQ(w.stop, "end of stack: the caller's pc 0x0 is below 4096");
}

TEST(BreakpadStackwalk, Amd64ScanAndModules) {
  // No symbols for the module: any word pointing into it is a return address. One word points
  // into no module, and frames outside any module print bare addresses.
  CrashDump d = dump(DumpCpu::kAmd64, {0x999999, 5, kBase + 0x210, 7, kBase + 0x2000});
  d.regs.r[kAmd64Rip] = 0x500000;  // in no module
  d.regs.r[kAmd64Rsp] = kStack;
  d.regs.r[kAmd64Rbp] = 1;  // not aligned: no frame pointer
  WalkResult w;
  EXPECT_EQ(walk_m(d, nullptr, &w), "0|0|||||0x500000\n0|1|k.elf||||0x210\n");
  ASSERT_EQ(w.frames.size(), 2u);
  EXPECT_EQ(w.frames[1].trust, Trust::kScan);
  EXPECT_EQ(w.frames[1].regs.r[kAmd64Rsp], kStack + 24);
  // With symbols, only a word inside a function counts: 0x210 is in no FUNC, and nothing else is.
  SymFileSymbols s = symbols("FUNC 100 20 0 leaf\n");
  EXPECT_EQ(walk_m(d, &s), "0|0|||||0x500000\n");
}

TEST(BreakpadStackwalk, Arm64CfiAndPointerAuthentication) {
  const char sym[] =
      "FILE 0 a.c\n"
      "FUNC 100 20 0 leaf\n100 20 1 0\n"
      "FUNC 200 20 0 mid\n200 20 2 0\n"
      "FUNC 300 20 0 outer\n300 20 3 0\n"
      "STACK CFI INIT 100 20 .cfa: sp 0 + .ra: x30\n"
      "STACK CFI INIT 200 20 .cfa: sp 16 + .ra: .cfa -8 + ^ x29: .cfa -16 + ^\n";
  // mid's frame record at 0x7000: fp 0x7fff0, lr signed (pointer-authentication bits on top).
  CrashDump d = dump(DumpCpu::kArm64, {0x7fff0, (uint64_t(0x2a) << 48) | (kBase + 0x304), 0, 0});
  d.regs.r[kArm64Pc] = kBase + 0x108;
  d.regs.r[kArm64Sp] = kStack;
  d.regs.r[kArm64Lr] = (uint64_t(0x13) << 52) | (kBase + 0x204);
  d.regs.r[kArm64Fp] = 0x7000;
  d.regs.r[20] = 20;  // callee-saved: carried
  SymFileSymbols s = symbols(sym);
  WalkResult w;
  // arm64 offsets count from the instruction looked up (the return address less 4).
  EXPECT_EQ(walk_m(d, &s, &w), "0|0|k.elf|leaf|a.c|1|0x8\n0|1|k.elf|mid|a.c|2|0x0\n0|2|k.elf|outer|a.c|3|0x0\n");
  EXPECT_EQ(w.frames[1].regs.r[kArm64Pc], kBase + 0x204);  // stripped
  EXPECT_EQ(w.frames[1].regs.r[kArm64Sp], kStack);       // the first step may keep SP
  EXPECT_EQ(w.frames[1].regs.r[20], 20u);
  EXPECT_EQ(w.frames[2].regs.r[kArm64Pc], kBase + 0x304);  // stripped
  EXPECT_EQ(w.frames[2].regs.r[kArm64Fp], 0x7fff0u);
  // CFI gave outer no link register: Breakpad takes it from mid's frame record (at mid's x29,
  // which holds outer's x29), stripped.
  EXPECT_EQ(w.frames[2].regs.r[kArm64Lr], kBase + 0x304);
  // outer has no CFI: the frame pointer 0x7fff0 is outside the stack; scanning finds nothing.
  EXPECT_EQ(w.stop, "no caller: no CFI, frame pointer or return address on the stack gives one");
}

TEST(BreakpadStackwalk, Arm64FramePointer) {
  // No CFI: leaf (no frame record of its own) -> mid by the link register, with mid's link
  // register from mid's frame record at x29; then outer; then a return address of 0.
  CrashDump d = dump(DumpCpu::kArm64, {0x7010, kBase + 0x304, 0x7020, 0, 0, 0});
  d.regs.r[kArm64Pc] = kBase + 0x108;
  d.regs.r[kArm64Sp] = kStack;
  d.regs.r[kArm64Lr] = kBase + 0x204;
  d.regs.r[kArm64Fp] = kStack;
  SymFileSymbols s = symbols("FUNC 100 20 0 leaf\nFUNC 200 20 0 mid\nFUNC 300 20 0 outer\n");
  WalkResult w;
  EXPECT_EQ(walk_m(d, &s, &w), "0|0|k.elf|leaf|||0x8\n0|1|k.elf|mid|||0x0\n0|2|k.elf|outer|||0x0\n");
  EXPECT_EQ(w.frames[1].trust, Trust::kFramePointer);
  EXPECT_EQ(w.frames[1].regs.r[kArm64Sp], 0x7010u);
  EXPECT_EQ(w.frames[2].regs.r[kArm64Sp], 0x7020u);
  EXPECT_EQ(w.stop, "end of stack: the caller's pc 0x0 is below 4096");
}

TEST(BreakpadStackwalk, InlinedFrames) {
  const char sym[] =
      "FILE 0 a.c\nINLINE_ORIGIN 0 helper\n"
      "FUNC 100 40 0 leaf\n100 10 1 0\n110 10 7 0\nINLINE 0 3 0 0 110 10\n"
      "STACK CFI INIT 100 40 .cfa: $rsp 8 + .ra: .cfa -8 + ^\n";
  CrashDump d = dump(DumpCpu::kAmd64, {kBase + 0x115, 0});
  d.regs.r[kAmd64Rip] = kBase + 0x113;
  d.regs.r[kAmd64Rsp] = kStack;
  SymFileSymbols s = symbols(sym);
  WalkResult w;
  // Each physical frame after its inlined one; the caller's instruction is 0x114, so its
  // inlined frame's offset (from the instruction) is 0x4 and the leaf frame's (from rip) 0x5.
  EXPECT_EQ(walk_m(d, &s, &w),
            "0|0|k.elf|helper|a.c|7|0x3\n0|1|k.elf|leaf|a.c|3|0x3\n"
            "0|2|k.elf|helper|a.c|7|0x4\n0|3|k.elf|leaf|a.c|3|0x5\n");
  EXPECT_EQ(w.frames[0].trust, Trust::kInline);
  EXPECT_EQ(w.frames[0].symbol.function_base, kBase + 0x110);
  // The caller's SP: 0x7008, then [0x7008] = 0 ends it.
  EXPECT_EQ(w.stop, "no caller: no CFI, frame pointer or return address on the stack gives one");
}

TEST(BreakpadStackwalk, EndsWhenSpDoesNotGrow) {
  // A rule that gives the same SP twice: allowed from the first frame, not after.
  CrashDump d = dump(DumpCpu::kAmd64, {0});
  d.regs.r[kAmd64Rip] = kBase + 0x100;
  d.regs.r[kAmd64Rsp] = kStack;
  SymFileSymbols s = symbols("FUNC 100 20 0 f\nSTACK CFI INIT 100 20 .cfa: $rsp .ra: 1048836\n");
  WalkResult w;
  EXPECT_EQ(walk_m(d, &s, &w), "0|0|k.elf|f|||0x0\n0|1|k.elf|f|||0x4\n");
  EXPECT_EQ(w.stop, "end of stack: the caller's sp 0x7000 does not grow");
}

TEST(BreakpadStackwalk, ReadableFrames) {
  CrashDump d = dump(DumpCpu::kAmd64, {kBase + 0x210, 0x7fa0, kBase + 0x310, 0});
  d.regs.r[kAmd64Rip] = kBase + 0x105;
  d.regs.r[kAmd64Rsp] = kStack;
  SymFileSymbols s = symbols(kX86Sym);
  WalkResult w;
  stackwalk(d, {&s}, w);
  EXPECT_EQ(readable_frames(d, w),
            " #0   0x0000000000100105  sp 0x0000000000007000  context  /path/to/k.elf  leaf+0x5  k.c:1\n"
            " #1   0x0000000000100210  sp 0x0000000000007008  cfi      /path/to/k.elf  mid+0x10  k.c:2\n"
            " #2   0x0000000000100310  sp 0x0000000000007018  cfi      /path/to/k.elf  outer+0x10  k.c:4\n"
            "stop: no caller: no CFI, frame pointer or return address on the stack gives one\n");
}

TEST(BreakpadStackwalk, SymbolFilePath) {
  DumpModule m;
  m.name = "/boot/kernel.elf";
  m.debug_id = "ABC0";
  EXPECT_EQ(symbol_file_path("syms", m), "syms/kernel.elf/ABC0/kernel.elf.sym");
  m.name = "driver.PDB";
  EXPECT_EQ(symbol_file_path("syms", m), "syms/driver.PDB/ABC0/driver.sym");
  m.debug_id.clear();
  EXPECT_EQ(symbol_file_path("syms", m), "");
}

TEST(BreakpadStackwalk, SframeRowsAsRules) {
  sfu_row row{};
  row.cfa = {SFU_RULE_REGISTER, 7, 16};
  row.ra = {SFU_RULE_AT_CFA, 0, -8};
  row.fp = {SFU_RULE_AT_CFA, 0, -16};
  CfiRules r;
  ASSERT_TRUE(sframe_row_rules(row, SFU_ABI_AMD64_LE, r));
  EXPECT_EQ(r.cfa, "$rsp 16 +");
  EXPECT_EQ(r.ra, ".cfa -8 + ^");
  EXPECT_EQ(r.registers.at("$rbp"), ".cfa -16 + ^");
  row.cfa = {SFU_RULE_REGISTER, 29, 32};
  row.ra = {SFU_RULE_UNCHANGED, 0, 0};  // arm64: still in the link register
  row.fp = {SFU_RULE_UNCHANGED, 0, 0};
  ASSERT_TRUE(sframe_row_rules(row, SFU_ABI_AARCH64_LE, r));
  EXPECT_EQ(r.cfa, "x29 32 +");
  EXPECT_EQ(r.ra, "x30");
  EXPECT_TRUE(r.registers.empty());
  row.cfa = {SFU_RULE_AT_REGISTER, 6, -8};
  row.ra = {SFU_RULE_AT_REGISTER, 7, 0};
  ASSERT_TRUE(sframe_row_rules(row, SFU_ABI_AMD64_LE, r));
  EXPECT_EQ(r.cfa, "$rbp -8 + ^");
  EXPECT_EQ(r.ra, "$rsp 0 + ^");
  row.ra = {SFU_RULE_UNCHANGED, 0, 0};
  EXPECT_FALSE(sframe_row_rules(row, SFU_ABI_AMD64_LE, r));  // x86_64's RA is never in a register
  EXPECT_FALSE(sframe_row_rules(row, SFU_ABI_S390X_BE, r));
}

}  // namespace
