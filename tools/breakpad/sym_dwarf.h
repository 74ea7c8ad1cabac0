// The FUNC, line, INLINE and INLINE_ORIGIN content of a Breakpad symbol file, from an image's
// DWARF (read with tools/dwarf/), and PUBLIC records from its symbol table, as Breakpad's
// `dump_syms -d` makes them (src/common/dwarf_cu_to_module.cc, dwarf_line_to_module.cc,
// linux/elf_symbols_to_module.cc). Its choices, which the format document does not tell:
//   - PUBLIC: every STT_FUNC symbol defined in a section, demangled; the first at an address
//     wins; FUNC records added later drop the one at their start.
//   - Functions: DW_TAG_subprogram DIEs under the unit, namespaces, classes, structs, unions
//     (and classes inside functions), never those under lexical blocks or other functions. Named
//     by the demangled linkage name, else by the enclosing scopes' names and DW_AT_name joined
//     with "::" (following DW_AT_specification), else by the abstract origin's name; "<name
//     omitted>" if none. A function at address 0, or whose ranges add up to 0 bytes, is left out.
//   - Ranges: low_pc/high_pc, or DW_AT_ranges sorted by address, empty ranges kept. A DWARF 5
//     unit's range lists are read only when the image has .debug_addr (gcc writes none: its
//     functions and inlined calls with DW_AT_ranges are then left out, with their inline trees).
//   - Line records: each row of a sequence up to the next row, rows of 0 bytes and those of a
//     run starting at address 0 dropped, then cut to the functions' ranges; a unit in assembly
//     (DW_LANG_Mips_Assembler) gives nothing. File names join DW_AT_comp_dir, the directory and
//     the file name as they are spelled, without normalising.
//   - INLINE: DW_TAG_inlined_subroutine under a function, an inlined call or a lexical block
//     (blocks are see-through), nested by inlined call; the origin is the abstract origin's
//     specification root; origins with one name share a number. An inlined call without a call
//     file cites file -1.
// Host code; used by `sfu breakpad`.
#pragma once

#include <string>

#include "tools/breakpad/sym_writer.h"
#include "tools/elf/elf_file.h"

namespace sfu::tools::breakpad {

// Adds the image's PUBLIC records, then its functions (with lines and inline trees), to `m`,
// whose load address and loaded ranges are set. False with `error` ("SECTION+0xOFF: NAME
// (DETAIL)") when a debug section or the symbol table is malformed. An image without
// .debug_info gives PUBLIC records only.
bool dwarf_to_module(const ElfImage &image, SymModule &m, std::string &error);

}  // namespace sfu::tools::breakpad
