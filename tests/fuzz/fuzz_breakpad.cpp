// The Breakpad half of the fuzzer (fuzz_sframe.cpp hands over inputs whose first byte has bit 4
// set and bits 5-7 clear): arbitrary text as a .sym file for the symbol-file reader, as a
// microdump for the microdump reader, or bytes as a crash record for dump_from_record, what
// `sfu minidump` writes from (tools/breakpad/). A refusal must name the input and a line;
// an accepted symbol file must answer lookups and STACK CFI rules at the addresses it describes
// and drive a whole stack walk (its rules evaluated on a stack made of the input's bytes) to a
// bounded end; an accepted microdump must walk, and write back to the same registers, stack and
// modules; a record the crash reader opens must become a dump of its registers, stack windows and
// modules, walk, and be written as a minidump (arm64: a microdump, read back the same). Any
// breach aborts.
//
// Input: one mode byte, then the text (copied into an allocation of exactly its size).
//   mode bit 0   0: a .sym file, 1: a microdump
//   mode bit 1   .sym files: walk an arm64 dump (else x86_64)
//   mode bit 2   a crash record (bit 0 ignored)
// tests/fuzz/run.sh seeds both from tests/fuzz/breakpad-seeds/.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memory>
#include <string>
#include <vector>

#include "sfu/crash.h"
#include "tools/breakpad/dump.h"
#include "tools/breakpad/microdump.h"
#include "tools/breakpad/minidump.h"
#include "tools/breakpad/stackwalk.h"
#include "tools/breakpad/sym_file.h"

