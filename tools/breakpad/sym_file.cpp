// Breakpad symbol files: the reader and the lookups of sym_file.h.
#include "tools/breakpad/sym_file.h"

#include <cctype>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <algorithm>

namespace sfu::tools::breakpad {
namespace {

// Ranges that may not overlap, keyed by their last address: the first one stored stays
// (Breakpad's RangeMap, kExclusiveRanges).
template <typename T>
class RangeMap {
 public:
  struct Range {
    uint64_t base;
    T entry;
  };
  bool store(uint64_t base, uint64_t size, const T &entry) {
    if (size == 0 || base + (size - 1) < base) return false;
    uint64_t high = base + (size - 1);
    auto lo = map_.lower_bound(base), hi = map_.lower_bound(high);
    if (lo != hi) return false;  // a range ends inside the new one
    if (hi != map_.end() && hi->second.base <= high) return false;
    map_.emplace(high, Range{base, entry});
    return true;
  }
  // The range holding `address`.
  const Range *find(uint64_t address, uint64_t *size = nullptr) const {
    auto it = map_.lower_bound(address);
    if (it == map_.end() || address < it->second.base) return nullptr;
    if (size) *size = it->first - it->second.base + 1;
    return &it->second;
  }
  // The range holding `address`, else the nearest one below it.
  const Range *find_nearest(uint64_t address, uint64_t *size) const {
    if (const Range *r = find(address, size)) return r;
    auto it = map_.upper_bound(address);
    if (it == map_.begin()) return nullptr;
    --it;
    *size = it->first - it->second.base + 1;
    return &it->second;
  }
  bool empty() const { return map_.empty(); }
  uint64_t lowest() const { return map_.begin()->second.base; }

 private:
  std::map<uint64_t, Range> map_;
};

// Ranges that nest, equal ones allowed (a later one nests inside): Breakpad's ContainedRangeMap
// as it holds a function's INLINE ranges. Iterative, so that deep nesting costs no stack.
class NestedRanges {
 public:
  bool store(uint64_t base, uint64_t size, size_t entry) {
    if (size == 0 || base + (size - 1) < base) return false;
    uint64_t high = base + (size - 1);
    NestedRanges *node = this;
    for (;;) {
      auto &children = node->children_;
      auto lo = children.lower_bound(base), hi = children.lower_bound(high);
      if (lo == hi && lo != children.end() && base >= lo->second->base_) {
        node = lo->second.get();  // inside one child (or equal to it): store there
        continue;
      }
      bool holds_high = hi != children.end() && high >= hi->second->base_;
      if ((lo != children.end() && base > lo->second->base_) || (holds_high && high < hi->first))
        return false;  // overlaps a child without holding it whole
      if (holds_high) ++hi;
      auto child = std::make_unique<NestedRanges>();
      child->base_ = base;
      child->entry_ = entry;
      for (auto it = lo; it != hi; ++it) child->children_.emplace(it->first, std::move(it->second));
      children.erase(lo, hi);
      children.emplace(high, std::move(child));
      return true;
    }
  }
  // Entries of the ranges holding `address`, innermost first.
  void find(uint64_t address, std::vector<size_t> &out) const {
    std::vector<size_t> outer_first;
    for (const NestedRanges *node = this;;) {
      auto it = node->children_.lower_bound(address);
      if (it == node->children_.end() || address < it->second->base_) break;
      node = it->second.get();
      outer_first.push_back(node->entry_);
    }
    out.assign(outer_first.rbegin(), outer_first.rend());
  }
  ~NestedRanges() {  // without recursing through deep nesting: each node is freed childless
    std::vector<std::unique_ptr<NestedRanges>> pending;
    for (auto &c : children_) pending.push_back(std::move(c.second));
    while (!pending.empty()) {
      std::unique_ptr<NestedRanges> n = std::move(pending.back());
      pending.pop_back();
      for (auto &c : n->children_) pending.push_back(std::move(c.second));
      n->children_.clear();
    }
  }
  NestedRanges() = default;
  NestedRanges(NestedRanges &&) = default;

