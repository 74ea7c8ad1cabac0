// Functions, lines and inline trees from DWARF, and PUBLIC records from the symbol table, as
// dump_syms -d makes them. See sym_dwarf.h. The DIEs are read with tools/dwarf/debug_info.h; the
// walk below reproduces which DIEs Breakpad looks at, in what order, and what it keeps of them.
#include "tools/breakpad/sym_dwarf.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <unordered_map>

#include "tools/dwarf/debug_info.h"
#include "tools/dwarf/line_table.h"
#include "tools/dwarf/ranges.h"
#include "tools/dwarf/source_index.h"
#include "tools/elf/symbol_table.h"

namespace sfu::tools::breakpad {
namespace {

using namespace sfu::tools::dwarf;

constexpr uint64_t kTagClass = 0x02, kTagStructure = 0x13, kTagUnion = 0x17, kTagModule = 0x1e,
                   kTagNamespace = 0x39;
constexpr uint64_t kAtInline = 0x20, kAtDeclaration = 0x3c;
constexpr uint64_t kLangMipsAssembler = 0x8001;
constexpr const char *kNameOmitted = "<name omitted>";
constexpr uint64_t kMaxAddress = ~uint64_t(0);

// abi::__cxa_demangle, as Breakpad calls it: "" when it fails.
bool cxa_demangle(const std::string &name, std::string &out) {
  int status = 0;
  char *d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  bool ok = d && status == 0;
  if (ok) out = d;
  free(d);
  return ok;
}

// A directory or file name joined to its base as Breakpad joins them (no normalising).
std::string expand_path(const std::string &path, const std::string &base) {
  if ((!path.empty() && path[0] == '/') || base.empty()) return path;
  return base + (base.back() == '/' ? "" : "/") + path;
}

bool is_unsigned_value(const AttrValue &a) {
  switch (a.cls) {
    case AttrValue::kAddress: case AttrValue::kConstant: case AttrValue::kFlag: case AttrValue::kSecOffset:
    case AttrValue::kRangeList: case AttrValue::kLocList:
      return true;
    case AttrValue::kSigned:
      return a.form == kFormImplicitConst;  // Breakpad passes implicit constants as unsigned
    default:
      return false;
  }
}

bool is_address_form(uint64_t form) {
  return form == kFormAddr || form == kFormGnuAddrIndex || form == kFormAddrx ||
         (form >= kFormAddrx1 && form <= kFormAddrx4);
}

// What a DW_AT_specification target left for the DIEs that cite it.
struct Spec {
  std::string qualified, enclosing, unqualified;
};

// Breakpad's InlineOriginMap: which DIE an inline origin is keyed by (the root of the
// specification references), and the origin of each root.
class OriginMap {
 public:
  explicit OriginMap(SymModule &m) : m_(m) {}

  void set_reference(uint64_t offset, uint64_t spec) {
    auto it = refs_.find(offset);
    if (it == refs_.end()) {
      refs_[offset] = spec;
      return;
    }
    if (offset == spec || spec == it->second) return;
    auto moved = origins_.find(it->second);
    if (moved != origins_.end()) {
      SymOrigin *o = moved->second;
      origins_.erase(moved);
      origins_[spec] = o;
    }
    it->second = spec;
  }

  SymOrigin *get_or_create(uint64_t offset, const std::string &name) {
    uint64_t root = refs_[offset];
    for (unsigned guard = 0; guard < 1u << 20; guard++) {
      auto it = refs_.find(root);
      if (it == refs_.end() || it->second == root) break;
      root = it->second;
    }
    auto it = origins_.find(root);
    if (it != origins_.end()) {
      if (it->second->name == kNameOmitted) it->second->name = name;
      return it->second;
    }
    return origins_[root] = m_.origin(name);
  }

 private:
  SymModule &m_;
  std::map<uint64_t, uint64_t> refs_;
  std::map<uint64_t, SymOrigin *> origins_;
};

class Converter {
 public:
  Converter(const ElfImage &image, SymModule &m, std::string &error)
      : image_(image), m_(m), error_(error), origin_map_(m) {}