namespace {

using namespace sfu::tools::breakpad;

constexpr size_t kMaxProbes = 64;

[[noreturn]] void die(const char *what, const std::string &detail) {
  fprintf(stderr, "fuzz_breakpad: %s: %s\n", what, detail.c_str());
  abort();
}

// "NAME:LINE: ..." with a line number from 1 to the number of lines, or "NAME: ...".
void check_refusal(const std::string &error, const std::string &name, const std::string &text) {
  if (error.compare(0, name.size() + 1, name + ":") != 0) die("refusal does not name the input", error);
  size_t at = name.size() + 1;
  if (at < error.size() && error[at] == ' ') return;
  size_t end = error.find(": ", at);
  if (end == std::string::npos || end == at) die("refusal names no line", error);
  unsigned long line = strtoul(error.substr(at, end - at).c_str(), nullptr, 10);
  size_t lines = 1;
  for (char c : text) lines += c == '\n';
  if (line < 1 || line > lines) die("refusal names a line the input does not have", error);
}

// A dump of the input's bytes as a stack at 0x7000, one module covering the low 4 GiB.
CrashDump stack_of(const uint8_t *data, size_t size, DumpCpu cpu, uint64_t pc) {
  CrashDump d;
  d.cpu = cpu;
  DumpMemory m{0x7000, {}};
  for (size_t i = 0; i < 512; i++) m.bytes.push_back(size ? data[i % size] : 0);
  d.stacks.push_back(m);
  d.modules.push_back(DumpModule{0, uint64_t(1) << 32, "k", {}, "ID", 0, uint64_t(1) << 32, true});
  for (int i = 0; i < dump_reg_count(cpu); i++) d.regs.r[i] = 0x7000 + 8 * uint64_t(i);
  d.regs.r[dump_pc(cpu)] = pc;
  d.regs.valid = (uint64_t(1) << dump_reg_count(cpu)) - 1;
  return d;
}

void check_walk(const CrashDump &d, const ModuleSymbols *symbols) {
  WalkResult w;
  stackwalk(d, {symbols}, w);
  if (w.frames.empty() || w.frames.size() > kMaxWalkFrames) die("walk frame count", std::to_string(w.frames.size()));
  if (w.stop.empty()) die("walk ended without a reason", "");
  std::string m = machine_frames(d, w);
  size_t lines = 0;
  for (char c : m) lines += c == '\n';
  if (lines != w.frames.size()) die("-m lines are not one per frame", m);
  readable_frames(d, w);
}

void fuzz_sym(const uint8_t *data, size_t size, DumpCpu cpu) {
  std::string text(reinterpret_cast<const char *>(data), size);
  SymbolFile f;
  std::string error;
  if (!f.load(text, "f.sym", error)) {
    check_refusal(error, "f.sym", text);
    return;
  }
  std::vector<uint64_t> probes = {0, 1, f.lowest_address(), f.lowest_address() + 1, f.lowest_address() + 0x10};
  for (size_t i = 0; i + 8 <= size && probes.size() < kMaxProbes; i += 8) {
    uint64_t v = 0;
    memcpy(&v, data + i, 8);
    probes.push_back(v & 0xffffffff);
  }
  struct Memory8 : Memory {
    bool read64(uint64_t a, uint64_t &v) const override { return v = a * 3, a % 8 == 0; }
  } memory;
  for (uint64_t a : probes) {
    SymbolAt at = f.lookup(a);
    if (at.has_function && at.function_base > a) die("function starts after the address", std::to_string(a));
    if (!at.has_function && (!at.inlines.empty() || at.has_line)) die("a line or inline without a function", "");
    CfiRules rules;
    if (f.cfi_rules(a, rules)) {
      Values callee = {{"$rsp", 0x7000}, {"sp", 0x7000}, {"$rip", a}, {"pc", a}}, caller;
      if (cfi_caller_registers(rules, callee, memory, caller) && (!caller.count(".cfa") || !caller.count(".ra")))
        die("caller registers without .cfa and .ra", "");
    }
  }
  SymFileSymbols symbols(std::move(f));
  check_walk(stack_of(data, size, cpu, probes[2]), &symbols);
}

bool plain(const std::string &s) {
  return s.find(':') == std::string::npos && s.find("MICRODUMP") == std::string::npos &&
         s.find("google-breakpad") == std::string::npos;
}

void fuzz_microdump(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  CrashDump d;
  std::string error;
  if (!read_microdump(text, "m.txt", d, error)) {
    check_refusal(error, "m.txt", text);
    return;
  }
  if (d.cpu != DumpCpu::kArm64 || d.stacks.size() > 1) die("microdump dump shape", "");
  check_walk(d, nullptr);
  write_minidump(d);
  // Written back and read again: the same registers, stack and modules (when no string in it
  // holds what a reader takes for a marker).
  bool comparable = plain(d.os_version) && !d.os_version.empty() && plain(d.crash_reason) && !d.crash_reason.empty();
  for (const DumpModule &m : d.modules) comparable = comparable && plain(m.name) && plain(m.debug_id);
  if (!comparable) return;
  CrashDump again;
  if (!read_microdump(write_microdump(d), "again", again, error)) die("written microdump refused", error);
  for (int i = 0; i < kDumpRegs; i++)
    if (again.regs.r[i] != d.regs.r[i]) die("register changed", std::to_string(i));
  if (again.stacks.size() != d.stacks.size() || (!d.stacks.empty() && (again.stacks[0].base != d.stacks[0].base ||
                                                                        again.stacks[0].bytes != d.stacks[0].bytes)))
    die("stack changed", "");
  if (again.modules.size() != d.modules.size()) die("modules changed", "");
  for (size_t i = 0; i < d.modules.size(); i++)
    if (again.modules[i].base != d.modules[i].base || again.modules[i].size != d.modules[i].size ||
        again.modules[i].name != d.modules[i].name || again.modules[i].debug_id != d.modules[i].debug_id)
      die("module changed", d.modules[i].name);
  if (again.crash_reason != d.crash_reason || again.crash_address != d.crash_address || again.os_version != d.os_version)
    die("reason or OS changed", d.crash_reason);
}

void fuzz_record(const uint8_t *data, size_t size) {
  sfu_crash_view view;
  if (sfu_crash_open(&view, data, size) != SFU_OK) return;
  CrashDump d;
  std::string error;
  if (!dump_from_record(view, {}, d, error)) {
    if (error.empty()) die("record refused without a reason", "");
    return;
  }
  if (d.stacks.size() != view.num_windows || d.modules.size() != view.num_modules) die("record dump shape", "");
  sfu_regs regs;
  sfu_crash_get_regs(&view, &regs);
  if (d.regs.r[dump_pc(d.cpu)] != regs.pc) die("record PC changed", "");
  if (d.crash_reason.empty()) die("record dump without a crash reason", "");
  check_walk(d, nullptr);
  write_minidump(d);
  if (d.cpu != DumpCpu::kArm64) return;
  for (const DumpModule &m : d.modules)  // the record's names: a marker in one is read as such
    if (!plain(m.name) || m.name.find_first_of("\r\n") != std::string::npos) return;
  CrashDump again;
  if (!read_microdump(write_microdump(d), "again", again, error)) die("microdump of a record refused", error);
  for (int i = 0; i < kDumpRegs; i++)
    if (again.regs.r[i] != d.regs.r[i]) die("record register changed in the microdump", std::to_string(i));
  if (again.crash_address != d.crash_address) die("record crash address changed in the microdump", "");
}

}  // namespace

void fuzz_breakpad(const uint8_t *data, size_t size) {
  if (size == 0) return;
  uint8_t mode = data[0];
  std::unique_ptr<uint8_t[]> text(new uint8_t[size - 1]);
  if (size > 1) memcpy(text.get(), data + 1, size - 1);
  if (mode & 4)
    fuzz_record(text.get(), size - 1);
  else if (mode & 1)
    fuzz_microdump(text.get(), size - 1);
  else
    fuzz_sym(text.get(), size - 1, (mode & 2) ? DumpCpu::kArm64 : DumpCpu::kAmd64);
}
