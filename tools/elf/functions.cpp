// Functions of an image, and the one holding an address. See functions.h.
#include "tools/elf/functions.h"

#include <algorithm>

#include "tools/elf/symbol_table.h"
#include "tools/text/format.h"

namespace sfu::tools {
namespace {

bool is_function(const ElfSymbol &s) { return s.type == kSymFunc || s.type == kSymGnuIfunc; }

// Lower is preferred among symbols at one address.
int rank(const ElfSymbol &s) {
  int bind = s.bind == kBindGlobal ? 0 : s.bind == kBindWeak ? 1 : 2;
  return (is_function(s) ? 0 : 3) + bind;
}

bool preferred(const ElfSymbol &a, const ElfSymbol &b) {
  if (rank(a) != rank(b)) return rank(a) < rank(b);
  if (a.size != b.size) return a.size > b.size;
  return a.name < b.name;
}

// A symbol that may name code, and the end of its section.
bool names_code(const ElfImage &image, const ElfSymbol &s, uint64_t &section_end) {
  if (!is_function(s) && s.type != kSymNotype) return false;
  if (s.name.empty() || s.name.rfind(".L", 0) == 0 || is_mapping_symbol(image.machine, s)) return false;
  if (s.type == kSymNotype && s.bind == kBindLocal && s.size == 0 && s.visibility == kVisHidden) return false;  // annobin
  if (s.shndx == 0 || s.shndx >= kShnLoReserve || s.shndx >= image.sections.size()) return false;
  const ElfSectionHeader &sec = image.sections[s.shndx];
  if (!(sec.flags & kShfAlloc) || !(sec.flags & kShfExecinstr)) return false;
  if (s.value < sec.addr || s.value - sec.addr >= sec.size) return false;  // _etext and the like
  section_end = sec.addr + sec.size;
  return true;
}

}  // namespace

std::vector<ImageFunction> image_functions(const ElfImage &image) {
  struct Candidate {
    const ElfSymbol *sym;
    uint64_t section_end;
  };
  std::vector<Candidate> all;
  for (const ElfSymbol &s : image.symbols) {
    uint64_t end;
    if (names_code(image, s, end)) all.push_back({&s, end});
  }
  // One symbol per address, the preferred one first.
  std::sort(all.begin(), all.end(), [](const Candidate &a, const Candidate &b) {
    return a.sym->value != b.sym->value ? a.sym->value < b.sym->value : preferred(*a.sym, *b.sym);
  });
  all.erase(std::unique(all.begin(), all.end(),
                        [](const Candidate &a, const Candidate &b) { return a.sym->value == b.sym->value; }),
            all.end());
  // Labels inside a function symbol with a size name its inside: left out.
  std::vector<Candidate> kept;
  for (const Candidate &c : all) {
    bool inside = false;
    for (size_t k = kept.size(); k-- > 0 && !inside;) {
      const ElfSymbol &p = *kept[k].sym;
      inside = p.size != 0 && c.sym->value < p.value + p.size;
      if (p.size != 0) break;  // only the nearest sized symbol before can hold it
    }
    if (!(inside && c.sym->type == kSymNotype)) kept.push_back(c);
  }
  std::vector<ImageFunction> out;
  for (size_t i = 0; i < kept.size(); i++) {
    const ElfSymbol &s = *kept[i].sym;
    uint64_t limit = kept[i].section_end;
    if (i + 1 < kept.size() && kept[i + 1].sym->value < limit) limit = kept[i + 1].sym->value;
    uint64_t size = s.size == 0 ? limit - s.value : std::min(s.size, limit - s.value);
    if (size != 0) out.push_back({s.name, s.value, size});
  }
  return out;
}

const ImageFunction *function_at(const ElfImage &image, uint64_t addr) {
  const std::vector<ImageFunction> &fns = image.functions;
  auto it = std::upper_bound(fns.begin(), fns.end(), addr,
                             [](uint64_t a, const ImageFunction &f) { return a < f.start; });
  if (it == fns.begin()) return nullptr;
  const ImageFunction &f = *(it - 1);
  return addr - f.start < f.size ? &f : nullptr;
}

std::string symbolize(const ElfImage &image, uint64_t addr) {
  const ImageFunction *f = function_at(image, addr);
  return f ? name_plus_offset(f->name, f->start, addr) : hex(addr);
}

std::string name_plus_offset(const std::string &name, uint64_t start, uint64_t pc) {
  return pc == start ? name : name + "+" + hex(pc - start);
}

}  // namespace sfu::tools
