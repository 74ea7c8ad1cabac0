// Crash records as Breakpad dumps (dump.h).
#include "tools/breakpad/dump.h"

#include "sfu/sframe.h"
#include "tools/breakpad/module_id.h"

namespace sfu::tools::breakpad {
namespace {

// Linux's signal numbers and si_codes, as Breakpad's processors name them.
enum : uint32_t {
  kSigIll = 4, kSigTrap = 5, kSigAbrt = 6, kSigBus = 7, kSigFpe = 8, kSigSegv = 11,
  kIllIllopc = 1, kIllIllopn = 2, kFpeIntdiv = 1, kSegvMaperr = 1, kSegvAccerr = 2, kBusAdraln = 1,
  kTrapBrkpt = 1, kTrapTrace = 2, kTrapHwbkpt = 4, kSiKernel = 0x80,
};

void x86_exception(uint32_t vector, uint32_t &signal, uint32_t &code) {
  switch (vector) {
    case 0: signal = kSigFpe, code = kFpeIntdiv; return;              // #DE
    case 1: signal = kSigTrap, code = kTrapTrace; return;             // #DB
    case 3: signal = kSigTrap, code = kTrapBrkpt; return;             // #BP
    case 6: signal = kSigIll, code = kIllIllopn; return;              // #UD
    case 7: case 16: case 19: signal = kSigFpe, code = 0; return;     // #NM, #MF, #XM
    case 11: case 12: signal = kSigBus, code = kSiKernel; return;     // #NP, #SS
    case 14: signal = kSigSegv, code = kSegvMaperr; return;           // #PF
    case 17: signal = kSigBus, code = kBusAdraln; return;             // #AC
    case 18: signal = kSigBus, code = 0; return;                      // #MC
    default: signal = kSigSegv, code = kSiKernel; return;             // #GP, #DF, #TS, #OF, #BR, ...
  }
}

void arm64_exception(uint32_t esr, uint32_t &signal, uint32_t &code) {
  uint32_t ec = esr >> 26, fsc = esr & 0x3f;
  switch (ec) {
    case 0x00: case 0x0e: signal = kSigIll, code = kIllIllopc; return;  // unknown, illegal state
    case 0x20: case 0x21: case 0x24: case 0x25:                          // instruction, data abort
      if (fsc == 0x21) signal = kSigBus, code = kBusAdraln;              // alignment fault
      else signal = kSigSegv, code = (fsc & 0x3c) == 0x0c ? kSegvAccerr : kSegvMaperr;
      return;
    case 0x22: case 0x26: signal = kSigBus, code = kBusAdraln; return;   // PC, SP alignment
    case 0x28: case 0x2c: signal = kSigFpe, code = 0; return;            // floating point
    case 0x30: case 0x31: case 0x34: case 0x35: signal = kSigTrap, code = kTrapHwbkpt; return;
    case 0x32: case 0x33: signal = kSigTrap, code = kTrapTrace; return;  // single step
    case 0x38: case 0x3c: signal = kSigTrap, code = kTrapBrkpt; return;  // BKPT, BRK
    default: signal = kSigSegv, code = 0; return;
  }
}

}  // namespace

int dump_reg_count(DumpCpu cpu) { return cpu == DumpCpu::kAmd64 ? 17 : 33; }
int dump_pc(DumpCpu cpu) { return cpu == DumpCpu::kAmd64 ? kAmd64Rip : kArm64Pc; }
int dump_sp(DumpCpu cpu) { return cpu == DumpCpu::kAmd64 ? kAmd64Rsp : kArm64Sp; }
const char *dump_cpu_name(DumpCpu cpu) { return cpu == DumpCpu::kAmd64 ? "x86_64" : "arm64"; }

void linux_signal(DumpCpu cpu, uint32_t reason, uint32_t detail, uint32_t &signal, uint32_t &code) {
  if (reason != SFU_CRASH_EXCEPTION) {
    signal = kSigAbrt, code = 0;
    return;
  }
  if (cpu == DumpCpu::kAmd64)
    x86_exception(detail, signal, code);
  else
    arm64_exception(detail, signal, code);
}

const char *linux_signal_name(uint32_t signal) {
  static const char *const kNames[] = {
      "",        "SIGHUP",  "SIGINT",    "SIGQUIT", "SIGILL",  "SIGTRAP", "SIGABRT", "SIGBUS",
      "SIGFPE",  "SIGKILL", "SIGUSR1",   "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM",
      "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG",
      "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR", "SIGSYS"};
  return signal < sizeof kNames / sizeof kNames[0] ? kNames[signal] : "";
}

bool dump_from_record(const sfu_crash_view &view, const std::vector<const ImageIdentity *> &images, CrashDump &out,
                      std::string &error) {
  out = CrashDump{};
  if (view.abi == SFU_ABI_S390X_BE) {
    error = "an s390x record: Breakpad defines no minidump CPU type (no register context, no stack walker) "
            "for s390x";
    return false;
  }
  if (view.abi == SFU_ABI_AARCH64_BE) {
    error = "a big-endian arm64 record: Breakpad's arm64 dumps are little-endian only";
    return false;
  }
  if (view.abi != SFU_ABI_AMD64_LE && view.abi != SFU_ABI_AARCH64_LE) {
    error = "a record of an unknown architecture";
    return false;
  }
  out.cpu = view.abi == SFU_ABI_AMD64_LE ? DumpCpu::kAmd64 : DumpCpu::kArm64;
  sfu_regs regs;
  sfu_crash_get_regs(&view, &regs);
  int pc = dump_pc(out.cpu);
  for (int i = 0; i < pc; i++)
    if (regs.valid & (1u << i)) {
      out.regs.r[i] = regs.r[i];
      out.regs.valid |= uint64_t(1) << i;
    }
  out.regs.r[pc] = regs.pc;
  out.regs.valid |= uint64_t(1) << pc;

  for (uint32_t i = 0; i < view.num_windows; i++) {
    sfu_crash_window w;
    if (!sfu_crash_get_window(&view, i, &w)) continue;
    out.stacks.push_back(DumpMemory{w.addr, std::vector<uint8_t>(w.bytes, w.bytes + w.size)});
  }
  for (uint32_t i = 0; i < view.num_modules; i++) {
    sfu_crash_module m;
    if (!sfu_crash_get_module(&view, i, &m)) continue;
    DumpModule d;
    d.text_start = m.text_start;
    d.text_end = m.text_end;
    const ImageIdentity *image = i < images.size() ? images[i] : nullptr;
    if (image && image->load_address <= m.text_start) {
      d.name = image->name;
      d.base = image->load_address;
      d.base_is_load_address = true;
    } else {
      d.name = m.name[0] ? m.name : "module" + std::to_string(i);
      d.base = m.text_start;
    }
    d.size = m.text_end - d.base;
    if (m.build_id && m.build_id_size) {
      d.build_id.assign(m.build_id, m.build_id + m.build_id_size);
      d.debug_id = module_id_text(d.build_id);
    }
    out.modules.push_back(d);
  }
  sfu_crash_summary s;
  sfu_crash_get_summary(&view, &s);
  out.reason = s.reason;
  out.detail = s.detail;
  out.message = s.message;
  out.crash_address = s.fault_address;
  linux_signal(out.cpu, s.reason, s.detail, out.signal, out.signal_code);
  out.crash_reason = linux_signal_name(out.signal);
  // Linux gives SIGILL the faulting instruction's address as si_addr (x86's #UD, arm64's unknown
  // instruction), where a record has no fault address: the PC then, frame 0's, as the kernel says it.
  // A SIGSEGV at 0 stays at 0: address 0 is where a null pointer faults.
  if (out.signal == kSigIll && out.crash_address == 0) out.crash_address = regs.pc;
  return true;
}

}  // namespace sfu::tools::breakpad
