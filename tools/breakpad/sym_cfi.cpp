// STACK CFI from DWARF CFI (as dump_syms) and from SFrame rows. See sym_cfi.h.
#include "tools/breakpad/sym_cfi.h"

#include <map>
#include <optional>

#include "sfu/sframe.h"
#include "tools/dwarf/cfi.h"
#include "tools/dwarf/reader.h"
#include "tools/sframe/rows.h"

namespace sfu::tools::breakpad {
namespace {

std::vector<std::string> numbered(const char *prefix, int from, int to) {
  std::vector<std::string> v;
  for (int i = from; i <= to; i++) v.push_back(prefix + std::to_string(i));
  return v;
}

std::vector<std::string> x86_64_names() {
  std::vector<std::string> v = {"$rax", "$rdx", "$rcx", "$rbx", "$rsi", "$rdi", "$rbp", "$rsp"};
  for (const std::string &s : numbered("$r", 8, 15)) v.push_back(s);
  v.push_back("$rip");
  for (const std::string &s : numbered("$xmm", 0, 15)) v.push_back(s);
  for (const std::string &s : numbered("$st", 0, 7)) v.push_back(s);
  for (const std::string &s : numbered("$mm", 0, 7)) v.push_back(s);
  for (const char *s : {"$rflags", "$es", "$cs", "$ss", "$ds", "$fs", "$gs", "$unused1", "$unused2", "$fs.base",
                        "$gs.base", "$unused3", "$unused4", "$tr", "$ldtr", "$mxcsr", "$fcw", "$fsw"})
    v.push_back(s);
  return v;
}

std::vector<std::string> arm64_names() {
  std::vector<std::string> v = numbered("x", 0, 30);
  v.push_back("sp");
  v.resize(64);  // 32-63: no names
  for (const std::string &s : numbered("v", 0, 31)) v.push_back(s);
  return v;
}

std::vector<std::string> s390x_names() {
  std::vector<std::string> v = numbered("$r", 0, 15);
  for (int f : {0, 2, 4, 6, 1, 3, 5, 7, 8, 10, 12, 14, 9, 11, 13, 15}) v.push_back("$f" + std::to_string(f));
  for (const std::string &s : numbered("$c", 0, 15)) v.push_back(s);
  for (const std::string &s : numbered("$a", 0, 15)) v.push_back(s);
  return v;
}

// The entry being written, with dump_syms's naming and filing of rules.
class EntryWriter {
 public:
  EntryWriter(const std::vector<std::string> &names, uint64_t start, uint64_t size, uint32_t ra,
              bool ra_value_by_name = false)
      : names_(names), ra_(ra), ra_value_by_name_(ra_value_by_name) {
    e_.address = start;
    e_.size = size;
    if (ra < names.size()) e_.initial[".ra"] = names[ra];
  }

  // ".cfa" for the CFA (reg < 0), ".ra" for the return address column, else the name.
  std::string name(int64_t reg) const {
    if (reg < 0) return ".cfa";
    if (uint64_t(reg) == ra_) return ".ra";
    if (uint64_t(reg) < names_.size() && !names_[reg].empty()) return names_[reg];
    return "unnamed_register" + std::to_string(reg);
  }

  // A register as a value ("same value" rules): dump_syms writes the return address column's
  // as ".ra", which no evaluator can resolve; s390x entries (ours alone) name the register.
  std::string value_name(int64_t reg) const {
    if (ra_value_by_name_ && reg >= 0 && uint64_t(reg) == ra_ && uint64_t(reg) < names_.size()) return names_[reg];
    return name(reg);
  }

  void record(uint64_t address, const std::string &target, const std::string &rule) {
    if (address == e_.address)
      e_.initial[target] = rule;
    else
      e_.changes[address][target] = rule;
  }

  SymStackEntry &entry() { return e_; }

