#include "tools/symbols/select.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

namespace sfu::tools {
namespace {

constexpr uint16_t kShnLoReserve = 0xff00;

bool is_mapping_symbol(const std::string &n) {  // $x, $d, $a, $t and $x.<anything> (ARM)
  return n.size() >= 2 && n[0] == '$' && std::string("xdat").find(n[1]) != std::string::npos &&
         (n.size() == 2 || n[2] == '.');
}

// Lower is preferred among symbols at one address.
int rank(const ElfSymbol &s) {
  int bind = s.bind == kStbGlobal ? 0 : s.bind == kStbWeak ? 1 : 2;
  return (s.type == kSttFunc ? 0 : 3) + bind;
}

bool preferred(const ElfSymbol &a, const ElfSymbol &b) {
  if (rank(a) != rank(b)) return rank(a) < rank(b);
  if (a.size != b.size) return a.size > b.size;
  return a.name < b.name;
}

bool find_symbol(const ElfImage &image, const std::string &name, uint64_t &value) {
  for (const ElfSymbol &s : image.symbols)
    if (s.name == name && s.shndx != 0) return (value = s.value, true);
  return false;
}

bool range_end(const ElfImage &image, const std::string &text, uint64_t &value, std::string &error) {
  char *end = nullptr;
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
    value = std::strtoull(text.c_str(), &end, 0);
    if (*end == '\0') return true;
  }
  if (find_symbol(image, text, value)) return true;
  error = "--symbols-range: " + text + " is neither an address nor a symbol of the image";
  return false;
}

}  // namespace

bool symbol_range(const ElfImage &image, const std::string &spec, SymbolRange &range, std::string &error) {
  range = SymbolRange{};
  if (spec == "all") {
    range.label = "executable sections";
    return true;
  }
  if (spec.empty()) {
    if (find_symbol(image, "_stext", range.lo) && find_symbol(image, "_etext", range.hi) && range.lo < range.hi) {
      range.label = "[_stext, _etext)";
      return true;
    }
    range = SymbolRange{};
    range.label = "executable sections";
    return true;
  }
  size_t comma = spec.find(',');
  if (comma == std::string::npos) return (error = "--symbols-range takes START,END or all", false);
  std::string lo = spec.substr(0, comma), hi = spec.substr(comma + 1);
  if (!range_end(image, lo, range.lo, error) || !range_end(image, hi, range.hi, error)) return false;
  if (range.hi <= range.lo) return (error = "--symbols-range: END is not above START", false);
  range.label = "[" + lo + ", " + hi + ")";
  return true;
}

std::vector<SymbolFunction> select_functions(const ElfImage &image, const SymbolRange &range) {
  struct Candidate {
    ElfSymbol sym;
    uint64_t section_end;
  };
  std::vector<Candidate> all;
  for (const ElfSymbol &s : image.symbols) {
    if (s.type != kSttFunc && s.type != kSttNotype) continue;
    if (s.shndx == 0 || s.shndx >= kShnLoReserve || s.shndx >= image.sections.size()) continue;
    const ElfSectionHeader &sec = image.sections[s.shndx];
    if (!(sec.flags & kShfAlloc) || !(sec.flags & kShfExecinstr)) continue;
    if (s.name.rfind(".L", 0) == 0 || is_mapping_symbol(s.name)) continue;
    if (s.value < sec.addr || s.value >= sec.addr + sec.size) continue;  // _etext and the like
    if (range.hi != 0 && (s.value < range.lo || s.value >= range.hi)) continue;
    all.push_back({s, sec.addr + sec.size});
  }
  // One symbol per address, the preferred one first.
  std::sort(all.begin(), all.end(), [](const Candidate &a, const Candidate &b) {
    return a.sym.value != b.sym.value ? a.sym.value < b.sym.value : preferred(a.sym, b.sym);
  });
  all.erase(std::unique(all.begin(), all.end(),
                        [](const Candidate &a, const Candidate &b) { return a.sym.value == b.sym.value; }),
            all.end());
  // Labels inside a function with a size name its inside: left out.
  std::vector<Candidate> kept;
  for (const Candidate &c : all) {
    bool inside = false;
    for (size_t k = kept.size(); k-- > 0 && !inside;) {
      const ElfSymbol &p = kept[k].sym;
      inside = p.size != 0 && c.sym.value < p.value + p.size;
      if (p.size != 0) break;  // only the nearest sized symbol before can hold it
    }
    if (!(inside && c.sym.type == kSttNotype)) kept.push_back(c);
  }
  std::vector<SymbolFunction> out;
  for (size_t i = 0; i < kept.size(); i++) {
    const ElfSymbol &s = kept[i].sym;
    uint64_t limit = kept[i].section_end;
    if (i + 1 < kept.size() && kept[i + 1].sym.value < limit) limit = kept[i + 1].sym.value;
    if (range.hi != 0 && range.hi < limit) limit = range.hi;
    uint64_t size = s.size == 0 ? limit - s.value : std::min(s.size, limit - s.value);
    if (size != 0) out.push_back({s.name, s.value, size});
  }
  return out;
}

}  // namespace sfu::tools
