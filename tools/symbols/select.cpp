#include "tools/symbols/select.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "tools/text/format.h"

namespace sfu::tools {
namespace {

bool find_symbol(const ElfImage &image, const std::string &name, uint64_t &value) {
  for (const ElfSymbol &s : image.symbols)
    if (s.name == name && s.shndx != 0) return (value = s.value, true);
  return false;
}

// One end of --symbols-range: an address (text/format.h: hex with 0x, or decimal) when it starts
// with a digit, else a symbol's name.
bool range_end(const ElfImage &image, const std::string &text, uint64_t &value, std::string &error) {
  if (!text.empty() && std::isdigit(static_cast<unsigned char>(text[0]))) {
    if (parse_address(text, value)) return true;
    return (error = "--symbols-range: not an address: " + text, false);
  }
  if (find_symbol(image, text, value)) return true;
  error = "--symbols-range: " + text + " is neither an address nor a symbol of the image";
  return false;
}

bool split(const std::string &spec, std::string &lo, std::string &hi, std::string &error) {
  size_t comma = spec.find(',');
  if (comma == std::string::npos) return (error = "--symbols-range takes START,END or all", false);
  lo = spec.substr(0, comma), hi = spec.substr(comma + 1);
  for (const std::string *end : {&lo, &hi}) {
    uint64_t ignored;
    if (end->empty()) return (error = "--symbols-range takes START,END or all", false);
    if (std::isdigit(static_cast<unsigned char>((*end)[0])) && !parse_address(*end, ignored))
      return (error = "--symbols-range: not an address: " + *end, false);
  }
  return true;
}

}  // namespace

bool symbol_range_syntax(const std::string &spec, std::string &error) {
  std::string lo, hi;
  return spec.empty() || spec == "all" || split(spec, lo, hi, error);
}

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
  std::string lo, hi;
  if (!split(spec, lo, hi, error)) return false;
  if (!range_end(image, lo, range.lo, error) || !range_end(image, hi, range.hi, error)) return false;
  if (range.hi <= range.lo) return (error = "--symbols-range: END is not above START", false);
  range.label = "[" + lo + ", " + hi + ")";
  return true;
}

std::vector<SymbolFunction> select_functions(const ElfImage &image, const SymbolRange &range) {
  // The host's functions (tools/elf/functions.h) that start in the range, cut to its end: where
  // the table has a name for an address, it is the one the host tools give it.
  std::vector<SymbolFunction> out;
  for (const ImageFunction &f : image.functions) {
    if (range.hi != 0 && (f.start < range.lo || f.start >= range.hi)) continue;
    uint64_t size = range.hi != 0 ? std::min(f.size, range.hi - f.start) : f.size;
    out.push_back({f.name, f.start, size});
  }
  return out;
}

}  // namespace sfu::tools