  bool run() {
    if (!publics()) return false;
    if (!find_debug_sections(image_, sections_, error_)) return false;
    if (!sections_.info.present() || sections_.info.size == 0) return true;
    reader_ = std::make_unique<DebugInfoReader>(sections_);
    std::vector<Unit> units;
    DebugError err;
    if (!reader_->read_units(units, err)) return fail(err);
    for (const Unit &u : units)
      if (!unit(u)) return false;
    return true;
  }

 private:
  enum class Kind { kRoot, kScope, kFunc, kInline, kBlock, kSkip };

  // One open DIE and what its Breakpad handler holds.
  struct Frame {
    Kind kind = Kind::kSkip;
    uint64_t offset = 0;
    int level = 0;  // inline nesting of the inlined calls it holds
    // Naming (GenericDIEHandler).
    bool declaration = false, no_spec = false;
    const Spec *spec = nullptr;
    const std::string *abstract_origin = nullptr;
    uint64_t forward_ref = 0, spec_offset = 0;
    std::string name_attr, demangled, raw;
    std::string name;  // the qualified name (functions, scopes: also their children's context)
    // Code (functions, inlined calls).
    uint64_t low = 0, high = 0, high_form = kFormAddr;
    bool has_ranges = false;
    AttrValue ranges;
    bool inline_attr = false;
    int64_t call_line = 0, call_file = -1;
    std::vector<SymInline> inlines;  // the inlined calls directly under it
  };

  bool fail(const DebugError &err) {
    error_ = err.message();
    return false;
  }

  // PUBLIC: STT_FUNC symbols defined somewhere, in table order.
  bool publics() {
    for (const ElfSymbol &s : image_.symbols) {
      if (s.type != kSymFunc || s.shndx == 0) continue;
      SymPublic p;
      p.address = s.value;
      if (!cxa_demangle(s.name, p.name)) p.name = s.name;
      m_.add_public(std::move(p));
    }
    return true;
  }

  // --- One unit --------------------------------------------------------------------------------

  bool unit(const Unit &u) {
    if (u.first_die >= u.end) return true;
    Die die;
    uint64_t next;
    DebugError err;
    if (!reader_->read_die(u, u.first_die, die, next, err)) return fail(err);
    if (die.tag != kTagCompileUnit && die.tag != kTagSkeletonUnit) return true;
    unit_ = &u;
    cu_low_ = 0;
    assembler_ = false;
    has_lines_ = false;
    line_offset_ = 0;
    functions_.clear();
    spec_functions_.clear();
    for (const AttrValue &a : die.attrs) {
      uint64_t v = 0;
      if (is_unsigned_value(a) || a.cls == AttrValue::kSigned) {
        v = a.cls == AttrValue::kSigned ? uint64_t(a.s) : a.u;
        if (a.name == kAtLanguage) assembler_ = v == kLangMipsAssembler;
      }
      if (!is_unsigned_value(a)) {
        if (a.cls == AttrValue::kString && a.name == kAtCompDir) comp_dir_ = a.str;
        continue;
      }
      if (a.name == kAtStmtList) has_lines_ = true, line_offset_ = v;
      if (a.name == kAtLowPc) cu_low_ = v;
    }
    if (die.has_children && !walk(u, next)) return false;
    return finish_unit(u);
  }

  // The unit's DIEs below its root, each given to the handler Breakpad would give it.
  bool walk(const Unit &u, uint64_t offset) {
    std::vector<Frame> stack(1);
    stack[0].kind = Kind::kRoot;
    Die die;
    DebugError err;
    while (!stack.empty()) {
      if (offset >= u.end) {
        err.section = sections_.info.name;
        err.error.name = kErrUnterminated;
        err.error.offset = u.offset;
        err.error.detail = "the unit's DIEs run past its end without closing their lists";
        return fail(err);
      }
      uint64_t next;
      if (!reader_->read_die(u, offset, die, next, err)) return fail(err);
      offset = next;
      if (die.tag == 0) {
        if (!finish(stack)) return false;
        continue;
      }
      Frame f;
      f.kind = child_kind(stack.back(), die.tag, f.level);
      f.offset = die.offset;
      if (f.kind != Kind::kSkip) {
        attributes(f, die);
        end_attributes(f, stack.back());
      }
      if (die.has_children) {
        stack.push_back(std::move(f));
      } else {
        stack.push_back(std::move(f));
        if (!finish(stack)) return false;
      }
    }
    return true;
  }

