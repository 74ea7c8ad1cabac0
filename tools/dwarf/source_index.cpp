// Building the source model: units, line tables, function DIEs, symbols. See source_index.h.
#include "tools/dwarf/source_index.h"

#include <algorithm>
#include <unordered_map>

#include "tools/dwarf/reader.h"

namespace sfu::tools::dwarf {
namespace {

constexpr unsigned kMaxOriginChain = 16;  // abstract origins and specifications followed in a row

// Languages whose plain DW_AT_name binutils prints as it is (its mangle_style() is 0).
bool plain_language(uint64_t lang) {
  switch (lang) {
    case 0x01: case 0x02: case 0x05: case 0x06: case 0x07: case 0x09: case 0x0c: case 0x0f:
    case 0x12: case 0x1d: case 0x8001: case 0x8765: case 0x8004: case 0x8006: case 0x8007:
      return true;
    default:
      return false;
  }
}

bool is_function_tag(uint64_t tag) {
  return tag == kTagSubprogram || tag == kTagInlinedSubroutine || tag == kTagEntryPoint;
}

bool is_strx(uint64_t f) { return f == kFormStrx || (f >= kFormStrx1 && f <= kFormStrx4); }
bool is_addrx(uint64_t f) { return f == kFormAddrx || (f >= kFormAddrx1 && f <= kFormAddrx4); }

// What binutils takes as a number (its is_int_form): not rnglistx, loclistx, strings, blocks.
bool gnu_int_form(const AttrValue &a) {
  switch (a.form) {
    case kFormRnglistx: case kFormLoclistx: case kFormData16: return false;
    default:
      return a.cls == AttrValue::kAddress || a.cls == AttrValue::kConstant || a.cls == AttrValue::kSigned ||
             a.cls == AttrValue::kFlag || a.cls == AttrValue::kReference || a.cls == AttrValue::kSecOffset;
  }
}

// binutils' arange_add: empty ranges dropped; a range touching one already there extends it
// (the first found in list order); else it goes second in the list.
void gnu_arange_add(std::vector<AddressRange> &list, uint64_t low, uint64_t high) {
  if (low == high) return;
  if (list.empty()) {
    list.push_back({low, high});
    return;
  }
  for (AddressRange &r : list) {
    if (low == r.high) return void(r.high = high);
    if (high == r.low) return void(r.low = low);
  }
  list.insert(list.begin() + 1, {low, high});
}

// A step of naming a function: a DW_AT_name (kept only if no name yet) or a linkage name.
struct NameStep {
  bool linkage;
  bool plain;  // DW_AT_name in a C-like unit: binutils prints it as a linkage name
  const char *text;
};

class Builder {
 public:
  Builder(SourceIndex &idx, std::string &error) : idx_(idx), error_(error), reader_(idx.sections) {}

  bool run() {
    DebugError err;
    if (!reader_.read_units(units_, err)) return fail(err);
    idx_.units.resize(units_.size());
    // Languages first: a name may come from a DIE of a later unit, named by its language.
    for (size_t i = 0; i < units_.size(); i++) {
      Die die;
      uint64_t next;
      if (units_[i].first_die >= units_[i].end) continue;
      if (!reader_.read_die(units_[i], units_[i].first_die, die, next, err, false)) return fail(err);
      uint64_t v;
      if (const AttrValue *lang = die.find(kAtLanguage); lang && lang->as_unsigned(v)) idx_.units[i].language = v;
    }
    for (size_t i = 0; i < units_.size(); i++) {
      idx_.units[i].unit = units_[i];
      if (!read_unit(uint32_t(i))) return false;
    }
    // binutils reads no unit after one it cannot parse.
    bool stopped = false;
    for (UnitInfo &u : idx_.units) {
      stopped = stopped || u.gnu_stops;
      if (stopped) u.gnu_stops = true;
    }
    for (size_t i = 0; i < idx_.units.size(); i++) {
      UnitInfo &u = idx_.units[i];
      // The unit DIE's ranges, and its line table's (padding between functions has lines).
      for (const AddressRange &r : u.ranges) idx_.unit_ranges.add(r.low, r.high, uint32_t(i));
      u.lookup.ranges(u.line_ranges);
      for (auto [lo, hi] : u.line_ranges) idx_.unit_ranges.add(lo, hi, uint32_t(i));
      u.functions.build();
      u.gnu_functions.build();
    }
    idx_.unit_ranges.build();
    return true;
  }

 private:
  bool fail(const DebugError &err) {
    error_ = err.message();
    return false;
  }

