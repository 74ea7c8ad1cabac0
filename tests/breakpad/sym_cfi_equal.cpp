// Whether the STACK CFI of a Breakpad symbol file unwinds to the same caller as a reference, at
// every address both describe, with the rules applied as Breakpad's processor applies them
// (tools/breakpad/sym_file.h and cfi_rules.h: the `sfu stackwalk` evaluator):
//
//   sym_cfi_equal A.sym B.sym [NAME...]     another symbol file's STACK CFI
//   sym_cfi_equal --sframe ELF A.sym        the image's SFrame rows (CFA, RA, FP; s390x: SP too)
//   sym_cfi_equal --cfi ELF A.sym           the image's DWARF CFI rows (CFA, RA, every register
//                                           with a rule; s390x: SP too)
//
// The addresses checked are every STACK CFI INIT and STACK CFI address and every reference row
// start: the rules stay the same up to the next one. At each both cover, every register gets a
// value derived from its name and memory a value derived from the address read; the callers'
// .cfa, .ra and the other values compared (a register without a rule keeps the callee's value)
// must be equal. Where the reference cannot say (an outermost SFrame row: then only a return
// address of 0 is expected; a CFI rule that is undefined or an expression) that value is not
// compared; where it can say nothing at all (a DWARF CFA expression, which Breakpad's STACK CFI
// cannot hold either) the address is counted apart, not as compared.
//
// The reference is what the symbol file must cover: an address with a reference row and no
// STACK CFI fails the comparison, and so does comparing no address at all. The one exception,
// counted apart: an SFrame function with a PC mask (a PLT's repeating blocks: its rows hold for
// every block, found by the PC modulo the block size), which STACK CFI has no way to say and
// `sfu breakpad` leaves out, as Breakpad's dump_syms leaves out the PLT (it has no CFI there).
//
// Prints one line: how many addresses were compared and how many only one side covers, or why
// not equal. Exit status 0 equal, 1 different (or nothing compared, or reference rows without
// STACK CFI), 2 unreadable input.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sfu/sframe.h"
#include "tools/breakpad/cfi_rules.h"
#include "tools/breakpad/module_id.h"
#include "tools/breakpad/postfix.h"
#include "tools/breakpad/sym_cfi.h"
#include "tools/breakpad/sym_file.h"
#include "tools/dwarf/image_cfi.h"
#include "tools/sframe/rows.h"

using namespace sfu::tools;
using namespace sfu::tools::breakpad;

namespace {

uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

uint64_t name_value(const std::string &name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return mix(h) & ~uint64_t(7);  // aligned, as stack pointers are
}

class HashMemory : public Memory {
 public:
  bool read64(uint64_t address, uint64_t &value) const override {
    value = mix(address * 0x9e3779b97f4a7c15ull + 1);
    return true;
  }
};
const HashMemory kMemory;

uint64_t deref(uint64_t a) {
  uint64_t v;
  kMemory.read64(a, v);
  return v;
}

// Every callee value a rule set or a reference may need: one per name, derived from the name.
struct Callee {
  Values v;
  uint64_t operator()(const std::string &name) {
    auto it = v.find(name);
    return it != v.end() ? it->second : (v[name] = name_value(name));
  }
};

// The caller's values a reference gives at an address, by name (only those it can say); nullopt:
// no row there.
struct Want {
  bool unwinds = true;
  std::map<std::string, uint64_t> values;
  bool says = true;         // false: nothing comparable (a DWARF CFA expression)
  bool expressible = true;  // false: a row STACK CFI cannot hold (an SFrame PC-mask function)
};
using Expected = std::optional<Want>;
using Reference = std::function<Expected(uint64_t address, Callee &callee)>;

struct SymSide {
  SymbolFile sym;
  std::map<uint64_t, uint64_t> inits;  // start -> end of each STACK CFI INIT
  std::set<uint64_t> points;           // every STACK CFI (INIT) address
  bool covers(uint64_t a) const {
    auto it = inits.upper_bound(a);
    return it != inits.begin() && a < (--it)->second;
  }
};

bool load_sym(const std::string &path, SymSide &f) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str(), error;
  if (!in || !f.sym.load(text, path, error)) {
    fprintf(stderr, "sym_cfi_equal: %s: %s\n", path.c_str(), in ? error.c_str() : "cannot read");
    return false;
  }
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    unsigned long long a = 0, n = 0;
    if (sscanf(line.c_str(), "STACK CFI INIT %llx %llx", &a, &n) == 2) {
      f.inits.emplace(a, a + n);
      f.points.insert(a);
    } else if (sscanf(line.c_str(), "STACK CFI %llx", &a) == 1) {
      f.points.insert(a);
    }
  }
  return true;
}