  // Breakpad's FindChildHandler of each handler (with inline records on).
  static Kind child_kind(const Frame &parent, uint64_t tag, int &level) {
    bool scope_tag = tag == kTagClass || tag == kTagStructure || tag == kTagUnion;
    switch (parent.kind) {
      case Kind::kRoot:
        if (tag == kTagSubprogram) return Kind::kFunc;
        if (scope_tag || tag == kTagNamespace || tag == kTagModule) return Kind::kScope;
        return Kind::kSkip;
      case Kind::kScope:
        if (tag == kTagSubprogram) return Kind::kFunc;
        if (scope_tag || tag == kTagNamespace) return Kind::kScope;
        return Kind::kSkip;
      case Kind::kFunc:
        level = 0;
        if (tag == kTagInlinedSubroutine) return Kind::kInline;
        if (tag == kTagLexicalBlock) return Kind::kBlock;
        return scope_tag ? Kind::kScope : Kind::kSkip;
      case Kind::kInline:
      case Kind::kBlock:
        level = parent.kind == Kind::kInline ? parent.level + 1 : parent.level;
        if (tag == kTagInlinedSubroutine) return Kind::kInline;
        if (tag == kTagLexicalBlock) return Kind::kBlock;
        return Kind::kSkip;
      case Kind::kSkip:
        return Kind::kSkip;
    }
    return Kind::kSkip;
  }

  void attributes(Frame &f, const Die &die) {
    for (const AttrValue &a : die.attrs) {
      if (a.cls == AttrValue::kString) {
        if (a.name == kAtName) {
          f.name_attr = a.str;
        } else if (a.name == kAtLinkageName || a.name == kAtMipsLinkageName) {
          std::string s = a.str;
          f.demangled.clear();
          f.raw.clear();
          // Breakpad demangles "_Z..." names only, and keeps the raw name when that fails.
          if (!(s.size() > 2 && s[0] == '_' && s[1] == 'Z') || !cxa_demangle(s, f.demangled)) f.raw = s;
        }
      } else if (a.cls == AttrValue::kReference) {
        reference(f, a.name, a.u);
      } else if (is_unsigned_value(a)) {
        uint64_t v = a.cls == AttrValue::kSigned ? uint64_t(a.s) : a.u;
        bool code = f.kind == Kind::kFunc || f.kind == Kind::kInline;
        if (code && a.name == kAtLowPc) {
          f.low = v;
        } else if (code && a.name == kAtHighPc) {
          f.high = v;
          f.high_form = a.form;
        } else if (code && a.name == kAtRanges) {
          f.has_ranges = true;
          f.ranges = a;
        } else if (f.kind == Kind::kFunc && a.name == kAtInline) {
          f.inline_attr = true;
        } else if (f.kind == Kind::kInline && a.name == kAtCallLine) {
          f.call_line = int64_t(int32_t(v));
        } else if (f.kind == Kind::kInline && a.name == kAtCallFile) {
          f.call_file = int64_t(int32_t(v));
        } else if (a.name == kAtDeclaration) {
          f.declaration = v != 0;
        }
      } else if (a.cls == AttrValue::kSigned && f.kind == Kind::kFunc && a.name == kAtInline) {
        f.inline_attr = true;
      }
    }
  }

  void reference(Frame &f, uint64_t name, uint64_t target) {
    if (name == kAtSpecification) {
      auto it = specs_.find(target);
      if (it != specs_.end()) {
        f.spec = &it->second;
      } else if (target > f.offset) {
        f.forward_ref = target;
      } else {
        f.no_spec = true;
      }
      f.spec_offset = target;
    } else if (name == kAtAbstractOrigin) {
      auto it = abstract_origins_.find(target);
      if (it != abstract_origins_.end()) {
        f.abstract_origin = &it->second;
      } else if (target > f.offset) {
        f.forward_ref = target;
      }
      f.spec_offset = target;
    }
  }