  bool resolve(uint32_t u, AttrValue &a) {
    DebugError err;
    return reader_.resolve(units_[u], a, err) || fail(err);
  }

  uint32_t unit_of(uint64_t offset) const {
    auto it = std::upper_bound(units_.begin(), units_.end(), offset,
                               [](uint64_t o, const Unit &x) { return o < x.offset; });
    return uint32_t(it - units_.begin()) - 1;  // callers pass offsets inside .debug_info
  }

  // The unit DIE: bases, language, directory, ranges, line table; and binutils' view of it.
  bool read_unit(uint32_t ui) {
    UnitInfo &info = idx_.units[ui];
    const Unit &unit = units_[ui];
    if (unit.first_die >= unit.end) {
      info.gnu_stops = true;
      return true;
    }
    Die die;
    uint64_t next;
    DebugError err;
    if (!reader_.read_die(unit, unit.first_die, die, next, err, false)) return fail(err);
    if (die.tag == 0) {
      info.gnu_stops = true;  // binutils takes a null unit DIE for padding and reads no further
      return true;
    }
    const AttrValue *ranges = nullptr;
    uint64_t low = 0, high = 0, stmt_list = 0;
    bool has_low = false, has_high = false, high_relative = false, has_stmt = false;
    // binutils' reading, in attribute order: index forms met before their base wait for it.
    uint64_t gnu_base = 0, gnu_low = 0, gnu_high = 0;
    bool gnu_rel = false, str_known = false, addr_known = false;
    std::vector<AttrValue *> deferred;
    for (AttrValue &a : die.attrs) {
      bool wait = (!str_known && is_strx(a.form)) || (!addr_known && is_addrx(a.form));
      if (!resolve(ui, a)) return false;
      uint64_t v = 0;
      bool num = a.as_unsigned(v);
      switch (a.name) {
        case kAtLanguage: if (num) info.language = v; break;
        case kAtCompDir: if (a.cls == AttrValue::kString) info.comp_dir = a.str; break;
        case kAtStmtList: if (num) has_stmt = true, stmt_list = v; break;
        case kAtLowPc: if (num) has_low = true, low = v; break;
        case kAtHighPc: if (num) has_high = true, high = v, high_relative = a.form != kFormAddr; break;
        case kAtRanges: ranges = &a; break;
        case kAtStrOffsetsBase: str_known = num && v != 0; break;
        case kAtAddrBase: addr_known = num && v != 0; break;
        default: break;
      }
      if (wait) {
        deferred.push_back(&a);
        continue;
      }
      if (a.name == kAtLowPc && gnu_int_form(a)) {
        gnu_low = v;
        if (die.tag == kTagCompileUnit) gnu_base = v;
      }
      if (a.name == kAtHighPc && gnu_int_form(a)) gnu_high = v, gnu_rel = a.form != kFormAddr;
      if (a.name == kAtRanges && gnu_int_form(a) && !gnu_ranges(ui, v, gnu_base, info.gnu_ranges, info.gnu_stops))
        return false;
    }
    for (AttrValue *a : deferred) {
      uint64_t v = 0;
      a->as_unsigned(v);
      if (a->name == kAtLowPc) {
        gnu_low = v;
        if (die.tag == kTagCompileUnit) gnu_base = v;
      }
      if (a->name == kAtHighPc) gnu_high = v, gnu_rel = true;
    }
    if (gnu_rel) gnu_high += gnu_low;
    if (gnu_high != 0) gnu_arange_add(info.gnu_ranges, gnu_low, gnu_high);
    base_ = has_low ? low : 0;
    gnu_base_ = gnu_base;
    if (ranges) {
      if (!list(ui, *ranges, base_, info.ranges)) return false;
    } else if (has_low && has_high) {
      uint64_t end = high_relative ? low + high : high;
      if (low < end) info.ranges.push_back({low, end});
    }
    if (has_stmt) {
      if (!read_line_table(reader_, unit, stmt_list, info.lines, err)) return fail(err);
      info.has_lines = true;
      info.lookup.build(info.lines);
      if (info.lines.skipped_extended) info.gnu_unusable = true;  // binutils refuses such a table
    } else {
      info.gnu_unusable = true;  // no line table: binutils answers nothing from the unit
    }
    if (die.has_children && !read_functions(ui, next)) return false;
    return true;
  }

