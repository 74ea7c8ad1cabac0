// What a Breakpad dump holds, for the writers (minidump.h, microdump.h) and for `sfu stackwalk`:
// one crashed thread's registers and stack memory, the modules, and why it crashed. Built from a
// sfunwind crash record (its images give the modules' names and load addresses) or read from a
// microdump.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sfu/crash.h"

namespace sfu::tools::breakpad {

enum class DumpCpu : uint8_t { kAmd64, kArm64 };

// Registers by index: x86_64 the DWARF numbers 0-15 (rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp,
// r8-r15) and 16 for rip; arm64 x0-x30, 31 for sp, 32 for pc.
inline constexpr int kDumpRegs = 33;
inline constexpr int kAmd64Rip = 16, kAmd64Rsp = 7, kAmd64Rbp = 6;
inline constexpr int kArm64Fp = 29, kArm64Lr = 30, kArm64Sp = 31, kArm64Pc = 32;

struct DumpRegisters {
  uint64_t r[kDumpRegs] = {};
  uint64_t valid = 0;  // bit i: r[i] holds a value
};

// Number of register slots of a CPU (17 or 33), and its PC and SP indexes.
int dump_reg_count(DumpCpu cpu);
int dump_pc(DumpCpu cpu);
int dump_sp(DumpCpu cpu);

struct DumpModule {
  uint64_t base = 0, size = 0;    // the load address symbol files are relative to, and the extent
  std::string name;               // code and debug file: the image's base name
  std::vector<uint8_t> build_id;  // empty when the module has none
  std::string debug_id;           // Breakpad's module id ("" without a build-id)
  uint64_t text_start = 0;        // the record's text range (a microdump: base and base + size)
  uint64_t text_end = 0;
  bool base_is_load_address = false;  // base is known to be what symbol files are relative to
                                      // (an image's first PT_LOAD, a microdump's M line); else
                                      // it is the record's text start (see stackwalk.h)
};

struct DumpMemory {
  uint64_t base = 0;
  std::vector<uint8_t> bytes;
};

struct CrashDump {
  DumpCpu cpu = DumpCpu::kAmd64;
  DumpRegisters regs;
  std::vector<DumpMemory> stacks;   // innermost first; Breakpad walks the first one only
  std::vector<DumpModule> modules;  // in the record's order
  // Why, as Linux would say it (Breakpad's processors read Linux signals), and as the record said.
  uint32_t signal = 0, signal_code = 0;
  uint64_t crash_address = 0;
  std::string crash_reason;  // "SIGSEGV", as a microdump's R line names it
  uint32_t reason = 0, detail = 0;
  std::string message;
  std::string os_version;  // a microdump's O line after the hardware architecture
};

// A record's registers, stack windows, modules and reason as a dump. `images` are the images
// the caller matched to record modules (nullptr where none): a module with one takes its base
// name and the run-time address of its first PT_LOAD, one without keeps the record's name
// ("module<i>" if empty) and its text start. Refuses s390x (Breakpad has no minidump CPU type for
// it) and big-endian arm64.
struct ImageIdentity {
  std::string name;        // base name (or DT_SONAME)
  uint64_t load_address;   // where its first PT_LOAD ran: the link address plus the load bias
};
bool dump_from_record(const sfu_crash_view &view, const std::vector<const ImageIdentity *> &images, CrashDump &out,
                      std::string &error);

// The Linux signal and si_code for a record's reason (exceptions by the x86_64 vector or the whole
// arm64 ESR, class and fault status, in `detail`; panics, assertions, watchdogs and the kernel's own reasons
// SIGABRT), and a signal's name ("SIGILL"; "" for one it does not name).
void linux_signal(DumpCpu cpu, uint32_t reason, uint32_t detail, uint32_t &signal, uint32_t &code);
const char *linux_signal_name(uint32_t signal);

// "x86_64" / "arm64".
const char *dump_cpu_name(DumpCpu cpu);

}  // namespace sfu::tools::breakpad