 private:
  const std::vector<std::string> &names_;
  uint32_t ra_;
  bool ra_value_by_name_;
  SymStackEntry e_;
};

// A rule as Breakpad's CFI reader holds it (its Rule classes), comparable as they compare.
struct BpRule {
  enum Kind { kSameValue, kUndefined, kOffset, kValOffset, kRegister, kExpression, kValExpression } kind = kSameValue;
  int64_t base = -1;  // kOffset, kValOffset: the register the offset is from (-1: the CFA)
  int64_t value = 0;  // the offset, or kRegister's register
  std::vector<uint8_t> expr;
  bool operator==(const BpRule &) const = default;
};

BpRule from_cfa(const cfi::CfaRule &c) {
  if (c.kind == cfi::CfaRule::kExpression) return {BpRule::kValExpression, -1, 0, c.expr};
  return {BpRule::kValOffset, int64_t(c.reg), c.offset, {}};
}

BpRule from_reg(const cfi::RuleEvent &ev) {
  if (!ev.has_rule) return {};  // restored with no CIE rule: Breakpad's "same value"
  const cfi::RegRule &r = ev.rule;
  switch (r.kind) {
    case cfi::RegRule::kSameValue: return {};
    case cfi::RegRule::kUndefined: return {BpRule::kUndefined, -1, 0, {}};
    case cfi::RegRule::kOffset: return {BpRule::kOffset, -1, r.value, {}};
    case cfi::RegRule::kValOffset: return {BpRule::kValOffset, -1, r.value, {}};
    case cfi::RegRule::kRegister: return {BpRule::kRegister, -1, r.value, {}};
    case cfi::RegRule::kExpression: return {BpRule::kExpression, -1, 0, r.expr};
    case cfi::RegRule::kValExpression: return {BpRule::kValExpression, -1, 0, r.expr};
  }
  return {};
}

// The postfix text Breakpad writes for a rule of register `reg` (-1: the CFA), or nothing.
std::optional<std::string> rule_text(const EntryWriter &w, int64_t reg, const BpRule &r) {
  switch (r.kind) {
    case BpRule::kSameValue: return w.value_name(reg);
    case BpRule::kOffset: return w.name(r.base) + " " + std::to_string(r.value) + " + ^";
    case BpRule::kValOffset: return w.name(r.base) + " " + std::to_string(r.value) + " +";
    case BpRule::kRegister: return w.name(r.value);
    default: return std::nullopt;  // undefined, expressions: Breakpad cannot say them
  }
}

// The rules in force, as Breakpad's CFI reader keeps them: a register once given a rule keeps one.
struct BpState {
  std::optional<BpRule> cfa;
  std::map<uint32_t, BpRule> regs;
};

void handle(EntryWriter &w, uint64_t address, int64_t reg, const BpRule &r) {
  if (auto text = rule_text(w, reg, r)) w.record(address, w.name(reg), *text);
}

}  // namespace

SymStackEntry stack_entry_from_fde(const cfi::Fde &fde, uint16_t machine) {
  const std::vector<std::string> &names = cfi_register_names(machine);
  EntryWriter w(names, fde.start, fde.end - fde.start, fde.ra_reg, machine == kEmS390);
  if (machine == kEmS390) w.record(fde.start, "$r15", ".cfa -160 +");
  BpState st;
  std::vector<BpState> saved;
  for (const cfi::RuleEvent &ev : fde.events) {
    switch (ev.kind) {
      case cfi::RuleEvent::kCfa:
        st.cfa = from_cfa(ev.cfa);
        handle(w, ev.address, -1, *st.cfa);
        break;
      case cfi::RuleEvent::kRegister:
        st.regs[ev.reg] = from_reg(ev);
        handle(w, ev.address, ev.reg, st.regs[ev.reg]);
        break;
      case cfi::RuleEvent::kRemember:
        saved.push_back(st);
        break;
      case cfi::RuleEvent::kRestoreState: {
        if (saved.empty()) break;  // the reader refuses this before it gets here
        BpState next = std::move(saved.back());
        saved.pop_back();
        if (st.cfa && next.cfa && !(*st.cfa == *next.cfa)) handle(w, ev.address, -1, *next.cfa);
        for (const auto &[reg, rule] : st.regs) {
          auto it = next.regs.find(reg);
          if (it == next.regs.end())
            handle(w, ev.address, reg, BpRule{});
          else if (!(it->second == rule))
            handle(w, ev.address, reg, it->second);
        }
        // A rule the saved state has and the current one lacks (Breakpad never drops one).
        for (const auto &[reg, rule] : next.regs)
          if (!st.regs.count(reg)) handle(w, ev.address, reg, rule);
        st = std::move(next);
        break;
      }
    }
  }
  return std::move(w.entry());
}

// --- SFrame ----------------------------------------------------------------------------------

AbiRegs abi_regs(uint16_t machine) {
  if (machine == kEmAarch64) return {31, 29, 30};
  if (machine == kEmS390) return {15, 11, 14};
  return {7, 6, 16};
}

namespace {

std::string plus(const std::string &base, int64_t off) { return base + " " + std::to_string(off) + " +"; }

// The rule text of an SFrame rule for a value other than the CFA.
std::string sframe_rule(const EntryWriter &w, const sfu_rule &r, int64_t own_reg) {
  switch (r.kind) {
    case SFU_RULE_UNCHANGED: return w.name(own_reg);
    case SFU_RULE_UNDEFINED: return "0";
    case SFU_RULE_AT_CFA: return plus(".cfa", r.offset) + " ^";
    case SFU_RULE_CFA_PLUS: return plus(".cfa", r.offset);
    case SFU_RULE_REGISTER: return r.offset ? plus(w.name(r.reg), r.offset) : w.name(r.reg);
    case SFU_RULE_AT_REGISTER: return plus(w.name(r.reg), r.offset) + " ^";
  }
  return w.name(own_reg);
}

// Every rule a row sets, by register name.
SymRules sframe_rules(const EntryWriter &w, const sfu_row &row, const AbiRegs &regs) {
  SymRules out;
  if (row.cfa.kind == SFU_RULE_REGISTER)
    out[".cfa"] = plus(w.name(row.cfa.reg), row.cfa.offset);
  else if (row.cfa.kind == SFU_RULE_AT_REGISTER)
    out[".cfa"] = plus(w.name(row.cfa.reg), row.cfa.offset) + " ^";
  else
    out[".cfa"] = w.name(regs.sp);  // outermost: any value; the RA of 0 ends the walk
  out[".ra"] = (row.flags & SFU_ROW_OUTERMOST) ? "0" : sframe_rule(w, row.ra, regs.ra);
  out[w.name(regs.fp)] = sframe_rule(w, row.fp, regs.fp);
  return out;
}

}  // namespace

const std::vector<std::string> &cfi_register_names(uint16_t machine) {
  static const std::vector<std::string> x86 = x86_64_names(), arm = arm64_names(), s390 = s390x_names(), none;
  switch (machine) {
    case kEmX86_64: return x86;
    case kEmAarch64: return arm;
    case kEmS390: return s390;
    default: return none;
  }
}

bool cfi_to_module(const ElfImage &image, SymModule &m, size_t &fdes, std::string &error) {
  fdes = 0;
  for (const char *name : {".debug_frame", ".eh_frame"}) {
    const ElfSectionHeader *h = image.section(name);
    if (!h || h->type != kShtProgbits) continue;
    ElfSection sec;
    if (!elf_section_bytes(image, name, sec, error)) return false;
    cfi::Section s;
    s.bytes = sec.bytes.data();
    s.size = sec.bytes.size();
    s.addr = sec.addr;
    s.eh_frame = std::string(name) == ".eh_frame";
    s.big_endian = image.big_endian;
    s.machine = image.machine;
    s.keep_events = true;
    s.stop_at_terminator = true;
    std::vector<cfi::Fde> got;
    cfi::Error err;
    if (!cfi::read_cfi(s, got, err)) {
      error = std::string(name) + "+" + cfi::Reader::hex(err.offset) + ": " + err.name +
              (err.detail.empty() ? "" : " (" + err.detail + ")");
      return false;
    }
    for (const cfi::Fde &f : got) m.add_stack_entry(stack_entry_from_fde(f, image.machine));
    fdes += got.size();
  }
  return true;
}

bool sframe_to_module(const ElfImage &image, SymModule &m, size_t &functions, std::string &error) {
  functions = 0;
  if (!image.section(".sframe")) return true;
  uint8_t abi = 0;
  std::vector<SframeFunction> fns;
  if (!read_image_sframe(image, abi, fns, error)) return false;
  for (const SframeFunction &fn : fns) {
    SymStackEntry e;
    if (!stack_entry_from_sframe(fn, image.machine, e)) continue;
    m.add_stack_entry(std::move(e));
    functions++;
  }
  return true;
}

bool stack_entry_from_sframe(const SframeFunction &fn, uint16_t machine, SymStackEntry &out) {
  if (fn.pcmask || fn.rows.empty()) return false;
  AbiRegs regs = abi_regs(machine);
  uint64_t first = fn.start + fn.rows.front().row_start;
  // Registers by their own names here: the RA register's value is "x30", not ".ra".
  EntryWriter w(cfi_register_names(machine), first, fn.start + fn.size - first, ~uint32_t(0));
  if (machine == kEmS390) w.record(first, "$r15", ".cfa -160 +");
  SymRules before;
  for (const sfu_row &row : fn.rows) {
    SymRules now = sframe_rules(w, row, regs);
    for (const auto &[reg, rule] : now) {
      auto it = before.find(reg);
      bool same_value = rule == reg;  // unchanged: written only to undo an earlier rule
      if (it == before.end() ? !same_value : it->second != rule) w.record(fn.start + row.row_start, reg, rule);
    }
    before = std::move(now);
  }
  out = std::move(w.entry());
  return true;
}

}  // namespace sfu::tools::breakpad
