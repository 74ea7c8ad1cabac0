// Breakpad's stack walk, written from its documented behaviour (stackwalk.h).
#include "tools/breakpad/stackwalk.h"

#include <cstdio>

#include "tools/text/format.h"

namespace sfu::tools::breakpad {
namespace {

constexpr uint64_t kUnrecoveredAmd64 = 0xdadadadadadadadaull;  // what Breakpad leaves in them
constexpr int kScanWords = 40;                                  // Breakpad's kRASearchWords
constexpr uint64_t kLowestPc = 4096;

const char *const kAmd64Names[] = {"$rax", "$rdx", "$rcx", "$rbx", "$rsi", "$rdi", "$rbp", "$rsp", "$r8",
                                   "$r9",  "$r10", "$r11", "$r12", "$r13", "$r14", "$r15", "$rip"};
const char *const kArm64Names[] = {"x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",  "x9",  "x10",
                                   "x11", "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21",
                                   "x22", "x23", "x24", "x25", "x26", "x27", "x28", "x29", "x30", "sp",  "pc"};

bool valid(const DumpRegisters &r, int i) { return (r.valid >> i) & 1; }
uint64_t bit(int i) { return uint64_t(1) << i; }

// The dump's first stack, read little-endian.
class StackMemory : public Memory {
 public:
  explicit StackMemory(const CrashDump &d) : m_(d.stacks.empty() ? nullptr : &d.stacks[0]) {}
  bool read64(uint64_t address, uint64_t &value) const override {
    if (!m_ || address < m_->base || address - m_->base > m_->bytes.size() ||
        m_->bytes.size() - (address - m_->base) < 8)
      return false;
    const uint8_t *p = m_->bytes.data() + (address - m_->base);
    value = 0;
    for (int i = 7; i >= 0; i--) value = (value << 8) | p[i];
    return true;
  }

 private:
  const DumpMemory *m_;
};

class Walker {
 public:
  Walker(const CrashDump &d, const std::vector<const ModuleSymbols *> &s, WalkResult &out)
      : d_(d), symbols_(s), memory_(d), out_(out), amd64_(d.cpu == DumpCpu::kAmd64), pc_(dump_pc(d.cpu)),
        sp_(dump_sp(d.cpu)) {
    // arm64: the mask pointer-authentication bits are stripped with, from the highest module.
    const DumpModule *high = nullptr;
    for (const DumpModule &m : d.modules)
      if (!high || m.base > high->base) high = &m;
    if (high) {
      uint64_t mask = high->base + high->size;
      for (int shift = 1; shift < 64; shift *= 2) mask |= mask >> shift;
      mask_ = mask;
    }
  }

  void run() {
    WalkedFrame frame;
    frame.trust = Trust::kContext;
    frame.regs = d_.regs;
    frame.regs.valid = (uint64_t(1) << dump_reg_count(d_.cpu)) - 1;  // Breakpad: every register
    frame.instruction = frame.regs.r[pc_];
    if (!amd64_) frame.regs.r[kArm64Lr] = strip(frame.regs.r[kArm64Lr]);
    for (;;) {
      std::vector<WalkedFrame> inlined;
      symbolize(frame, &inlined);
      for (WalkedFrame &f : inlined) out_.frames.push_back(std::move(f));
      out_.frames.push_back(frame);
      physical_.push_back(out_.frames.size() - 1);
      if (out_.frames.size() >= kMaxWalkFrames) {
        out_.stop = "stopped at " + std::to_string(kMaxWalkFrames) + " frames";
        return;
      }
      if (!caller(frame)) return;
    }
  }

 private:
  int module_at(uint64_t address) const {
    for (size_t i = 0; i < d_.modules.size(); i++)
      if (address >= d_.modules[i].base && address - d_.modules[i].base < d_.modules[i].size) return int(i);
    return -1;
  }

  const ModuleSymbols *symbols_of(int module) const {
    return module >= 0 && size_t(module) < symbols_.size() ? symbols_[size_t(module)] : nullptr;
  }

