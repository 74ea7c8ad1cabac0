// Walking a dump's crashed thread as Breakpad's stackwalkers do (src/processor/stackwalker.cc,
// stackwalker_amd64.cc, stackwalker_arm64.cc), with symbols from .sym files (sym_file.h) or from
// ELF images (image_symbols.h), and printing the result as Breakpad's machine-readable frame
// lines or as a readable trace.
//
// Each step, as Breakpad takes it:
//   - the frame's module is the one holding its instruction (a caller's return address less 1 on
//     x86_64, less 4 on arm64), and its function, source line and inlined calls come from that
//     module's symbols (inlined frames are listed before the frame they are inlined into);
//   - the caller comes from the STACK CFI rules at that instruction, if they give .cfa and .ra
//     (x86_64: rip, rsp and nonzero; every callee-saved register the rules do not mention keeps
//     its value: rbx, rbp, r12-r15; arm64: x19-x29, and pc from .ra, sp from .cfa, pc stripped of
//     pointer-authentication bits by the mask of the highest module's end);
//   - else from the frame pointer (x86_64: rbp aligned, [rbp+8] canonical, the caller's rbp at or
//     above rbp+16 and readable; arm64: [x29] and [x29+8], the link register for the pc, after
//     Breakpad's correction of a link register CFI did not recover);
//   - else by scanning the stack from SP for a word that is a return address into a function
//     (160 words from the first frame, 40 after; any address in a module without symbols counts);
//   - the walk ends when the caller's pc is below 4096 or its SP does not grow (it may stay equal
//     on the first step), when nothing gives a caller, or at a frame whose image says the walk
//     ends (an outermost SFrame row: image symbols only; Breakpad has no such rule).
// Memory is the dump's first stack only, as Breakpad reads the thread's stack memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tools/breakpad/cfi_rules.h"
#include "tools/breakpad/dump.h"
#include "tools/breakpad/sym_file.h"

namespace sfu::tools::breakpad {

// What a stack walk asks of one module's symbols, with addresses relative to its base.
class ModuleSymbols {
 public:
  enum class Cfi { kNone, kRules, kOutermost };
  virtual ~ModuleSymbols() = default;
  virtual SymbolAt lookup(uint64_t address) const = 0;
  virtual Cfi cfi_rules(uint64_t address, CfiRules &out) const = 0;
};

// A .sym file's answers.
class SymFileSymbols : public ModuleSymbols {
 public:
  explicit SymFileSymbols(SymbolFile file) : file_(std::move(file)) {}
  SymbolAt lookup(uint64_t address) const override { return file_.lookup(address); }
  Cfi cfi_rules(uint64_t address, CfiRules &out) const override {
    return file_.cfi_rules(address, out) ? Cfi::kRules : Cfi::kNone;
  }
  const SymbolFile &file() const { return file_; }

 private:
  SymbolFile file_;
};

// The name STACK CFI rules give register `index` (dump.h's numbering): "$rsp", "x29", "sp", "pc".
const char *breakpad_register_name(DumpCpu cpu, int index);

enum class Trust { kContext, kCfi, kFramePointer, kScan, kInline };
const char *trust_name(Trust t);  // "context", "cfi", "fp", "scan", "inline"

struct WalkedFrame {
  Trust trust = Trust::kContext;
  uint64_t instruction = 0;     // the address looked up
  uint64_t return_address = 0;  // what offsets count from: x86_64 rip, else the instruction
  DumpRegisters regs;           // physical frames only
  int module = -1;              // index into the dump's modules, -1 for none
  SymbolAt symbol;              // absolute addresses in function_base and line_base
  bool inlined = false;
};

struct WalkResult {
  std::vector<WalkedFrame> frames;  // innermost first, inlined frames before their own
  std::string stop;                 // why the walk ended, in a few words
};

// The walk. symbols[i] answers for dump.modules[i] (nullptr: no symbols for it).
inline constexpr size_t kMaxWalkFrames = 1024;
void stackwalk(const CrashDump &dump, const std::vector<const ModuleSymbols *> &symbols, WalkResult &out);

// The frame lines of Breakpad's `-m` output, thread 0: "0|N|MODULE|FUNCTION|FILE|LINE|0xOFFSET".
std::string machine_frames(const CrashDump &dump, const WalkResult &walk);

// One readable line per frame, then the stop line.
std::string readable_frames(const CrashDump &dump, const WalkResult &walk);

// The symbol file Breakpad's SimpleSymbolSupplier looks for under `root` for a module:
// ROOT/NAME/ID/NAME.sym (NAME less ".pdb" for the file), "" when the module has no id.
std::string symbol_file_path(const std::string &root, const DumpModule &module);

}  // namespace sfu::tools::breakpad