 private:
  uint64_t base_ = 0;
  size_t entry_ = 0;
  std::map<uint64_t, std::unique_ptr<NestedRanges>> children_;
};

struct Line {
  uint64_t address, size;
  long line, file;
};

struct Inline {
  bool has_file;
  long level, call_line, call_file, origin;
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
};

struct Function {
  std::string name;
  bool multiple = false;
  RangeMap<Line> lines;
  std::vector<Inline> inlines;
  NestedRanges inline_ranges;
  long last_level = 0;  // Breakpad's nesting check: an INLINE at most one deeper than the last
};

struct Public {
  std::string name;
  bool multiple;
};

// Fields split at runs of spaces as Breakpad's Tokenize does: n - 1 words, then the rest of the
// line after the one space that ended the last of them as the n-th. False if there are fewer.
bool fields(const std::string &s, size_t n, std::vector<std::string> &out) {
  out.clear();
  size_t at = 0;
  while (out.size() + 1 < n) {
    while (at < s.size() && s[at] == ' ') at++;
    if (at == s.size()) return false;
    size_t end = s.find(' ', at);
    if (end == std::string::npos) end = s.size();
    out.push_back(s.substr(at, end - at));
    at = end;
  }
  if (at < s.size()) at++;  // the space that ended the last word
  if (at >= s.size()) return false;
  out.push_back(s.substr(at));
  return true;
}

// strtoull/strtol as Breakpad calls them: the number must end at a space or the end.
bool ends_number(const char *after) { return *after == '\0' || *after == ' '; }

bool hex_u64(const std::string &s, uint64_t &v) {
  char *after = nullptr;
  unsigned long long x = strtoull(s.c_str(), &after, 16);
  if (after == s.c_str() || !ends_number(after) || x == ULLONG_MAX) return false;
  v = x;
  return true;
}

bool number(const std::string &s, int base, long min, long &v) {
  char *after = nullptr;
  long x = strtol(s.c_str(), &after, base);
  if (after == s.c_str() || !ends_number(after) || x == LONG_MAX || x < min) return false;
  v = x;
  return true;
}

bool starts(const std::string &s, const char *prefix) { return s.compare(0, strlen(prefix), prefix) == 0; }

}  // namespace

struct SymbolFile::Model {
  std::string os, arch, id, module_name, code_id;
  std::map<long, std::string> files;
  std::map<long, std::string> origins;
  std::vector<std::unique_ptr<Function>> functions;  // every FUNC, stored or not
  RangeMap<Function *> function_ranges;
  std::map<uint64_t, Public> publics;
  RangeMap<std::string> cfi_init;
  std::map<uint64_t, std::string> cfi_delta;
  uint64_t lowest = UINT64_MAX;

  std::string name;
  size_t line_number = 0;
  std::string error;

  bool fail(const std::string &what) {
    error = name + ":" + std::to_string(line_number) + ": " + what;
    return false;
  }

  void note_address(uint64_t a) {
    if (a < lowest) lowest = a;
  }

  bool parse_func(const std::string &rest, Function *&current) {
    std::vector<std::string> f;
    std::string r = rest.substr(std::min(rest.find_first_not_of(' '), rest.size()));
    bool multiple = starts(r, "m ");
    if (!fields(multiple ? r.substr(2) : r, 4, f))
      return fail("FUNC needs an address, a size, a parameter size and a name");
    uint64_t address = 0, size = 0;
    long params = 0;
    if (!hex_u64(f[0], address)) return fail("FUNC address '" + f[0] + "' is not a hex number");
    if (!hex_u64(f[1], size)) return fail("FUNC size '" + f[1] + "' is not a hex number");
    if (!number(f[2], 16, 0, params)) return fail("FUNC parameter size '" + f[2] + "' is not a hex number");
    functions.push_back(std::make_unique<Function>());
    current = functions.back().get();
    current->name = f[3];
    current->multiple = multiple;
    if (function_ranges.store(address, size, current)) note_address(address);
    return true;
  }