// The caller's values the symbol file's rules give at `address`: every register they set, .cfa, .ra.
bool sym_caller(const SymSide &s, uint64_t address, Callee &callee, Values &caller, std::string &why) {
  CfiRules rules;
  if (!s.sym.cfi_rules(address, rules)) return (why = "no rules", false);
  std::vector<std::string> exprs = {rules.cfa, rules.ra};
  for (const auto &[name, e] : rules.registers) {
    exprs.push_back(e);
    callee(name);
  }
  for (const std::string &e : exprs) {
    std::istringstream t(e);
    std::string tok;
    uint64_t lit;
    while (t >> tok)
      if (tok != ".cfa" && !(tok.size() == 1 && strchr("+-*/%@^=", tok[0])) && !postfix_literal(tok, lit)) callee(tok);
  }
  return cfi_caller_registers(rules, callee.v, kMemory, caller, &why);
}

// A symbol file as a reference: every name either file's rules set, .cfa and .ra.
Reference sym_reference(const SymSide &b, std::vector<std::string> extra) {
  return [&b, extra](uint64_t p, Callee &callee) -> Expected {
    if (!b.covers(p)) return std::nullopt;
    Values caller;
    std::string why;
    Want out;
    if (!sym_caller(b, p, callee, caller, why)) return Want{false, {}};
    for (const auto &[name, v] : caller) out.values[name] = v;
    for (const std::string &n : extra)
      if (!out.values.count(n)) out.values[n] = callee(n);
    return out;
  };
}

// A DWARF register's .sym name ("r<N>" where the architecture has none).
std::string reg_name(uint16_t machine, uint64_t reg) {
  const std::vector<std::string> &names = cfi_register_names(machine);
  return reg < names.size() && !names[reg].empty() ? names[reg] : "r" + std::to_string(reg);
}

// The image's SFrame rows as a reference: CFA, RA and FP (s390x: SP = CFA - 160 too).
Reference sframe_reference(const ElfImage &img, uint64_t load, const std::vector<SframeFunction> &fns,
                           std::set<uint64_t> &points) {
  for (const SframeFunction &fn : fns)
    for (const sfu_row &r : fn.rows) points.insert(fn.start + r.row_start - load);
  auto names = [m = img.machine](uint64_t reg) { return reg_name(m, reg); };
  AbiRegs regs = abi_regs(img.machine);
  bool s390 = img.machine == kEmS390;
  return [&fns, names, regs, s390, load](uint64_t rel, Callee &callee) -> Expected {
    uint64_t p = rel + load;
    const SframeFunction *fn = sframe_function_at(fns, p);
    const sfu_row *row = fn ? sframe_row_at(*fn, p) : nullptr;
    if (!row) return std::nullopt;
    Want want;
    if (fn->pcmask) {
      want.expressible = false;
      return want;
    }
    std::map<std::string, uint64_t> &out = want.values;
    if (row->flags & SFU_ROW_OUTERMOST) {
      out[".ra"] = 0;
      return want;
    }
    uint64_t base = callee(names(row->cfa.reg)) + int64_t(row->cfa.offset);
    uint64_t cfa = row->cfa.kind == SFU_RULE_AT_REGISTER ? deref(base) : base;
    auto value = [&](const sfu_rule &r, int own) -> uint64_t {
      switch (r.kind) {
        case SFU_RULE_AT_CFA: return deref(cfa + int64_t(r.offset));
        case SFU_RULE_CFA_PLUS: return cfa + int64_t(r.offset);
        case SFU_RULE_REGISTER: return callee(names(r.reg)) + int64_t(r.offset);
        case SFU_RULE_AT_REGISTER: return deref(callee(names(r.reg)) + int64_t(r.offset));
        default: return callee(names(own));
      }
    };
    out[".cfa"] = cfa;
    out[".ra"] = value(row->ra, regs.ra);
    out[names(regs.fp)] = value(row->fp, regs.fp);
    if (s390) out[names(regs.sp)] = cfa - 160;
    return want;
  };
}

