// Breakpad symbol files (../shared/seeds/breakpad-symbol-files.md) written as Breakpad's own
// dump_syms writes them (src/common/module.cc), from a model filled the way dump_syms fills its
// Module: source files by name, functions with their ranges, line records and inline trees,
// public symbols, and STACK CFI entries. The model keeps dump_syms's choices, not the format
// document's:
//   - a function is dropped when one with the same address and name is there already (with
//     `multiple`, when any function is there already: that one then gets the `m` flag);
//   - a PUBLIC record is dropped where a function starts at its address (it is not dropped
//     where a function merely covers it); the first symbol at an address names it;
//   - FUNC records are written in (address, name) order, one per range of a function, each
//     followed by all of the function's INLINE records (again for every range) and by the line
//     records that fall in that range, taken in address order: a line the ranges skip ends the
//     function's lines;
//   - FILE numbers go to the files some line or inline call site of a written function cites,
//     in name order; INLINE_ORIGIN numbers to the distinct names of the origins inline records
//     cite, in name order;
//   - every address is written relative to the load address (the first PT_LOAD).
// Host code; used by `sfu breakpad`.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace sfu::tools::breakpad {

struct SymRange {
  uint64_t address = 0, size = 0;
};

struct SymSourceFile {
  std::string name;
};

struct SymOrigin {
  std::string name;
};

struct SymLine {
  uint64_t address = 0, size = 0;
  const SymSourceFile *file = nullptr;
  uint32_t number = 0;
};

struct SymInline {
  const SymOrigin *origin = nullptr;
  std::vector<SymRange> ranges;
  int64_t call_line = 0;
  const SymSourceFile *call_file = nullptr;  // nullptr: written as file -1
  int64_t call_file_number = -1;             // DW_AT_call_file, until the unit's files are known
  int nest_level = 0;
  std::vector<SymInline> children;
};

struct SymFunction {
  std::string name;
  uint64_t address = 0;  // its first range's start
  std::vector<SymRange> ranges;
  std::vector<SymLine> lines;  // in address order
  std::vector<SymInline> inlines;
  bool multiple = false;
};

struct SymPublic {
  uint64_t address = 0;
  std::string name;
  bool multiple = false;
};

// One STACK CFI INIT record and its STACK CFI records: rules by register name ("$rsp", ".cfa").
using SymRules = std::map<std::string, std::string>;
struct SymStackEntry {
  uint64_t address = 0, size = 0;
  SymRules initial;
  std::map<uint64_t, SymRules> changes;
};

class SymModule {
 public:
  std::string os = "Linux", arch, id, name, code_id;
  std::vector<std::string> info;  // further INFO lines after INFO CODE_ID ("GENERATOR ...")
  uint64_t load_address = 0;
  std::vector<SymRange> loaded;   // PT_LOAD ranges; only what starts in one is kept (none: all)
  bool multiple_field = false;    // dump_syms -m: the `m` flag on FUNC and PUBLIC

  // The file of that name, made on first use (Breakpad's Module::FindFile).
  const SymSourceFile *file(const std::string &name);
  // A new inline origin; its name may be changed until the module is written.
  SymOrigin *origin(const std::string &name);

  // Breakpad's Module::AddFunction: false when it is dropped (outside the loaded ranges, or a
  // duplicate as above). A kept function is owned by the module; a dropped one is destroyed.
  bool add_function(std::unique_ptr<SymFunction> f);
  // The function added at `address` under `name`, or nullptr.
  SymFunction *find_function(uint64_t address, const std::string &name);
  // Renames a function the module holds (a forward reference resolved after it was added).
  void rename_function(SymFunction *f, const std::string &name);
  void add_public(SymPublic p);
  void add_stack_entry(SymStackEntry e);

  size_t function_count() const { return functions_.size(); }
  size_t public_count() const { return publics_.size(); }
  size_t stack_entry_count() const { return stack_.size(); }

  // The symbol file's text.
  std::string write() const;

 private:
  bool in_module(uint64_t address) const;

  std::map<std::string, std::unique_ptr<SymSourceFile>> files_;
  std::deque<SymOrigin> origins_;
  // Functions by (address, name), as Breakpad's set orders them.
  std::map<std::pair<uint64_t, std::string>, std::unique_ptr<SymFunction>> functions_;
  std::map<uint64_t, SymPublic> publics_;
  std::vector<SymStackEntry> stack_;
};

}  // namespace sfu::tools::breakpad