  // Breakpad's ComputeQualifiedName: the name, and the specification it leaves for others.
  std::string qualified_name(Frame &f, const Frame &parent) {
    const std::string *qualified = nullptr;
    if (!f.demangled.empty())
      qualified = &f.demangled;
    else if (f.spec && !f.spec->qualified.empty())
      qualified = &f.spec->qualified;
    const std::string *unqualified = nullptr, *enclosing = nullptr;
    if (!qualified) {
      if (!f.name_attr.empty())
        unqualified = &f.name_attr;
      else if (f.spec)
        unqualified = &f.spec->unqualified;
      else if (!f.raw.empty())
        unqualified = &f.raw;
      enclosing = f.spec ? &f.spec->enclosing : &parent.name;
    }
    std::string result;
    if (qualified)
      result = *qualified;
    else if (unqualified && enclosing)
      result = enclosing->empty() ? *unqualified : *enclosing + "::" + *unqualified;
    if ((f.declaration && qualified) || (unqualified && enclosing)) {
      Spec s;
      if (qualified) {
        s.qualified = *qualified;
      } else {
        s.enclosing = *enclosing;
        s.unqualified = *unqualified;
      }
      specs_[f.offset] = std::move(s);
    }
    return result;
  }

  void end_attributes(Frame &f, const Frame &parent) {
    switch (f.kind) {
      case Kind::kScope:
        f.name = qualified_name(f, parent);
        break;
      case Kind::kFunc:
        f.name = qualified_name(f, parent);
        if (f.name.empty() && f.abstract_origin) f.name = *f.abstract_origin;
        break;
      case Kind::kInline:
        if (f.abstract_origin) f.name = *f.abstract_origin;
        if (f.name.empty()) f.name = kNameOmitted;
        break;
      default:
        break;
    }
  }

  // The ranges of a function or inlined call; false only on a malformed range list.
  bool code_ranges(const Frame &f, std::vector<SymRange> &out) {
    out.clear();
    if (!f.has_ranges) {
      uint64_t high = is_address_form(f.high_form) ? f.high : f.high + f.low;
      out.push_back({f.low, high - f.low});
      return true;
    }
    // Breakpad reads sec_offset and rnglistx lists, from .debug_ranges (DWARF 2-4) or
    // .debug_rnglists with .debug_addr (5); without those sections the list is empty.
    const Unit &u = *unit_;
    bool rnglistx = f.ranges.form == kFormRnglistx;
    if (f.ranges.form != kFormSecOffset && !rnglistx) return true;
    if (u.version <= 4 ? !sections_.ranges.present() : !sections_.rnglists.present() || !sections_.addr.present())
      return true;
    std::vector<AddressRange> got;
    DebugError err;
    if (!read_range_list(*reader_, u, f.ranges.u, cu_low_, got, err)) return fail(err);
    for (const AddressRange &r : got) out.push_back({r.low, r.high - r.low});
    std::sort(out.begin(), out.end(), [](const SymRange &a, const SymRange &b) { return a.address < b.address; });
    return true;
  }

  // Breakpad's Finish of the innermost open DIE's handler; pops it.
  bool finish(std::vector<Frame> &stack) {
    Frame f = std::move(stack.back());
    stack.pop_back();
    switch (f.kind) {
      case Kind::kFunc:
        return finish_function(f);
      case Kind::kInline:
        return finish_inline(f, stack.back());
      case Kind::kBlock: {
        std::vector<SymInline> &into = stack.back().inlines;
        for (SymInline &in : f.inlines) into.push_back(std::move(in));
        return true;
      }
      default:
        return true;
    }
  }

  bool finish_function(Frame &f) {
    if (!f.name.empty()) {
      auto fwd = forward_funcs_.find(f.offset);
      if (fwd != forward_funcs_.end()) {
        SymFunction *g = fwd->second;
        if (m_.find_function(g->address, g->name) == g)
          m_.rename_function(g, f.name);
        else
          g->name = f.name;
      }
    }
    std::vector<SymRange> ranges;
    if (!code_ranges(f, ranges)) return false;
    uint64_t total = 0;
    for (const SymRange &r : ranges) total += r.size;
    bool empty = total == 0;
    if (!empty) {
      auto func = std::make_unique<SymFunction>();
      func->name = f.name.empty() ? kNameOmitted : f.name;
      func->address = ranges.front().address;
      func->ranges = ranges;
      if (func->address) {
        func->inlines = std::move(f.inlines);
        if (f.forward_ref) {
          forward_funcs_[f.forward_ref] = func.get();
          spec_functions_[func.get()] = f.forward_ref;
        }
        functions_.push_back(std::move(func));
      }
    } else if (f.inline_attr) {
      abstract_origins_.emplace(f.offset, f.name);
    }
    if (!empty || f.inline_attr) {
      origin_map_.set_reference(f.offset, f.spec_offset ? f.spec_offset : f.offset);
      origin_map_.get_or_create(f.offset, f.name.empty() ? kNameOmitted : f.name);
    }
    return true;
  }

