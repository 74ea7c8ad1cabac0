// An image's load bias (load_bias.h).
#include "tools/elf/load_bias.h"

#include <algorithm>
#include <map>
#include <vector>

#include "tools/elf/symbol_table.h"
#include "tools/text/format.h"

namespace sfu::tools {
namespace {

bool executable(const ElfSectionHeader &s) { return (s.flags & kShfAlloc) && (s.flags & kShfExecinstr) && s.size; }

// The defined symbols by value: where a registered range may start or end (no file or section
// symbols, no local labels, no aarch64 mapping symbols: nothing a kernel registers).
std::multimap<uint64_t, const ElfSymbol *> symbols_by_value(const ElfImage &image) {
  std::multimap<uint64_t, const ElfSymbol *> out;
  for (const ElfSymbol &s : image.symbols)
    if (s.shndx != 0 && !s.name.empty() && s.type != kSymFile && s.type != kSymSection &&
        s.name.rfind(".L", 0) != 0 && !is_mapping_symbol(image.machine, s))
      out.emplace(s.value, &s);
  return out;
}

// Whether a label (a symbol without a type, as a linker script defines) is at v.
bool label_at(const std::multimap<uint64_t, const ElfSymbol *> &by_value, uint64_t v) {
  auto [lo, hi] = by_value.equal_range(v);
  for (auto it = lo; it != hi; ++it)
    if (it->second->type == kSymNotype) return true;
  return false;
}

// "_stext" or "_etext/etext": the labels at v (the linker script's names a kernel registers),
// else every symbol there.
std::string names_at(const std::multimap<uint64_t, const ElfSymbol *> &by_value, uint64_t v) {
  auto [lo, hi] = by_value.equal_range(v);
  const bool labels = label_at(by_value, v);
  std::vector<std::string> names;
  for (auto it = lo; it != hi; ++it)
    if (!labels || it->second->type == kSymNotype) names.push_back(it->second->name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string out;
  for (const std::string &n : names) out += (out.empty() ? "" : "/") + n;
  return out;
}

}  // namespace

bool holds_code(const ElfImage &image, uint64_t lo, uint64_t hi) {
  for (const ElfSectionHeader &s : image.sections)
    if (executable(s) && lo < s.addr + s.size && s.addr < hi) return true;
  return false;
}

std::string bias_text(uint64_t bias) {
  if (bias == 0) return "0";
  return int64_t(bias) < 0 ? "-" + hex(0 - bias) : "+" + hex(bias);
}

bool find_load_bias(const ElfImage &image, uint64_t run_start, uint64_t run_end, LoadBias &out,
                    std::string &error) {
  out = LoadBias{};
  if (run_end <= run_start) return (error = "its text range " + hex(run_start) + "-" + hex(run_end) + " is empty", false);
  const uint64_t size = run_end - run_start;
  const std::multimap<uint64_t, const ElfSymbol *> by_value = symbols_by_value(image);
  // 1. Pairs of symbols `size` apart around code: each start once.
  std::vector<uint64_t> starts;
  for (auto it = by_value.begin(); it != by_value.end(); it = by_value.upper_bound(it->first)) {
    uint64_t lo = it->first;
    if (lo + size < lo || !by_value.count(lo + size) || !holds_code(image, lo, lo + size)) continue;
    starts.push_back(lo);
  }
  auto pair_name = [&](uint64_t lo) { return "[" + names_at(by_value, lo) + ", " + names_at(by_value, lo + size) + ")"; };
  auto found = [&](uint64_t lo, const std::string &what) {
    out.bias = run_start - lo;
    out.how = what + " (link address " + hex(lo) + ") ran at " + hex(run_start);
    return true;
  };
  if (starts.size() == 1) return found(starts[0], pair_name(starts[0]));
  if (starts.size() > 1) {
    if (std::find(starts.begin(), starts.end(), run_start) != starts.end()) return found(run_start, pair_name(run_start));
    for (uint64_t lo : starts) {
      auto [a, b] = by_value.equal_range(lo);
      for (auto it = a; it != b; ++it)
        if (it->second->name == "_stext") return found(lo, pair_name(lo));
    }
    // The one pair of labels (symbols without a type: a linker script's names, as the ranges a
    // kernel or program registers are), where the others pair a function or an object: the
    // distance between two of those is a coincidence of the layout.
    std::vector<uint64_t> labelled;
    for (uint64_t lo : starts)
      if (label_at(by_value, lo) && label_at(by_value, lo + size)) labelled.push_back(lo);
    if (labelled.size() == 1) return found(labelled[0], pair_name(labelled[0]));
    error = "its text range " + hex(run_start) + "-" + hex(run_end) + " (" + hex(size) + " bytes) fits " +
            std::to_string(starts.size()) + " places of the image:";
    for (size_t i = 0; i < starts.size() && i < 4; i++) error += (i ? "," : "") + std::string(" ") + pair_name(starts[i]) + " at " + hex(starts[i]);
    if (starts.size() > 4) error += ", ...";
    return false;
  }
  // 2. The executable sections, whole.
  uint64_t lo = UINT64_MAX, hi = 0;
  for (const ElfSectionHeader &s : image.sections)
    if (executable(s)) lo = std::min(lo, s.addr), hi = std::max(hi, s.addr + s.size);
  if (lo < hi && hi - lo == size) return found(lo, "the executable sections");
  error = "its text range " + hex(run_start) + "-" + hex(run_end) + " is " + hex(size) +
          " bytes: no two symbols of the image are that far apart around code (as the kernel's "
          "[_stext, _etext) would be)" +
          (lo < hi ? ", and its executable sections span " + hex(hi - lo) : ", and it has no executable section");
  return false;
}

bool given_load_bias(const ElfImage &image, uint64_t address, LoadBias &out, std::string &error) {
  std::vector<ElfSegment> segments;
  if (!read_segments(image, segments, error)) return false;
  if (!has_load_segment(segments)) return (error = "no loadable segment (PT_LOAD) to place at " + hex(address), false);
  const uint64_t link = load_address(segments);
  out.bias = address - link;
  out.how = "given: its first loaded byte (link address " + hex(link) + ") ran at " + hex(address);
  return true;
}

}  // namespace sfu::tools