  // A range list as this reader reads it: every entry.
  bool list(uint32_t ui, const AttrValue &a, uint64_t base, std::vector<AddressRange> &out) {
    uint64_t offset;
    if (a.cls == AttrValue::kRangeList || a.cls == AttrValue::kSecOffset || a.cls == AttrValue::kConstant) {
      offset = a.u;
    } else {
      return true;  // a form that cannot be a list offset: no ranges
    }
    std::vector<AddressRange> got;
    DebugError err;
    if (!read_range_list(reader_, units_[ui], offset, base, got, err)) return fail(err);
    for (const AddressRange &r : got)
      if (r.low < r.high) out.push_back(r);
    return true;
  }

  // The same list as binutils 2.40 reads it: it stops at the first entry that goes through
  // .debug_addr and then gives up on the unit (`refused` set).
  bool gnu_ranges(uint32_t ui, uint64_t offset, uint64_t base, std::vector<AddressRange> &out, bool &refused) {
    std::vector<AddressRange> got;
    RangeListKinds kinds;
    DebugError err;
    if (!read_range_list(reader_, units_[ui], offset, base, got, err, &kinds)) return fail(err);
    size_t n = kinds.indexed ? kinds.before_indexed : got.size();
    for (size_t i = 0; i < n; i++) gnu_arange_add(out, got[i].low, got[i].high);
    if (kinds.indexed) refused = true;
    return true;
  }

  // The naming steps of the DIE at `offset` followed as binutils' find_abstract_instance does:
  // its names, and those of the DIE its DW_AT_specification names.
  bool origin_steps(uint64_t offset, unsigned depth, std::vector<NameStep> &out) {
    auto cached = origins_.find(offset);
    if (cached != origins_.end()) {
      out.insert(out.end(), cached->second.begin(), cached->second.end());
      return true;
    }
    if (depth >= kMaxOriginChain) {
      DebugError err;
      err.section = idx_.sections.info.name;
      cfi::Reader(nullptr, 0, 0, false, 8, err.error)
          .fail(kErrReferenceLoop, offset, "more than " + std::to_string(kMaxOriginChain) + " origins in a row");
      return fail(err);
    }
    uint32_t ui = unit_of(offset);
    Die die;
    uint64_t next;
    DebugError err;
    if (!reader_.read_die(units_[ui], offset, die, next, err, false)) return fail(err);
    if (die.tag == 0) {
      err.section = idx_.sections.info.name;
      cfi::Reader(nullptr, 0, 0, false, 8, err.error).fail(kErrBadReference, offset, "reference to a null entry");
      return fail(err);
    }
    std::vector<NameStep> steps;
    bool plain = plain_language(idx_.units[ui].language);
    for (AttrValue &a : die.attrs) {
      if (a.name == kAtName || a.name == kAtLinkageName || a.name == kAtMipsLinkageName) {
        if (!resolve(ui, a)) return false;
        if (a.cls == AttrValue::kString) steps.push_back({a.name != kAtName, plain, a.str});
      } else if (a.name == kAtSpecification && a.cls == AttrValue::kReference) {
        if (!origin_steps(a.u, depth + 1, steps)) return false;
      }
    }
    origins_.emplace(offset, steps);
    out.insert(out.end(), steps.begin(), steps.end());
    return true;
  }

  // Every function DIE under the unit DIE, with its enclosing function.
  bool read_functions(uint32_t ui, uint64_t offset) {
    const Unit &unit = units_[ui];
    UnitInfo &info = idx_.units[ui];
    std::vector<int32_t> open{-1};  // per open DIE with children: its function id or -1
    Die die;
    DebugError err;
    while (!open.empty()) {
      if (offset >= unit.end) {
        err.section = idx_.sections.info.name;
        cfi::Reader(nullptr, 0, 0, false, 8, err.error)
            .fail(kErrUnterminated, unit.offset, "the unit's DIEs run past its end without closing their lists");
        return fail(err);
      }
      uint64_t next;
      if (!reader_.read_die(unit, offset, die, next, err, false)) return fail(err);
      offset = next;
      if (die.tag == 0) {
        open.pop_back();
        continue;
      }
      int32_t id = -1;
      if (is_function_tag(die.tag)) {
        id = int32_t(idx_.functions.size());
        if (!read_function(ui, die, open)) return false;
        for (const AddressRange &r : idx_.functions.back().ranges) info.functions.add(r.low, r.high, uint32_t(id));
        for (const AddressRange &r : idx_.functions.back().gnu_ranges)
          info.gnu_functions.add(r.low, r.high, uint32_t(id));
      }
      if (die.has_children) open.push_back(id);
    }
    return true;
  }