  // Module, function, line and inlined frames of `f` (Breakpad's FillSourceLineInfo).
  void symbolize(WalkedFrame &f, std::vector<WalkedFrame> *inlined) const {
    f.module = module_at(f.instruction);
    // Breakpad's ReturnAddress(): x86_64 frames give rip, arm64 frames (no override) the
    // instruction looked up, a caller's return address less 4.
    f.return_address = amd64_ ? f.regs.r[pc_] : f.instruction;
    const ModuleSymbols *s = symbols_of(f.module);
    if (!s) return;
    uint64_t base = d_.modules[size_t(f.module)].base;
    f.symbol = s->lookup(f.instruction - base);
    f.symbol.function_base += base;
    f.symbol.line_base += base;
    if (!inlined) return;
    for (const InlineAt &in : f.symbol.inlines) {
      WalkedFrame g;
      g.trust = Trust::kInline;
      g.inlined = true;
      g.instruction = g.return_address = f.instruction;
      g.module = f.module;
      g.symbol.has_function = true;
      g.symbol.function = in.function;
      g.symbol.function_base = base + in.range_start;
      g.symbol.file = in.file;
      g.symbol.line = in.line;
      g.symbol.has_line = f.symbol.has_line;
      g.symbol.line_base = f.symbol.line_base;
      inlined->push_back(g);
    }
  }

  // Breakpad's InstructionAddressSeemsValid.
  bool seems_code(uint64_t address) const {
    int m = module_at(address);
    if (m < 0) return false;
    const ModuleSymbols *s = symbols_of(m);
    if (!s) return true;
    return s->lookup(address - d_.modules[size_t(m)].base).has_function;
  }

  bool scan(uint64_t start, int words, uint64_t &location, uint64_t &ip) const {
    for (uint64_t at = start; at <= start + uint64_t(words) * 8; at += 8) {
      uint64_t v = 0;
      if (!memory_.read64(at, v)) break;
      if (module_at(v - 1) >= 0 && seems_code(v - 1)) {
        location = at;
        ip = v;
        return true;
      }
    }
    return false;
  }

  uint64_t strip(uint64_t p) const {
    if (amd64_) return p;
    uint64_t s = p & mask_;
    return module_at(s) >= 0 ? s : p;
  }

  bool by_cfi(const WalkedFrame &last, const CfiRules &rules, WalkedFrame &out) const {
    int n = dump_reg_count(d_.cpu);
    Values callee, caller;
    for (int i = 0; i < n; i++)
      if (valid(last.regs, i)) callee[breakpad_register_name(d_.cpu, i)] = last.regs.r[i];
    if (!cfi_caller_registers(rules, callee, memory_, caller)) return false;
    out.regs = DumpRegisters{};
    for (int i = 0; i < n; i++) {
      out.regs.r[i] = amd64_ ? kUnrecoveredAmd64 : 0;
      auto it = caller.find(breakpad_register_name(d_.cpu, i));
      if (it == caller.end() && i == sp_) it = caller.find(".cfa");
      if (it == caller.end() && i == pc_) it = caller.find(".ra");
      bool callee_saved = amd64_ ? (i == 3 || i == kAmd64Rbp || (i >= 12 && i <= 15)) : (i >= 19 && i <= 29);
      if (it != caller.end()) {
        out.regs.r[i] = it->second;
        out.regs.valid |= bit(i);
      } else if (callee_saved && valid(last.regs, i)) {
        out.regs.r[i] = last.regs.r[i];
        out.regs.valid |= bit(i);
      }
    }
    if (!valid(out.regs, pc_) || !valid(out.regs, sp_)) return false;
    if (amd64_ && (!out.regs.r[pc_] || !out.regs.r[sp_])) return false;
    if (!amd64_) out.regs.r[pc_] = strip(out.regs.r[pc_]);
    out.trust = Trust::kCfi;
    return true;
  }

  bool amd64_frame_pointer(const WalkedFrame &last, WalkedFrame &out) const {
    uint64_t rbp = last.regs.r[kAmd64Rbp], caller_rip = 0, caller_rbp = 0, unused = 0;
    if (rbp % 8 || !memory_.read64(rbp + 8, caller_rip) || !memory_.read64(rbp, caller_rbp)) return false;
    uint64_t caller_rsp = rbp + 16;
    if (caller_rip > 0x7fffffffffffull && caller_rip < 0xffff800000000000ull) return false;  // not canonical
    if (caller_rsp <= rbp || caller_rbp < caller_rsp) return false;
    if (!memory_.read64(caller_rbp, unused)) return false;
    out.regs = last.regs;
    out.regs.r[kAmd64Rip] = caller_rip;
    out.regs.r[kAmd64Rsp] = caller_rsp;
    out.regs.r[kAmd64Rbp] = caller_rbp;
    out.regs.valid = bit(kAmd64Rip) | bit(kAmd64Rsp) | bit(kAmd64Rbp);
    out.trust = Trust::kFramePointer;
    return true;
  }

