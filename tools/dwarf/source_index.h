// The loaded model behind source.h and addr2line.h: every unit of an image's DWARF with its line
// table and the function DIEs (subprograms, inlined subroutines, entry points) with their names,
// address ranges, enclosing function and call site; plus the ELF symbols a lookup falls back to.
// Each unit and function also carries what GNU binutils 2.40 makes of it, where that differs
// (range-list forms it does not read, units it stops at), for addr2line.h. Internal to
// tools/dwarf/: other tools use source.h.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/dwarf/debug_info.h"
#include "tools/dwarf/line_table.h"
#include "tools/dwarf/ranges.h"
#include "tools/dwarf/source.h"
#include "tools/elf/elf_file.h"
#include "tools/elf/symbol_table.h"

namespace sfu::tools::dwarf {

// [low, high) intervals with a number each; finds every interval holding an address, visiting
// only those that start at or before it and whose running maximum end passes it.
class IntervalIndex {
 public:
  void add(uint64_t low, uint64_t high, uint32_t id) {
    if (low < high) entries_.push_back({low, high, id});
  }
  void build();
  template <class Visit>
  void visit(uint64_t addr, Visit visit_entry) const {
    size_t lo = 0, hi = entries_.size();
    while (lo < hi) {  // first entry whose running maximum end is past addr
      size_t mid = (lo + hi) / 2;
      if (reach_[mid] <= addr) lo = mid + 1; else hi = mid;
    }
    for (size_t i = lo; i < entries_.size() && entries_[i].low <= addr; i++)
      if (addr < entries_[i].high) visit_entry(entries_[i].id, entries_[i].high - entries_[i].low);
  }

 private:
  struct Entry {
    uint64_t low, high;
    uint32_t id;
  };
  std::vector<Entry> entries_;
  std::vector<uint64_t> reach_;
};

struct FunctionInfo {
  uint64_t tag = 0;
  uint64_t die = 0;          // .debug_info offset
  uint32_t unit = 0;
  int32_t parent = -1;       // the nearest enclosing function DIE, -1 for none
  uint32_t depth = 0;        // function DIEs around it
  std::string name;          // DW_AT_linkage_name (or its DW_AT_name) through abstract origins
  bool linkage = false;      // binutils' is_linkage: a linkage name, or a name in a C-like unit
  std::string symbol_name;   // without `linkage`: the code symbol starting at its entry, if any
  bool has_call_file = false;
  uint64_t call_file = 0;
  uint32_t call_line = 0;
  std::vector<AddressRange> ranges;      // every non-empty range
  std::vector<AddressRange> gnu_ranges;  // binutils' view: no rnglistx, merged as it merges them
};

struct UnitInfo {
  Unit unit;
  uint64_t language = 0;
  const char *comp_dir = nullptr;  // into the image's bytes (SourceIndex keeps the image)
  bool has_lines = false;
  LineTable lines;
  LineLookup lookup;
  std::vector<AddressRange> ranges;      // of the unit DIE
  std::vector<AddressRange> gnu_ranges;  // binutils' view of them
  std::vector<std::pair<uint64_t, uint64_t>> line_ranges;  // of the line table's sequences
  bool gnu_stops = false;     // binutils cannot parse this unit DIE: it and every later unit are unseen
  bool gnu_unusable = false;  // binutils reads it but answers nothing from it
  IntervalIndex functions;      // FunctionInfo ids by range
  IntervalIndex gnu_functions;  // the same by binutils' ranges
};

// A code symbol as binutils' nearest-symbol search (_bfd_elf_find_function) picks one.
struct CodeSymbol {
  int32_t symbol = -1;  // index into SourceIndex::symbols, -1 for none
  uint64_t size = 0;    // st_size, 1 when 0
  int32_t file = -1;    // the STT_FILE symbol naming its file, -1 for none
};

struct SourceIndex {
  ElfImage image;  // owns the bytes the unit strings point into
  Sections sections;
  bool has_debug_info = false;
  std::vector<UnitInfo> units;
  std::vector<FunctionInfo> functions;
  IntervalIndex unit_ranges;  // unit DIE ranges and line-table ranges
  std::vector<ElfSymbol> symbols;  // image.symbols (a copy: the fuzzer builds without an image)

  // The allocated sections holding `addr`, in section-header order.
  std::vector<uint32_t> sections_at(uint64_t addr) const;
  // The nearest code symbol at or before `addr` in section `shndx`, chosen as binutils 2.40
  // chooses (function and untyped symbols; on aarch64 no mapping symbols).
  CodeSymbol code_symbol(uint32_t shndx, uint64_t addr) const;
  // The path of line-table file `index` of unit `u` ("" when the table has no such file).
  std::string file_name(uint32_t u, uint64_t index) const;

  // Per section: candidate symbol starts, sorted, the chosen symbol at each.
  struct SymbolStart {
    uint64_t offset;
    CodeSymbol pick;
  };
  std::vector<std::vector<SymbolStart>> symbol_starts;
};

// The debug sections of `image` (views into its bytes), in its byte order. A compressed one is
// refused ("SECTION: compressed sections are not supported"), as is one outside the file.
bool find_debug_sections(const ElfImage &image, Sections &s, std::string &error);

// Reads the image's DWARF and symbols into `out`. False with one message ("SECTION+0xOFF:
// NAME (DETAIL)") when a debug section is malformed; an image without .debug_info is fine.
bool build_source_index(ElfImage image, SourceIndex &out, std::string &error);

// The same from debug sections alone (no image, no symbols): `out.sections` set by the caller
// (the fuzzer), the bytes kept alive by it.
bool build_source_index_from_sections(SourceIndex &out, std::string &error);

// SourceImage::frames_at over a model.
std::vector<SourceFrame> source_frames(const SourceIndex &idx, uint64_t addr);

}  // namespace sfu::tools::dwarf