  bool parse_public(const std::string &rest) {
    std::vector<std::string> f;
    std::string r = rest.substr(std::min(rest.find_first_not_of(' '), rest.size()));
    bool multiple = starts(r, "m ");
    if (!fields(multiple ? r.substr(2) : r, 3, f))
      return fail("PUBLIC needs an address, a parameter size and a name");
    uint64_t address = 0;
    long params = 0;
    if (!hex_u64(f[0], address)) return fail("PUBLIC address '" + f[0] + "' is not a hex number");
    if (!number(f[1], 16, 0, params)) return fail("PUBLIC parameter size '" + f[1] + "' is not a hex number");
    if (address != 0 && publics.emplace(address, Public{f[2], multiple}).second) note_address(address);
    return true;
  }

  bool parse_file(const std::string &rest) {
    std::vector<std::string> f;
    long index = 0;
    if (!fields(rest, 2, f)) return fail("FILE needs a number and a name");
    if (!number(f[0], 10, 0, index)) return fail("FILE number '" + f[0] + "' is not a decimal number");
    files.emplace(index, f[1]);
    return true;
  }

  bool parse_origin(const std::string &rest) {
    std::vector<std::string> f;
    long index = 0, file = 0;
    if (!fields(rest, 2, f)) return fail("INLINE_ORIGIN needs a number and a name");
    if (!number(f[0], 10, 0, index)) return fail("INLINE_ORIGIN number '" + f[0] + "' is not a decimal number");
    // The old form puts a file number before the name: a first word of digits (or "-1").
    const std::string &r = f[1];
    bool old_form = true;
    for (size_t i = 0; i < r.size() && r[i] != ' ' && old_form; i++)
      if (!(r[i] == '-' && i == 0)) old_form = isdigit(static_cast<unsigned char>(r[i])) != 0;
    std::string name_text = r;
    if (old_form) {
      std::vector<std::string> g;
      if (!fields(r, 2, g)) return fail("INLINE_ORIGIN (old form) needs a file number and a name");
      if (!number(g[0], 10, -1, file)) return fail("INLINE_ORIGIN file number '" + g[0] + "' is not a decimal number");
      name_text = g[1];
    }
    origins.emplace(index, name_text);
    return true;
  }

  bool parse_inline(const std::string &rest, Function *current) {
    if (!current) return fail("INLINE with no FUNC before it");
    std::vector<std::string> t;
    for (size_t at = 0; at < rest.size();) {
      size_t end = rest.find(' ', at);
      if (end == std::string::npos) end = rest.size();
      if (end > at) t.push_back(rest.substr(at, end - at));
      at = end + 1;
    }
    if (t.size() < 5) return fail("INLINE needs a nest level, a call line, an origin and at least one range");
    Inline in{t.size() % 2 == 0, 0, 0, 0, 0, {}};
    size_t k = 0;
    if (!number(t[k++], 10, 0, in.level)) return fail("INLINE nest level '" + t[0] + "' is not a decimal number");
    if (!number(t[k++], 10, 0, in.call_line)) return fail("INLINE call line '" + t[1] + "' is not a decimal number");
    if (in.has_file && !number(t[k++], 10, -1, in.call_file))
      return fail("INLINE call file '" + t[2] + "' is not a decimal number");
    if (!number(t[k], 10, 0, in.origin)) return fail("INLINE origin '" + t[k] + "' is not a decimal number");
    for (k++; k < t.size(); k += 2) {
      uint64_t a = 0, s = 0;
      if (!hex_u64(t[k], a) || !hex_u64(t[k + 1], s))
        return fail("INLINE range '" + t[k] + " " + t[k + 1] + "' is not two hex numbers");
      in.ranges.push_back({a, s});
    }
    if (in.level > current->last_level + 1) return true;  // its parent was never added
    current->last_level = in.level;
    current->inlines.push_back(in);
    for (const auto &[a, s] : in.ranges) current->inline_ranges.store(a, s, current->inlines.size() - 1);
    return true;
  }