  // Breakpad's CorrectRegLRByFramePointer: the link register of `last` from its callee's frame
  // record, when the frame pointer CFI gave agrees with it.
  void arm64_correct_lr(WalkedFrame &last) const {
    if (physical_.size() < 2 || last.regs.r[kArm64Fp] <= last.regs.r[kArm64Sp]) return;
    const WalkedFrame &callee = out_.frames[physical_[physical_.size() - 2]];
    uint64_t callee_fp = callee.regs.r[kArm64Fp], fp = 0, lr = 0;
    if (callee_fp && !memory_.read64(callee_fp, fp)) return;
    if (last.regs.r[kArm64Fp] != fp) return;
    if (callee_fp && !memory_.read64(callee_fp + 8, lr)) return;
    last.regs.r[kArm64Lr] = strip(lr);
  }

  bool arm64_frame_pointer(WalkedFrame &last, WalkedFrame &out) const {
    if (!valid(last.regs, kArm64Lr)) arm64_correct_lr(last);
    uint64_t fp = last.regs.r[kArm64Fp], caller_fp = 0, caller_lr = 0;
    if (fp && (!memory_.read64(fp, caller_fp) || !memory_.read64(fp + 8, caller_lr))) return false;
    out.regs = last.regs;
    out.regs.r[kArm64Fp] = caller_fp;
    out.regs.r[kArm64Sp] = fp ? fp + 16 : last.regs.r[kArm64Sp];
    out.regs.r[kArm64Pc] = last.regs.r[kArm64Lr];
    out.regs.r[kArm64Lr] = strip(caller_lr);
    out.regs.valid = bit(kArm64Pc) | bit(kArm64Lr) | bit(kArm64Fp) | bit(kArm64Sp);
    out.trust = Trust::kFramePointer;
    return true;
  }

  bool by_scan(const WalkedFrame &last, WalkedFrame &out) const {
    uint64_t location = 0, ip = 0;
    int words = last.trust == Trust::kContext ? 4 * kScanWords : kScanWords;
    if (!scan(last.regs.r[sp_], words, location, ip)) return false;
    out.regs = last.regs;
    out.regs.r[pc_] = ip;
    out.regs.r[sp_] = location + 8;
    out.regs.valid = bit(pc_) | bit(sp_);
    if (amd64_ && valid(last.regs, kAmd64Rbp)) {
      uint64_t rbp = last.regs.r[kAmd64Rbp], caller_rbp = 0;
      if (location - 8 == rbp) {
        if (memory_.read64(rbp, caller_rbp) && caller_rbp > location) {
          out.regs.r[kAmd64Rbp] = caller_rbp;
          out.regs.valid |= bit(kAmd64Rbp);
        }
      } else if (rbp >= location + 8) {
        out.regs.valid |= bit(kAmd64Rbp);  // the callee left it as it was
      }
    }
    out.trust = Trust::kScan;
    return true;
  }

  // The caller of the last frame, into `frame`; false (with the stop reason) when there is none.
  bool caller(WalkedFrame &frame) {
    WalkedFrame &last = out_.frames.back();
    WalkedFrame next;
    bool found = false;
    CfiRules rules;
    const ModuleSymbols *s = symbols_of(last.module);
    ModuleSymbols::Cfi cfi = s ? s->cfi_rules(last.instruction - d_.modules[size_t(last.module)].base, rules)
                               : ModuleSymbols::Cfi::kNone;
    if (cfi == ModuleSymbols::Cfi::kOutermost) {
      out_.stop = "end of stack: the image's outermost frame";
      return false;
    }
    if (cfi == ModuleSymbols::Cfi::kRules) found = by_cfi(last, rules, next);
    if (!found) found = amd64_ ? amd64_frame_pointer(last, next) : arm64_frame_pointer(last, next);
    if (!found) found = by_scan(last, next);
    if (!found) {
      out_.stop = "no caller: no CFI, frame pointer or return address on the stack gives one";
      return false;
    }
    uint64_t caller_pc = next.regs.r[pc_], caller_sp = next.regs.r[sp_], callee_sp = last.regs.r[sp_];
    bool first = last.trust == Trust::kContext;
    if (caller_pc < kLowestPc) {
      out_.stop = "end of stack: the caller's pc " + hex(caller_pc) + " is below 4096";
      return false;
    }
    if (first ? caller_sp < callee_sp : caller_sp <= callee_sp) {
      out_.stop = "end of stack: the caller's sp " + hex(caller_sp) + " does not grow";
      return false;
    }
    next.instruction = caller_pc - (amd64_ ? 1 : 4);
    frame = next;
    return true;
  }