  bool read_function(uint32_t ui, Die &die, const std::vector<int32_t> &open) {
    FunctionInfo f;
    f.tag = die.tag;
    f.die = die.offset;
    f.unit = ui;
    for (auto it = open.rbegin(); it != open.rend(); ++it) {
      if (*it < 0) continue;
      if (f.parent < 0) f.parent = *it;
      f.depth++;
    }
    bool plain = plain_language(idx_.units[ui].language);
    std::vector<NameStep> steps;
    uint64_t low = 0, high = 0;
    bool has_low = false, high_relative = false, gnu_refused = false;
    const AttrValue *ranges = nullptr;
    for (AttrValue &a : die.attrs) {
      uint64_t v = 0;
      switch (a.name) {
        case kAtName:
        case kAtLinkageName:
        case kAtMipsLinkageName:
          if (!resolve(ui, a)) return false;
          if (a.cls == AttrValue::kString) steps.push_back({a.name != kAtName, plain, a.str});
          break;
        case kAtAbstractOrigin:
        case kAtSpecification:
          if (a.cls == AttrValue::kReference && !origin_steps(a.u, 0, steps)) return false;
          break;
        case kAtLowPc:
          if (!resolve(ui, a)) return false;
          if (a.as_unsigned(v)) has_low = true, low = v;
          break;
        case kAtHighPc:
          if (!resolve(ui, a)) return false;
          if (a.as_unsigned(v)) high = v, high_relative = a.form != kFormAddr;
          break;
        case kAtRanges:
          if (!resolve(ui, a)) return false;
          ranges = &a;
          if (gnu_int_form(a) && a.as_unsigned(v) && !gnu_ranges(ui, v, gnu_base_, f.gnu_ranges, gnu_refused))
            return false;
          break;
        case kAtCallFile:
          if (a.as_unsigned(v)) f.has_call_file = true, f.call_file = v;
          break;
        case kAtCallLine:
          if (a.as_unsigned(v)) f.call_line = uint32_t(v);
          break;
        default:
          break;
      }
    }
    if (gnu_refused) idx_.units[ui].gnu_unusable = true;
    bool has_name = false;
    for (const NameStep &s : steps) {
      if (!s.linkage && has_name) continue;
      f.name = s.text;
      has_name = true;
      if (s.linkage || s.plain) f.linkage = true;
    }
    uint64_t end = high_relative ? low + high : high;
    if (high != 0) gnu_arange_add(f.gnu_ranges, low, end);
    if (ranges && !list(ui, *ranges, base_, f.ranges)) return false;
    if (has_low && high != 0 && low < end) f.ranges.push_back({low, end});
    idx_.functions.push_back(std::move(f));
    return true;
  }