  bool parse_line_record(const std::string &text, Function *current) {
    std::vector<std::string> f;
    Line l{};
    if (!fields(text, 4, f) || !hex_u64(f[0], l.address) || !hex_u64(f[1], l.size))
      return fail("'" + text.substr(0, text.find(' ')) + "' starts no record (a line record is ADDRESS SIZE LINE FILE)");
    if (!number(f[2], 10, 0, l.line)) return fail("line number '" + f[2] + "' is not a decimal number of 0 or more");
    if (!number(f[3], 10, 0, l.file)) return fail("file number '" + f[3] + "' is not a decimal number");
    if (!current) return fail("a line record with no FUNC before it (or a PUBLIC since)");
    current->lines.store(l.address, l.size, l);
    return true;
  }

  bool parse_stack(const std::string &rest) {
    size_t at = 0;
    while (at < rest.size() && rest[at] == ' ') at++;
    size_t end = rest.find(' ', at);
    if (end == std::string::npos) end = rest.size();
    std::string kind = rest.substr(at, end - at), body = end < rest.size() ? rest.substr(end + 1) : "";
    if (kind == "WIN") {
      std::vector<std::string> f;
      if (!fields(body, 11, f)) return fail("STACK WIN needs at least 11 fields");
      return true;
    }
    if (kind != "CFI") return fail("STACK '" + kind + "' is neither CFI nor WIN");
    std::vector<std::string> f;
    CfiRules scratch;
    std::string why;
    if (starts(body, "INIT ")) {
      if (!fields(body.substr(5), 3, f)) return fail("STACK CFI INIT needs an address, a size and rules");
      uint64_t address = 0, size = 0;
      if (!hex_u64(f[0], address) || !hex_u64(f[1], size))
        return fail("STACK CFI INIT address and size '" + f[0] + " " + f[1] + "' are not hex numbers");
      if (!parse_cfi_rules(f[2], scratch, &why)) return fail("STACK CFI INIT rules: " + why);
      if (cfi_init.store(address, size, f[2])) note_address(address);
      last_init = {address, size};
      return true;
    }
    if (!fields(body, 2, f)) return fail("STACK CFI needs an address and rules");
    uint64_t address = 0;
    if (!hex_u64(f[0], address)) return fail("STACK CFI address '" + f[0] + "' is not a hex number");
    if (!parse_cfi_rules(f[1], scratch, &why)) return fail("STACK CFI rules: " + why);
    if (last_init.second == 0) return fail("STACK CFI with no STACK CFI INIT before it");
    if (address < last_init.first || address - last_init.first >= last_init.second)
      return fail("STACK CFI at " + f[0] + " is outside the range of the STACK CFI INIT before it");
    cfi_delta[address] = f[1];
    return true;
  }

  std::pair<uint64_t, uint64_t> last_init{0, 0};
};

SymbolFile::SymbolFile() : m_(std::make_unique<Model>()) {}
SymbolFile::~SymbolFile() = default;
SymbolFile::SymbolFile(SymbolFile &&) noexcept = default;
SymbolFile &SymbolFile::operator=(SymbolFile &&) noexcept = default;

bool SymbolFile::load(const std::string &text, const std::string &name, std::string &error) {
  m_ = std::make_unique<Model>();
  Model &m = *m_;
  m.name = name;
  Function *current = nullptr;
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    m.line_number++;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    bool ok = true;
    if (line.find('\0') != std::string::npos)
      ok = m.fail("a NUL byte");
    else if (line.find('\r') != std::string::npos)
      ok = m.fail("a carriage return inside the line");
    else if (line.empty())
      continue;
    else if (starts(line, "FILE "))
      ok = m.parse_file(line.substr(5));
    else if (starts(line, "STACK "))
      ok = m.parse_stack(line.substr(6));
    else if (starts(line, "FUNC "))
      ok = m.parse_func(line.substr(5), current);
    else if (starts(line, "PUBLIC ")) {
      current = nullptr;  // lines after a PUBLIC belong to no function
      ok = m.parse_public(line.substr(7));
    } else if (starts(line, "MODULE ")) {
      std::vector<std::string> f;
      ok = fields(line.substr(7), 4, f) ? (m.os = f[0], m.arch = f[1], m.id = f[2], m.module_name = f[3], true)
                                        : m.fail("MODULE needs an OS, an architecture, an id and a name");
    } else if (starts(line, "INFO ")) {
      if (starts(line, "INFO CODE_ID ")) m.code_id = line.substr(13, line.find(' ', 13) - 13);
    } else if (starts(line, "INLINE "))
      ok = m.parse_inline(line.substr(7), current);
    else if (starts(line, "INLINE_ORIGIN "))
      ok = m.parse_origin(line.substr(14));
    else
      ok = m.parse_line_record(line, current);
    if (!ok) {
      error = m.error;
      return false;
    }
  }
  return true;
}

