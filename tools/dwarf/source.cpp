// Address -> source frames, over the model of source_index.h. See source.h.
#include "tools/dwarf/source.h"

#include <cxxabi.h>

#include <cstdlib>
#include <cstring>

#include "tools/dwarf/source_index.h"

namespace sfu::tools::dwarf {
namespace {

// The Itanium demangling of `mangled` ("_Z..."), or "" when it is not one.
std::string itanium(const std::string &mangled) {
  if (mangled.compare(0, 2, "_Z") != 0) return "";
  int status = 0;
  char *out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
  if (status != 0 || !out) return "";
  std::string s(out);
  std::free(out);
  return s;
}

}  // namespace

SourceImage::SourceImage() = default;
SourceImage::~SourceImage() = default;
SourceImage::SourceImage(SourceImage &&) noexcept = default;
SourceImage &SourceImage::operator=(SourceImage &&) noexcept = default;

bool SourceImage::load(const ElfImage &image, std::string &error) {
  auto idx = std::make_unique<SourceIndex>();
  if (!build_source_index(image, *idx, error)) return false;
  index_ = std::move(idx);
  return true;
}

bool SourceImage::has_debug_info() const { return index_ && index_->has_debug_info; }

std::vector<SourceFrame> SourceImage::frames_at(uint64_t addr) const {
  if (!index_) return {};
  return source_frames(*index_, addr);
}

std::vector<SourceFrame> source_frames(const SourceIndex &idx, uint64_t addr) {
  std::vector<SourceFrame> frames;
  if (!idx.has_debug_info) return frames;
  int64_t unit = -1;
  idx.unit_ranges.visit(addr, [&](uint32_t id, uint64_t) {
    if (unit < 0 || id < unit) unit = id;
  });
  if (unit < 0) return frames;
  const UnitInfo &u = idx.units[unit];
  // The innermost function: the deepest DIE holding addr (the later one among equals).
  int64_t fn = -1;
  u.functions.visit(addr, [&](uint32_t id, uint64_t) {
    if (fn < 0 || idx.functions[id].depth > idx.functions[fn].depth ||
        (idx.functions[id].depth == idx.functions[fn].depth && id > fn))
      fn = id;
  });
  const LineRow *row = u.has_lines ? u.lookup.find(addr) : nullptr;
  if (fn < 0 && !row) return frames;
  auto known = [](std::string s) { return s.empty() ? std::string("??") : s; };
  auto name_of = [&](const FunctionInfo &f) { return known(f.symbol_name.empty() ? f.name : f.symbol_name); };
  SourceFrame first;
  if (fn >= 0 && !idx.functions[fn].name.empty()) {
    first.function = name_of(idx.functions[fn]);
  } else {  // no DIE (assembly), or one without a name: the symbol, as addr2line names it
    first.function = "??";
    for (uint32_t sec : idx.sections_at(addr)) {
      CodeSymbol sym = idx.code_symbol(sec, addr);
      if (sym.symbol >= 0) {
        first.function = idx.symbols[sym.symbol].name;
        break;
      }
    }
  }
  first.file = row ? known(idx.file_name(uint32_t(unit), row->file)) : "??";
  first.line = row ? row->line : 0;
  first.inlined = fn >= 0 && idx.functions[fn].tag == kTagInlinedSubroutine;
  frames.push_back(first);
  for (int64_t f = fn; f >= 0 && idx.functions[f].tag == kTagInlinedSubroutine && idx.functions[f].parent >= 0;) {
    const FunctionInfo &callee = idx.functions[f];
    const FunctionInfo &caller = idx.functions[callee.parent];
    SourceFrame frame;
    frame.function = name_of(caller);
    frame.file = callee.has_call_file ? known(idx.file_name(uint32_t(unit), callee.call_file)) : "??";
    frame.line = callee.call_line;
    frame.inlined = caller.tag == kTagInlinedSubroutine;
    frames.push_back(frame);
    f = callee.parent;
  }
  return frames;
}

std::string demangle(const std::string &name) {
  // Leading dots and dollars, and an "@VERSION" suffix, stay as they are around the name.
  size_t start = name.find_first_not_of(".$");
  if (start == std::string::npos) return name;
  size_t at = name.find('@', start);
  std::string core = name.substr(start, at == std::string::npos ? std::string::npos : at - start);
  std::string out = itanium(core);
  if (out.empty() && core.size() > 11 && core.compare(0, 8, "_GLOBAL_") == 0 && std::strchr("._$", core[8]) &&
      (core[9] == 'I' || core[9] == 'D') && core[10] == '_') {
    std::string rest = core.substr(11);
    std::string inner = rest.compare(0, 2, "_Z") == 0 ? itanium(rest) : rest;
    if (!inner.empty())
      out = std::string(core[9] == 'I' ? "global constructors keyed to " : "global destructors keyed to ") + inner;
  }
  if (out.empty()) return name;
  return name.substr(0, start) + out + (at == std::string::npos ? "" : name.substr(at));
}

}  // namespace sfu::tools::dwarf