  bool finish_inline(Frame &f, Frame &parent) {
    SymInline in;
    if (!code_ranges(f, in.ranges)) return false;
    if (in.ranges.empty()) return true;  // its inlined calls go with it
    origin_map_.set_reference(f.spec_offset, f.spec_offset);
    in.origin = origin_map_.get_or_create(f.spec_offset, f.name);
    in.call_line = f.call_line;
    in.call_file_number = f.call_file;  // a file once the unit's line table is read
    in.nest_level = f.level;
    in.children = std::move(f.inlines);
    parent.inlines.push_back(std::move(in));
    return true;
  }

  // --- End of a unit: lines, files of inlined calls, functions into the module ----------------

  bool finish_unit(const Unit &u) {
    if (assembler_) {
      // Breakpad skips units in assembly: their functions go, and forward references to them.
      for (auto &[fn, target] : spec_functions_) forward_funcs_.erase(target);
      return true;
    }
    std::map<uint32_t, const SymSourceFile *> files;
    std::vector<SymLine> lines;
    if (has_lines_ && !read_lines(u, files, lines)) return false;
    std::sort(functions_.begin(), functions_.end(),
              [](const std::unique_ptr<SymFunction> &a, const std::unique_ptr<SymFunction> &b) {
                return a->address < b->address;
              });
    assign_lines(lines);
    for (auto &fn : functions_) resolve_call_files(fn->inlines, files);
    for (auto &fn : functions_) {
      SymFunction *raw = fn.get();
      if (!m_.add_function(std::move(fn))) {
        auto it = spec_functions_.find(raw);
        if (it != spec_functions_.end()) forward_funcs_.erase(it->second);
      }
    }
    functions_.clear();
    return true;
  }

  // The unit's line program as Breakpad's DwarfLineToModule receives it: its file table, and
  // one line per row of a sequence up to the next row.
  bool read_lines(const Unit &u, std::map<uint32_t, const SymSourceFile *> &files, std::vector<SymLine> &lines) {
    if (!sections_.line.present() || line_offset_ >= sections_.line.size) return true;
    LineTable t;
    DebugError err;
    if (!read_line_table(*reader_, u, line_offset_, t, err)) return fail(err);
    std::map<uint32_t, std::string> dirs;
    auto define_file = [&](const std::string &name, uint32_t n, uint64_t dir) {
      std::string dir_name;
      if (dir == 0) {
        dir_name = comp_dir_;
      } else {
        auto it = dirs.find(uint32_t(dir));
        if (it != dirs.end()) dir_name = it->second;
      }
      files[n] = m_.file(expand_path(name, dir_name));
    };
    if (t.version <= 4) {
      for (size_t i = 1; i < t.dirs.size(); i++) dirs[uint32_t(i)] = expand_path(t.dirs[i], comp_dir_);
      define_file("", 0, 0);
      for (size_t i = 1; i < t.files.size(); i++) define_file(t.files[i].name, uint32_t(i), t.files[i].dir);
    } else {
      for (size_t i = 1; i < t.dirs.size(); i++) dirs[uint32_t(i)] = expand_path(t.dirs[i], comp_dir_);
      for (size_t i = 0; i < t.files.size(); i++) define_file(t.files[i].name, uint32_t(i), t.files[i].dir);
    }
    uint64_t omitted_end = 0;
    const LineRow *pending = nullptr;
    for (const LineRow &row : t.rows) {
      if (pending) add_line(*pending, row.address - pending->address, files, lines, omitted_end);
      pending = row.end_sequence ? nullptr : &row;
    }
    return true;
  }

