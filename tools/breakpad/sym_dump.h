// A whole Breakpad symbol file for an ELF image, as `dump_syms -d` writes it (with `m` flags as
// `dump_syms -d -m` when asked): MODULE and INFO CODE_ID (module_id.h), FILE, INLINE_ORIGIN,
// FUNC, line, INLINE and PUBLIC records (sym_dwarf.h), and STACK CFI from the DWARF CFI, or from
// the SFrame table when the image has no DWARF CFI (sym_cfi.h; an "INFO GENERATOR" line then says
// so). Host code; `sfu breakpad` is its command.
#pragma once

#include <cstddef>
#include <string>

#include "tools/elf/elf_file.h"

namespace sfu::tools::breakpad {

struct SymDumpOptions {
  bool multiple = false;  // the `m` flag on FUNC and PUBLIC records (dump_syms -m)
};

struct SymDump {
  std::string text;      // the symbol file
  std::string name, id;  // MODULE's name and id: the symbol store path is NAME/ID/NAME.sym
  size_t functions = 0, publics = 0, stack_entries = 0;
  std::string stack_from;  // ".eh_frame/.debug_frame", ".sframe", or "" for none
};

// The symbol file of `image`, read from `path` (its base name names the module unless the
// image has a DT_SONAME). False with one line in `error` for an image Breakpad cannot describe
// (an architecture it has no name for, no build-id and no .text) or malformed DWARF, CFI or
// SFrame data.
bool dump_symbols(const ElfImage &image, const std::string &path, const SymDumpOptions &options, SymDump &out,
                  std::string &error);

}  // namespace sfu::tools::breakpad