const std::string &SymbolFile::os() const { return m_->os; }
const std::string &SymbolFile::arch() const { return m_->arch; }
const std::string &SymbolFile::id() const { return m_->id; }
const std::string &SymbolFile::module_name() const { return m_->module_name; }
const std::string &SymbolFile::code_id() const { return m_->code_id; }
uint64_t SymbolFile::lowest_address() const { return m_->lowest == UINT64_MAX ? 0 : m_->lowest; }

SymbolAt SymbolFile::lookup(uint64_t address) const {
  const Model &m = *m_;
  SymbolAt out;
  uint64_t size = 0;
  const auto *func = m.function_ranges.find_nearest(address, &size);
  if (func && address >= func->base && address - func->base < size) {
    const Function &f = *func->entry;
    out.has_function = true;
    out.function = f.name;
    out.function_base = func->base;
    if (const auto *line = f.lines.find(address)) {
      out.has_line = true;
      auto file = m.files.find(line->entry.file);
      if (file != m.files.end()) out.file = file->second;
      out.line = line->entry.line;
      out.line_base = line->base;
    }
    std::vector<size_t> chain;
    f.inline_ranges.find(address, chain);
    // Each inlined frame starts with its call site (file: the line record's unless the INLINE
    // names a known one); then the line record's place moves to the innermost, each call site
    // one frame out, and the outermost call site to the function's own frame.
    std::string file = out.file;
    long line = out.line;
    for (size_t k : chain) {
      const Inline &in = f.inlines[k];
      InlineAt at;
      auto origin = m.origins.find(in.origin);
      at.function = origin != m.origins.end() ? origin->second : "<name omitted>";
      at.file = out.file;
      if (in.has_file) {
        auto cf = m.files.find(in.call_file);
        if (cf != m.files.end()) at.file = cf->second;
      }
      at.line = in.call_line;
      at.range_start = 0;
      for (const auto &[a, s] : in.ranges)
        if (address >= a && address - a < s) {
          at.range_start = a;
          break;
        }
      out.inlines.push_back(at);
    }
    if (!out.inlines.empty()) {
      out.file = out.inlines.back().file;
      out.line = out.inlines.back().line;
      for (InlineAt &at : out.inlines) {
        std::swap(at.file, file);
        std::swap(at.line, line);
      }
    }
    return out;
  }
  auto pub = m.publics.upper_bound(address);
  if (pub != m.publics.begin()) {
    --pub;
    if (!func || pub->first > func->base) {
      out.has_function = out.from_public = true;
      out.function = pub->second.name;
      out.function_base = pub->first;
    }
  }
  return out;
}

bool SymbolFile::cfi_rules(uint64_t address, CfiRules &out) const {
  const Model &m = *m_;
  out = CfiRules{};
  const auto *init = m.cfi_init.find(address);
  if (!init || !parse_cfi_rules(init->entry, out)) return false;
  for (auto it = m.cfi_delta.lower_bound(init->base); it != m.cfi_delta.end() && it->first <= address; ++it)
    parse_cfi_rules(it->second, out);
  return true;
}

}  // namespace sfu::tools::breakpad