  static void add_line(const LineRow &row, uint64_t length, const std::map<uint32_t, const SymSourceFile *> &files,
                       std::vector<SymLine> &lines, uint64_t &omitted_end) {
    if (length == 0) return;
    uint64_t address = row.address;
    if (address + length < address) length = -address;
    // A run of lines from address 0 on (a discarded function's) is left out.
    if (address == 0 || address == omitted_end) {
      omitted_end = address + length;
      return;
    }
    omitted_end = 0;
    auto it = files.find(row.file);
    if (it == files.end() || !it->second) return;
    lines.push_back({address, length, it->second, row.line});
  }

  // Breakpad's AssignLinesToFunctions: one pass over the functions' ranges and the lines in
  // address order, giving each range the parts of lines inside it.
  void assign_lines(std::vector<SymLine> &lines) {
    std::sort(lines.begin(), lines.end(), [](const SymLine &a, const SymLine &b) { return a.address < b.address; });
    struct Piece {
      uint64_t address, size;
      SymFunction *f;
    };
    std::vector<Piece> ranges;
    for (auto &fn : functions_)
      for (const SymRange &r : fn->ranges)
        if (r.size) ranges.push_back({r.address, r.size, fn.get()});
    std::sort(ranges.begin(), ranges.end(), [](const Piece &a, const Piece &b) { return a.address < b.address; });
    auto within = [](uint64_t start, uint64_t size, uint64_t a) { return a - start < size; };
    size_t ri = 0, li = 0;
    const Piece *range = ri < ranges.size() ? &ranges[ri] : nullptr;
    const SymLine *line = li < lines.size() ? &lines[li] : nullptr;
    if (!range && !line) return;
    uint64_t current = range && line ? std::min(range->address, line->address) : range ? range->address : line->address;
    if (current == kMaxAddress) return;
    while (range || line) {
      uint64_t next;
      if (range && current >= range->address) {
        if (line && current >= line->address) {
          uint64_t range_left = range->size - (current - range->address);
          uint64_t line_left = line->size - (current - line->address);
          next = current + std::min(range_left, line_left);
          SymLine piece = *line;
          piece.address = current;
          piece.size = next - current;
          range->f->lines.push_back(piece);
        } else {
          next = line && within(range->address, range->size, line->address) ? line->address
                                                                           : range->address + range->size;
        }
      } else if (line && current >= line->address) {
        next = range && within(line->address, line->size, range->address) ? range->address
                                                                         : line->address + line->size;
      } else {
        next = range && line ? std::min(range->address, line->address) : range ? range->address : line->address;
      }
      if (next == 0 || next == kMaxAddress) break;
      while (ri < ranges.size() && next >= ranges[ri].address && !within(ranges[ri].address, ranges[ri].size, next)) ri++;
      range = ri < ranges.size() ? &ranges[ri] : nullptr;
      while (li < lines.size() && next >= lines[li].address && !within(lines[li].address, lines[li].size, next)) li++;
      line = li < lines.size() ? &lines[li] : nullptr;
      if (next <= current) break;  // overlapping input: Breakpad asserts progress
      current = next;
    }
  }

  void resolve_call_files(std::vector<SymInline> &inlines, const std::map<uint32_t, const SymSourceFile *> &files) {
    for (SymInline &in : inlines) {
      auto f = files.find(uint32_t(in.call_file_number));
      in.call_file = in.call_file_number >= 0 && f != files.end() ? f->second : nullptr;
      resolve_call_files(in.children, files);
    }
  }

  const ElfImage &image_;
  SymModule &m_;
  std::string &error_;
  Sections sections_;
  std::unique_ptr<DebugInfoReader> reader_;
  OriginMap origin_map_;
  // Across units.
  std::unordered_map<uint64_t, Spec> specs_;
  std::unordered_map<uint64_t, std::string> abstract_origins_;  // subprograms that are only inline
  std::map<uint64_t, SymFunction *> forward_funcs_;             // a later DIE names these
  std::string comp_dir_;  // Breakpad keeps the last unit's when a unit has none
  // The current unit.
  const Unit *unit_ = nullptr;
  uint64_t cu_low_ = 0, line_offset_ = 0;
  bool assembler_ = false, has_lines_ = false;
  std::vector<std::unique_ptr<SymFunction>> functions_;
  std::map<SymFunction *, uint64_t> spec_functions_;
};

}  // namespace

bool dwarf_to_module(const ElfImage &image, SymModule &m, std::string &error) {
  return Converter(image, m, error).run();
}

}  // namespace sfu::tools::breakpad
