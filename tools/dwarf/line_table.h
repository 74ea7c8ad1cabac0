// DWARF line number programs (.debug_line, versions 2 to 5): the header with its directory and
// file tables (DWARF 5 entry formats included), and the rows the program's standard, extended
// and special opcodes produce. Then a lookup: address -> row, over sorted sequences.
// Host code; used by the source lookup (source.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/dwarf/debug_info.h"

namespace sfu::tools::dwarf {

// DW_LNS_* and DW_LNE_* (DWARF 5, 6.2.5).
inline constexpr uint8_t kLnsCopy = 1, kLnsAdvancePc = 2, kLnsAdvanceLine = 3, kLnsSetFile = 4,
                         kLnsSetColumn = 5, kLnsNegateStmt = 6, kLnsSetBasicBlock = 7, kLnsConstAddPc = 8,
                         kLnsFixedAdvancePc = 9, kLnsSetPrologueEnd = 10, kLnsSetEpilogueBegin = 11,
                         kLnsSetIsa = 12;
inline constexpr uint8_t kLneEndSequence = 1, kLneSetAddress = 2, kLneDefineFile = 3,
                         kLneSetDiscriminator = 4;
// DW_LNCT_* content types of DWARF 5 entry formats.
inline constexpr uint64_t kLnctPath = 1, kLnctDirectoryIndex = 2, kLnctTimestamp = 3, kLnctSize = 4,
                          kLnctMd5 = 5;

struct LineRow {
  uint64_t address = 0;
  uint32_t file = 1, line = 1, column = 0, discriminator = 0;
  bool is_stmt = true, end_sequence = false;
  bool file_set = false;  // DW_LNS_set_file ran in this sequence (else `file` is the initial 1)
};

struct LineFile {
  std::string name;
  uint64_t dir = 0;
};

struct LineTable {
  uint64_t offset = 0;  // of the header in .debug_line
  uint16_t version = 0;
  uint8_t address_size = 8;
  uint8_t min_inst_length = 1, max_ops_per_insn = 1;
  bool default_is_stmt = true;
  int8_t line_base = 0;
  uint8_t line_range = 0, opcode_base = 0;
  // Directories and files by the numbers the program and DW_AT_call_file use: DWARF 5 counts
  // from 0; older versions from 1 (entry 0 is then an empty placeholder, the unit's own
  // directory for directories, "no file" for files).
  std::vector<std::string> dirs;
  std::vector<LineFile> files;
  std::vector<LineRow> rows;      // in program order, end-of-sequence rows included
  bool skipped_extended = false;  // an unknown extended opcode was stepped over by its length
};

// Reads the line table at `offset` of .debug_line for `unit` (its address and offset sizes,
// and its string bases for DW_FORM_strx in a DWARF 5 header).
bool read_line_table(const DebugInfoReader &reader, const Unit &unit, uint64_t offset, LineTable &out,
                     DebugError &err);

// The path of file `index`: an absolute name as it is; else joined to its directory, and a
// relative directory (or none) to `comp_dir` (DW_AT_comp_dir; nullptr when the unit has none).
// False for a number the table does not have (0 before DWARF 5).
bool line_file_path(const LineTable &table, uint64_t index, const char *comp_dir, std::string &out);

// Rows of a line table arranged for lookup: one sorted run per sequence, where two rows at
// the same address keep the later one, sequences sorted by address with nested ones dropped
// and overlapping ones trimmed (as GNU binutils arranges them: addr2line's answers).
class LineLookup {
 public:
  void build(const LineTable &table);
  // The row in effect at `addr`: the last row at or before it in a sequence that covers it.
  const LineRow *find(uint64_t addr) const;
  // [low, high) of each sequence kept, for a unit without address ranges of its own.
  void ranges(std::vector<std::pair<uint64_t, uint64_t>> &out) const;

 private:
  struct Sequence {
    uint64_t low = 0, high = 0;
    std::vector<LineRow> rows;
  };
  std::vector<Sequence> seqs_;
};

}  // namespace sfu::tools::dwarf
