// The DWARF CFI of a linked image: the FDEs of .eh_frame and .debug_frame, one per function.
// Shared by `sfu gen` and `sfu verify`, which must read the same CFI the same way.
#pragma once

#include <string>
#include <vector>

#include "tools/dwarf/cfi.h"
#include "tools/elf/elf_file.h"

namespace sfu::tools {

// The SFrame ABI of an image (SFU_ABI_*), or 0 for a machine sfunwind does not serve.
uint8_t image_abi(const ElfImage &image);

// How many FDEs the CFI sections hold, and how many of them read_image_cfi kept.
struct CfiCounts {
  size_t read = 0, kept = 0;
};

// Every FDE of .eh_frame whose range lies in the image's code (an executable section with
// contents in the file), then those of .debug_frame for functions .eh_frame does not describe,
// sorted by start. Malformed CFI fails with "<section>+0x<offset>: <error name> (<detail>)"; so
// does CFI past the reader's budgets (too-many-rules, cfi.h). No CFI at all is not an error.
bool read_image_cfi(const ElfImage &image, std::vector<cfi::Fde> &out, std::string &error,
                    CfiCounts *counts = nullptr);

// Whether a CFI row's rule for SP (if any) says what SFrame assumes: the caller's SP is the CFA
// (CFA - 160 on s390x). s390x functions also keep copies of r15 (stmg %r6,%r15 saves it in the
// frame, leaves move it to a floating-point register): a copy is the entry SP, CFA - 160 by the
// ABI's definition of the CFA. Both sfu gen and sfu verify hold rows to this.
bool sp_follows_cfa(const cfi::Row &row, uint8_t abi);

}  // namespace sfu::tools