  SourceIndex &idx_;
  std::string &error_;
  DebugInfoReader reader_;
  std::vector<Unit> units_;
  uint64_t base_ = 0, gnu_base_ = 0;  // the current unit's base address, as read and as binutils has it
  std::unordered_map<uint64_t, std::vector<NameStep>> origins_;
};


// binutils' code-symbol choice: per section, each symbol that may be a function, keyed by its
// offset in the section; at one offset the largest, then the first, wins.
void index_symbols(SourceIndex &idx) {
  const bool aarch64 = idx.image.machine == kEmAarch64;
  idx.symbol_starts.assign(idx.image.sections.size(), {});
  int32_t file = -1;
  enum { kNothing, kSymbolSeen, kFileAfterSymbol } state = kNothing;
  for (size_t i = 0; i < idx.symbols.size(); i++) {
    const ElfSymbol &s = idx.symbols[i];
    if (s.type == kSymFile) {
      file = int32_t(i);
      if (state == kSymbolSeen) state = kFileAfterSymbol;
      continue;
    }
    bool local = s.bind == kBindLocal;
    bool candidate = s.shndx != 0 && s.shndx < kShnLoReserve && s.shndx < idx.image.sections.size();
    if (s.type == kSymSection || s.type == kSymObject || s.type == kSymCommon || s.type == kSymTls ||
        s.type == 8 /* STT_RELC */ || s.type == 9 /* STT_SRELC */)
      candidate = false;
    if (s.size == 0 && local && s.type == kSymNotype && s.visibility == kVisHidden) candidate = false;  // annobin
    if (aarch64) {
      if (s.type != kSymNotype && s.type != kSymFunc) candidate = false;
      if (is_mapping_symbol(idx.image.machine, s)) candidate = false;
    }
    if (candidate) {
      CodeSymbol pick{int32_t(i), s.size ? s.size : 1,
                      (local || state != kFileAfterSymbol) ? file : -1};
      uint64_t off = s.value - idx.image.sections[s.shndx].addr;
      idx.symbol_starts[s.shndx].push_back({off, pick});
    }
    if (state == kNothing) state = kSymbolSeen;
  }
  for (auto &starts : idx.symbol_starts) {
    std::stable_sort(starts.begin(), starts.end(),
                     [](const SourceIndex::SymbolStart &a, const SourceIndex::SymbolStart &b) { return a.offset < b.offset; });
    std::vector<SourceIndex::SymbolStart> best;  // one per offset: the largest, the first of equals
    for (const auto &s : starts) {
      if (!best.empty() && best.back().offset == s.offset) {
        if (s.pick.size > best.back().pick.size) best.back() = s;
      } else {
        best.push_back(s);
      }
    }
    starts.swap(best);
  }
}

}  // namespace

// The debug sections of the image; a compressed one is refused (not supported here).
bool find_debug_sections(const ElfImage &image, Sections &s, std::string &error) {
  s.big_endian = image.big_endian;
  for (Section *sec : {&s.info, &s.abbrev, &s.str, &s.line_str, &s.str_offsets, &s.addr, &s.line, &s.ranges,
                       &s.rnglists}) {
    const ElfSectionHeader *h = image.section(sec->name);
    if (!h || h->type == kShtNobits) continue;
    if (h->flags & kShfCompressed) return (error = std::string(sec->name) + ": compressed sections are not supported", false);
    if (h->offset > image.file.size() || h->size > image.file.size() - h->offset)
      return (error = "truncated ELF file (section " + h->name + ")", false);
    sec->data = image.file.data() + h->offset;
    sec->size = h->size;
  }
  return true;
}

void IntervalIndex::build() {
  std::sort(entries_.begin(), entries_.end(), [](const Entry &a, const Entry &b) {
    if (a.low != b.low) return a.low < b.low;
    if (a.high != b.high) return a.high < b.high;
    return a.id < b.id;
  });
  reach_.resize(entries_.size());
  uint64_t reach = 0;
  for (size_t i = 0; i < entries_.size(); i++) reach_[i] = reach = std::max(reach, entries_[i].high);
}

std::vector<uint32_t> SourceIndex::sections_at(uint64_t addr) const {
  std::vector<uint32_t> out;
  for (const ElfSectionHeader &s : image.sections)
    if ((s.flags & kShfAlloc) && addr >= s.addr && addr - s.addr < s.size) out.push_back(s.index);
  return out;
}

CodeSymbol SourceIndex::code_symbol(uint32_t shndx, uint64_t addr) const {
  if (shndx >= symbol_starts.size()) return {};
  const auto &starts = symbol_starts[shndx];
  uint64_t off = addr - image.sections[shndx].addr;
  auto it = std::upper_bound(starts.begin(), starts.end(), off,
                             [](uint64_t o, const SymbolStart &s) { return o < s.offset; });
  if (it == starts.begin()) return {};
  return (it - 1)->pick;
}

std::string SourceIndex::file_name(uint32_t u, uint64_t index) const {
  const UnitInfo &info = units[u];
  std::string path;
  if (!info.has_lines || !line_file_path(info.lines, index, info.comp_dir, path)) return "";
  return path;
}

// An out-of-line function whose DWARF gives no linkage name in a C++ unit (static functions,
// extern "C", main, clones) is known by the symbol at its entry, mangled as the other names are
// (binutils names it so once it has looked it up).
void name_from_symbols(SourceIndex &idx) {
  for (FunctionInfo &f : idx.functions) {
    if (f.linkage || f.tag == kTagInlinedSubroutine) continue;  // inlined code has no symbol of its own
    const std::vector<AddressRange> &r = f.gnu_ranges.empty() ? f.ranges : f.gnu_ranges;
    if (r.empty()) continue;
    for (uint32_t sec : idx.sections_at(r[0].low)) {
      CodeSymbol sym = idx.code_symbol(sec, r[0].low);
      if (sym.symbol >= 0 && idx.symbols[sym.symbol].value == r[0].low) f.symbol_name = idx.symbols[sym.symbol].name;
      break;
    }
  }
}

bool build_source_index(ElfImage image, SourceIndex &out, std::string &error) {
  out.image = std::move(image);
  out.symbols = out.image.symbols;
  index_symbols(out);
  if (!find_debug_sections(out.image, out.sections, error)) return false;
  return build_source_index_from_sections(out, error);
}

bool build_source_index_from_sections(SourceIndex &out, std::string &error) {
  out.has_debug_info = out.sections.info.present() && out.sections.info.size > 0;
  if (!out.has_debug_info) return true;
  if (!Builder(out, error).run()) return false;
  name_from_symbols(out);
  return true;
}

}  // namespace sfu::tools::dwarf
