// addr2line's answers. See addr2line.h.
#include "tools/dwarf/addr2line.h"

namespace sfu::tools::dwarf {
namespace {

// One function-line and one location line.
void print_level(std::string &out, const char *name, bool demangle_names, const char *file, uint32_t line,
                 uint32_t discriminator) {
  std::string fn = name && *name ? (demangle_names ? demangle(name) : std::string(name)) : std::string("??");
  out += fn + "\n" + (file ? file : "??") + ":";
  if (line == 0)
    out += "?\n";
  else if (discriminator != 0)
    out += std::to_string(line) + " (discriminator " + std::to_string(discriminator) + ")\n";
  else
    out += std::to_string(line) + "\n";
}

bool contains(const std::vector<AddressRange> &ranges, uint64_t addr) {
  for (const AddressRange &r : ranges)
    if (addr >= r.low && addr < r.high) return true;
  return false;
}

}  // namespace

Addr2line::Addr2line(const SourceIndex *index) : idx_(index) {
  if (!idx_) return;
  for (const FunctionInfo &f : idx_->functions) {
    names_.push_back(f.name);
    settled_.push_back(f.linkage);
  }
  decoded_.assign(idx_->units.size(), false);
}

CodeSymbol Addr2line::cached_symbol(uint32_t section, uint64_t addr) {
  uint64_t off = addr - idx_->image.sections[section].addr;
  if (cache_section_ == section && cache_.symbol >= 0) {
    uint64_t start = idx_->symbols[cache_.symbol].value - idx_->image.sections[section].addr;
    if (off >= start && off - start < cache_.size) return cache_;
  }
  cache_section_ = section;
  cache_ = idx_->code_symbol(section, addr);
  return cache_;
}

std::string Addr2line::lookup(uint64_t addr, bool demangle_names) {
  std::string out;
  if (!idx_) return "??\n??:0\n";
  for (uint32_t section : idx_->sections_at(addr)) {
    std::string file;
    bool has_file = false;
    uint32_t line = 0, discriminator = 0;
    int64_t fn = -1, inliner = -1, unit = -1;
    bool found = false;
    if (idx_->has_debug_info) {
      for (size_t u = 0; u < idx_->units.size() && !found; u++) {
        const UnitInfo &info = idx_->units[u];
        if (info.gnu_stops) break;
        if (info.gnu_unusable) continue;
        bool in_lines = false;
        if (decoded_[u])
          for (auto [lo, hi] : info.line_ranges) in_lines = in_lines || (addr >= lo && addr < hi);
        if (!info.gnu_ranges.empty() && !contains(info.gnu_ranges, addr) && !in_lines) continue;
        decoded_[u] = true;
        // The smallest range holding addr; among equal ones the later DIE.
        int64_t best = -1;
        uint64_t best_len = 0;
        info.gnu_functions.visit(addr, [&](uint32_t id, uint64_t len) {
          if (best < 0 || len < best_len || (len == best_len && id > best)) best = id, best_len = len;
        });
        fn = best;
        if (fn >= 0 && idx_->functions[fn].tag == kTagInlinedSubroutine) inliner = fn;
        const LineRow *row = info.has_lines ? info.lookup.find(addr) : nullptr;
        if (row) {
          uint64_t index = row->file_set ? row->file : (info.lines.version >= 5 ? 0 : 1);
          bool no_files = info.lines.files.size() <= (info.lines.version >= 5 ? 0u : 1u);
          if (!no_files || row->file_set) {
            file = idx_->file_name(uint32_t(u), index);
            if (file.empty() && !line_file_path(info.lines, index, info.comp_dir, file)) file = "<unknown>";
            has_file = !file.empty();
          }
          line = row->line;
          discriminator = row->discriminator;
        }
        found = row || fn >= 0;
        if (found) unit = int64_t(u);
      }
    }
    const char *name = nullptr;
    std::string name_text;
    if (fn >= 0 && settled_[fn]) {
      name_text = names_[fn];
      name = name_text.c_str();
    } else {
      CodeSymbol sym = cached_symbol(section, addr);
      if (sym.symbol >= 0) {
        name_text = idx_->symbols[sym.symbol].name;
        name = name_text.c_str();
        if (!has_file && sym.file >= 0) {
          file = idx_->symbols[sym.file].name;
          has_file = true;
        }
        found = true;
      }
      if (fn >= 0) {
        if (sym.symbol < 0) {
          name_text = names_[fn];
          name = name_text.c_str();
        } else if (!idx_->functions[fn].gnu_ranges.empty() &&
                   idx_->symbols[sym.symbol].value == idx_->functions[fn].gnu_ranges[0].low) {
          names_[fn] = name_text;
        }
        settled_[fn] = true;
      }
    }
    if (!found) continue;
    print_level(out, name, demangle_names, has_file ? file.c_str() : nullptr, line, discriminator);
    for (int64_t f = inliner; f >= 0;) {
      const FunctionInfo &callee = idx_->functions[f];
      if (callee.tag != kTagInlinedSubroutine || callee.parent < 0) break;
      std::string call_file;
      if (callee.has_call_file) {
        call_file = idx_->file_name(uint32_t(unit), callee.call_file);
        if (call_file.empty()) call_file = "<unknown>";
      }
      const std::string &caller = names_[callee.parent];
      print_level(out, caller.empty() ? nullptr : caller.c_str(), demangle_names,
                  callee.has_call_file ? call_file.c_str() : nullptr, callee.call_line, discriminator);
      f = callee.parent;
    }
    return out;
  }
  return "??\n??:0\n";
}

}  // namespace sfu::tools::dwarf
