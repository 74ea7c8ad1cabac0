// Reading Breakpad symbol files (.sym: ../shared/seeds/breakpad-symbol-files.md), and answering
// the two questions a stack walk asks of one, as Breakpad's processor answers them
// (src/processor/basic_source_line_resolver.cc): what is at this address (function, source line,
// the inlined calls around it), and which STACK CFI rules are in force there.
//
//   SymbolFile sym;
//   std::string error;
//   if (!sym.load(text, "kernel.elf.sym", error)) ...   // "kernel.elf.sym:12: FUNC needs ..."
//   SymbolAt at = sym.lookup(pc - module_base);
//   CfiRules rules;
//   if (sym.cfi_rules(pc - module_base, rules)) ...
//
// Records: MODULE, INFO, FILE, INLINE_ORIGIN (both forms), FUNC (with or without m), line
// records, INLINE (both forms), PUBLIC (with or without m), STACK CFI INIT, STACK CFI, and STACK
// WIN (checked for its field count, otherwise unused: it serves 32-bit Windows walks only).
// Numbers are read as Breakpad reads them (strtoull/strtol: hex addresses and sizes, decimal
// numbers of files, lines and origins). Where Breakpad logs a line it cannot parse and goes on
// with a module marked corrupt, or would crash, this reader refuses the whole file naming the
// line: a malformed record, a line record or INLINE with no FUNC before it (or a PUBLIC since),
// a STACK CFI with no STACK CFI INIT before it or outside its range, a rule set that does not
// parse, a NUL byte, a carriage return inside a line. What Breakpad drops silently, this drops
// too: a FUNC, line, INLINE range or STACK CFI INIT of size 0 or overlapping one stored before
// (the first stays), a second PUBLIC at an address, PUBLIC at 0, an INLINE nested deeper than one
// below the last (Breakpad's order check). Addresses are relative to the module's load address.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tools/breakpad/cfi_rules.h"

namespace sfu::tools::breakpad {

// One inlined call around an address.
struct InlineAt {
  std::string function;  // the INLINE_ORIGIN's name ("<name omitted>" for an unknown origin)
  uint64_t range_start;  // start of the INLINE range holding the address (relative)
  std::string file;      // the call site of the inlined call, or, for the innermost, the line record's
  long line = 0;
};

struct SymbolAt {
  bool has_function = false;  // a FUNC covers the address, or a PUBLIC names it
  bool from_public = false;
  std::string function;
  uint64_t function_base = 0;  // relative
  bool has_line = false;       // a line record of the FUNC covers it
  std::string file;            // "" when the line record's FILE is unknown
  long line = 0;
  uint64_t line_base = 0;      // relative start of that line record
  std::vector<InlineAt> inlines;  // innermost first; when not empty, file and line above are the
                                  // outermost call site, as Breakpad gives them to the FUNC frame
};

class SymbolFile {
 public:
  SymbolFile();
  ~SymbolFile();
  SymbolFile(SymbolFile &&) noexcept;
  SymbolFile &operator=(SymbolFile &&) noexcept;

  // Parses `text`; `name` names it in messages ("NAME:LINE: WHAT"). False with `error` on the
  // first malformed line (above).
  bool load(const std::string &text, const std::string &name, std::string &error);

  // The MODULE record's fields ("" when the file has none), and INFO CODE_ID's id.
  const std::string &os() const;
  const std::string &arch() const;
  const std::string &id() const;
  const std::string &module_name() const;
  const std::string &code_id() const;

  // The lowest address a FUNC, PUBLIC or STACK CFI INIT record describes (0 for none).
  uint64_t lowest_address() const;

  // What Breakpad's LookupAddress gives at `address` (relative to the load address).
  SymbolAt lookup(uint64_t address) const;

  // The STACK CFI rules in force at `address`: false when no STACK CFI INIT covers it or its
  // rules do not parse (later STACK CFI records are applied as far as they parse).
  bool cfi_rules(uint64_t address, CfiRules &out) const;

  struct Model;

 private:
  std::unique_ptr<Model> m_;
};

}  // namespace sfu::tools::breakpad
