// STACK CFI INIT and STACK CFI records: from an image's DWARF CFI as Breakpad's dump_syms
// translates it (src/common/dwarf_cfi_to_module.cc), or, for an image with SFrame rows and no
// DWARF CFI (a kernel built with gas's SFrame only), from its .sframe.
//
// From DWARF CFI, one entry per FDE of .debug_frame, then of .eh_frame (up to its first zero
// terminator), in section order. Like dump_syms, each instruction that sets a rule writes that
// register's rule at its address, changed or not; DW_CFA_restore_state writes the rules it
// changes, and "same value" for those set since the remember; the initial rules are the CIE's
// and those at the FDE's start, with ".ra" first set to the return address column's register.
// Rules Breakpad cannot say are not written (undefined, DWARF expressions), so the rule before
// stays in force. Register names are Breakpad's: "$rax".."$r15", "$rip" on x86_64, "x0".."x30",
// "sp" on arm64, the return address column ".ra" and the CFA ".cfa"; a number without a name is
// "unnamed_registerN". Postfix forms: "REG OFF +" (is CFA/REG + OFF), ".cfa OFF + ^" (saved at).
//
// s390x, which dump_syms does not translate at all: the names "$r0".."$r15", "$f0".."$f15"
// (DWARF 16-31 in the ABI's order f0 f2 f4 f6 f1 f3 f5 f7 f8 f10 f12 f14 f9 f11 f13 f15),
// "$a0".."$a15" (48-63); every entry starts with "$r15: .cfa -160 +" (the CFA is the caller's
// stack pointer plus 160 there, which Breakpad's default, SP = CFA, would miss), and a restored
// return address register is "$r14" (dump_syms's ".ra: .ra" there, as it writes for arm64's x30,
// names a value no evaluator has).
//
// From SFrame rows, one entry per function with rows: the CFA, RA and FP rules of each row,
// written where they change; an outermost row's RA is "0" (a Breakpad walk ends at a zero
// return address); repeating-block (PLT) functions are left out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/breakpad/sym_writer.h"
#include "tools/dwarf/cfi.h"
#include "tools/elf/elf_file.h"
#include "tools/sframe/rows.h"

namespace sfu::tools::breakpad {

// The DWARF numbers of the stack pointer, frame pointer and return address an SFrame row's CFA,
// FP and RA rules speak of, for an ELF machine (x86_64 when it is neither arm64 nor s390x).
struct AbiRegs {
  int sp, fp, ra;
};
AbiRegs abi_regs(uint16_t machine);

// The register names of an ELF machine, by DWARF number ("" where there is none).
const std::vector<std::string> &cfi_register_names(uint16_t machine);

// One FDE, read with cfi::Section::keep_events, as dump_syms translates it.
SymStackEntry stack_entry_from_fde(const cfi::Fde &fde, uint16_t machine);

// One SFrame function's rows; false for a function left out (repeating blocks, no rows).
bool stack_entry_from_sframe(const SframeFunction &fn, uint16_t machine, SymStackEntry &out);

// Adds an entry per FDE of the image's .debug_frame and .eh_frame to `m`; `fdes` counts them.
// False with "SECTION+0xOFF: ERROR (DETAIL)" on malformed CFI. No CFI sections: nothing added.
bool cfi_to_module(const ElfImage &image, SymModule &m, size_t &fdes, std::string &error);

// Adds an entry per function of the image's .sframe; `functions` counts them. False with the
// decoder's error on an invalid table; no .sframe: nothing added.
bool sframe_to_module(const ElfImage &image, SymModule &m, size_t &functions, std::string &error);

}  // namespace sfu::tools::breakpad