  const CrashDump &d_;
  const std::vector<const ModuleSymbols *> &symbols_;
  StackMemory memory_;
  WalkResult &out_;
  bool amd64_;
  int pc_, sp_;
  uint64_t mask_ = ~uint64_t(0);
  std::vector<size_t> physical_;  // indexes of the physical frames in out_.frames
};

// Breakpad's StripSeparator: no '|' and no newline in a field.
std::string field(const std::string &s) {
  std::string out;
  for (char c : s)
    if (c != '|' && c != '\n') out += c;
  return out;
}

std::string base_name(const std::string &path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

const char *breakpad_register_name(DumpCpu cpu, int index) {
  return cpu == DumpCpu::kAmd64 ? kAmd64Names[index] : kArm64Names[index];
}

const char *trust_name(Trust t) {
  switch (t) {
    case Trust::kContext: return "context";
    case Trust::kCfi: return "cfi";
    case Trust::kFramePointer: return "fp";
    case Trust::kScan: return "scan";
    default: return "inline";
  }
}

void stackwalk(const CrashDump &dump, const std::vector<const ModuleSymbols *> &symbols, WalkResult &out) {
  out = WalkResult{};
  Walker(dump, symbols, out).run();
}

std::string machine_frames(const CrashDump &dump, const WalkResult &walk) {
  std::string out;
  for (size_t i = 0; i < walk.frames.size(); i++) {
    const WalkedFrame &f = walk.frames[i];
    out += "0|" + std::to_string(i) + "|";
    if (f.module < 0) {
      out += "||||" + hex(f.return_address);
    } else if (!f.symbol.has_function) {
      out += field(base_name(dump.modules[size_t(f.module)].name)) + "||||" +
             hex(f.return_address - dump.modules[size_t(f.module)].base);
    } else {
      out += field(base_name(dump.modules[size_t(f.module)].name)) + "|" + field(f.symbol.function) + "|";
      if (!f.symbol.file.empty())
        out += field(f.symbol.file) + "|" + std::to_string(f.symbol.line) + "|" +
               hex(f.return_address - f.symbol.line_base);
      else
        out += "||" + hex(f.return_address - f.symbol.function_base);
    }
    out += "\n";
  }
  return out;
}

std::string readable_frames(const CrashDump &dump, const WalkResult &walk) {
  std::string out;
  char buf[96];
  for (size_t i = 0; i < walk.frames.size(); i++) {
    const WalkedFrame &f = walk.frames[i];
    if (f.inlined)
      snprintf(buf, sizeof buf, " #%-3zu %-18s  %-21s  %-7s", i, "", "(inlined)", trust_name(f.trust));
    else
      snprintf(buf, sizeof buf, " #%-3zu 0x%016llx  sp 0x%016llx  %-7s", i,
               static_cast<unsigned long long>(f.regs.r[dump_pc(dump.cpu)]),
               static_cast<unsigned long long>(f.regs.r[dump_sp(dump.cpu)]), trust_name(f.trust));
    out += buf;
    if (f.module < 0) {
      out += "  -\n";
      continue;
    }
    const DumpModule &m = dump.modules[size_t(f.module)];
    out += "  " + m.name;
    // The device's offsets: from the pc itself (a return address; an inlined frame's address).
    uint64_t pc = f.inlined ? f.instruction : f.regs.r[dump_pc(dump.cpu)];
    if (f.symbol.has_function) {
      uint64_t off = pc - f.symbol.function_base;
      out += "  " + f.symbol.function + (off ? "+" + hex(off) : "");
      if (!f.symbol.file.empty()) out += "  " + f.symbol.file + ":" + std::to_string(f.symbol.line);
    } else {
      out += "+" + hex(pc - m.base);
    }
    out += "\n";
  }
  out += "stop: " + walk.stop + "\n";
  return out;
}

std::string symbol_file_path(const std::string &root, const DumpModule &module) {
  std::string name = base_name(module.name);
  if (name.empty() || module.debug_id.empty()) return "";
  std::string file = name;
  if (file.size() > 4) {
    std::string ext = file.substr(file.size() - 4);
    for (char &c : ext) c = char(tolower(static_cast<unsigned char>(c)));
    if (ext == ".pdb") file = file.substr(0, file.size() - 4);
  }
  return root + "/" + name + "/" + module.debug_id + "/" + file + ".sym";
}

}  // namespace sfu::tools::breakpad