// The image's DWARF CFI rows as a reference: CFA, RA and every register with a rule it can say.
Reference cfi_reference(const ElfImage &img, uint64_t load, const std::vector<cfi::Fde> &fdes,
                        std::set<uint64_t> &points) {
  for (const cfi::Fde &f : fdes)
    for (const cfi::Row &r : f.rows) points.insert(r.start - load);
  auto names = [m = img.machine](uint64_t reg) { return reg_name(m, reg); };
  bool s390 = img.machine == kEmS390;
  return [&fdes, names, s390, load](uint64_t rel, Callee &callee) -> Expected {
    uint64_t p = rel + load;
    const cfi::Fde *fde = nullptr;
    for (const cfi::Fde &f : fdes)
      if (p >= f.start && p < f.end) fde = &f;
    if (!fde) return std::nullopt;
    const cfi::Row *row = nullptr;
    for (const cfi::Row &r : fde->rows)
      if (p >= r.start && p < r.end) row = &r;
    if (!row) return std::nullopt;
    Want want;
    std::map<std::string, uint64_t> &out = want.values;
    if (row->cfa.kind != cfi::CfaRule::kRegOffset) {
      want.says = false;  // nothing comparable
      return want;
    }
    uint64_t cfa = callee(names(row->cfa.reg)) + row->cfa.offset;
    out[".cfa"] = cfa;
    auto value = [&](uint32_t reg, const cfi::RegRule *r) -> std::optional<uint64_t> {
      if (!r) return callee(names(reg));
      switch (r->kind) {
        case cfi::RegRule::kSameValue: return callee(names(reg));
        case cfi::RegRule::kOffset: return deref(cfa + r->value);
        case cfi::RegRule::kValOffset: return cfa + r->value;
        case cfi::RegRule::kRegister: return callee(names(r->value));
        default: return std::nullopt;  // undefined, expressions
      }
    };
    for (const auto &[reg, rule] : row->regs) {
      if (reg == fde->ra_reg) continue;
      if (auto v = value(reg, &rule)) out[names(reg)] = *v;
    }
    if (auto ra = value(fde->ra_reg, row->rule(fde->ra_reg))) out[".ra"] = *ra;
    if (s390 && !row->rule(15)) out["$r15"] = cfa - 160;
    return want;
  };
}

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() < 2) {
    fprintf(stderr, "usage: sym_cfi_equal A.sym B.sym [NAME...] | --sframe ELF A.sym | --cfi ELF A.sym\n");
    return 2;
  }
  SymSide a, b;
  ElfImage img;
  std::vector<SframeFunction> fns;
  std::vector<cfi::Fde> fdes;
  std::set<uint64_t> ref_points;
  Reference ref;
  std::string error;
  if (args[0] == "--sframe" || args[0] == "--cfi") {
    if (args.size() != 3) return fprintf(stderr, "sym_cfi_equal: %s ELF A.sym\n", args[0].c_str()), 2;
    std::vector<uint8_t> bytes;
    uint8_t abi;
    bool ok = read_file(args[1], bytes, error) && elf_parse(bytes, img, error) &&
              (args[0] == "--sframe" ? read_image_sframe(img, abi, fns, error) : read_image_cfi(img, fdes, error));
    std::vector<ElfSegment> segs;
    ok = ok && read_segments(img, segs, error);
    if (!ok || !load_sym(args[2], a)) return fprintf(stderr, "sym_cfi_equal: %s: %s\n", args[1].c_str(), error.c_str()), 2;
    uint64_t base = load_address(segs);
    ref = args[0] == "--sframe" ? sframe_reference(img, base, fns, ref_points) : cfi_reference(img, base, fdes, ref_points);
  } else {
    if (!load_sym(args[0], a) || !load_sym(args[1], b)) return 2;
    ref = sym_reference(b, std::vector<std::string>(args.begin() + 2, args.end()));
    ref_points = b.points;
  }
  std::set<uint64_t> points = a.points;
  points.insert(ref_points.begin(), ref_points.end());
  size_t compared = 0, only_a = 0, only_ref = 0, differ = 0, inexpressible = 0, unsaid = 0;
  std::string first, first_only_ref;
  auto hex = [](uint64_t v) {
    char s[32];
    snprintf(s, sizeof s, "%llx", (unsigned long long)v);
    return std::string(s);
  };
  for (uint64_t p : points) {
    Callee callee;
    Expected want = ref(p, callee);
    bool in_a = a.covers(p);
    if (want && !want->expressible) {
      (in_a ? only_a : inexpressible)++;
      continue;
    }
    if (in_a != want.has_value()) {
      if (!in_a && first_only_ref.empty()) first_only_ref = hex(p);
      (in_a ? only_a : only_ref)++;
      continue;
    }
    if (!in_a) continue;
    if (!want->says) {
      unsaid++;
      continue;
    }
    compared++;
    Values got;
    std::string why, what;
    bool unwinds = sym_caller(a, p, callee, got, why);
    if (want->unwinds != unwinds) {
      what = unwinds ? "only the symbol file unwinds" : "only the reference unwinds (" + why + ")";
    } else {
      for (const auto &[name, v] : want->values) {
        uint64_t have = got.count(name) ? got[name] : callee(name);
        if (have != v) what += (what.empty() ? "" : ", ") + name + " differs";
      }
    }
    if (!what.empty()) {
      if (!differ) first = "at " + hex(p) + ": " + what;
      differ++;
    }
  }
  if (differ) {
    printf("%zu of %zu addresses unwind differently; first %s\n", differ, compared, first.c_str());
    return 1;
  }
  if (only_ref) {
    printf("%zu addresses the reference has rows for have no STACK CFI (first %s); %zu compared\n", only_ref,
           first_only_ref.c_str(), compared);
    return 1;
  }
  if (!compared) {
    printf("no address compared: the symbol file and the reference describe none in common\n");
    return 1;
  }
  printf("%zu addresses unwind alike (%zu covered by the symbol file only; %zu SFrame PC-mask rows STACK CFI cannot "
         "hold, %zu DWARF CFA expressions, not compared)\n",
         compared, only_a, inexpressible, unsaid);
  return 0;
}
