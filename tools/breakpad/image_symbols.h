// A module's symbols for `sfu stackwalk --image`, from the ELF image itself with the project's
// own readers: function names from its symbol table and DWARF, file:line and inlined calls from
// its DWARF (tools/dwarf/source.h), and unwind rules from its SFrame table (its .sframe, or one
// built from its CFI, as `sfu crash` loads them), each row said as the STACK CFI rules Breakpad
// would evaluate. An outermost row (RA undefined) ends the walk.
//
// Where this differs from a symbol file: a frame's offset is from its function's start even
// when it has a line (the image gives no line-record start), and names are demangled as
// `addr2line -C` gives them.
#pragma once

#include "tools/breakpad/stackwalk.h"
#include "tools/crash/report.h"

namespace sfu::tools::breakpad {

class ImageSymbols : public ModuleSymbols {
 public:
  // `image` must outlive this; `base` is the link address the module's addresses are relative
  // to (its first PT_LOAD's): an address relative to where the module ran is one relative to
  // where it was linked, whatever the load bias.
  ImageSymbols(const crash::CrashImage &image, uint64_t base);
  SymbolAt lookup(uint64_t address) const override;
  Cfi cfi_rules(uint64_t address, CfiRules &out) const override;

 private:
  const crash::CrashImage &image_;
  uint64_t base_;
  sfu_table table_{};
  bool has_table_ = false;
};

// The STACK CFI rules of one SFrame row, with the register names Breakpad uses for the ABI
// ($rsp, $rbp, .. on x86_64; sp, x29, x30 on arm64). False for a row they cannot say.
bool sframe_row_rules(const sfu_row &row, uint8_t abi, CfiRules &out);

}  // namespace sfu::tools::breakpad
