// An SFrame table read back as functions and their rows (the decoder's sfu_row), for tools that
// compare tables with CFI or with each other, and one text form of a rule for their messages.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sfu/sframe.h"
#include "tools/elf/elf_file.h"

namespace sfu::tools {

struct SframeFunction {
  uint64_t start = 0;
  uint32_t size = 0;
  bool pcmask = false;          // PLT-like: rows repeat every `repeat` bytes
  uint32_t repeat = 0;          // PCMASK: rows keyed by (pc - start) % repeat (V1: the low byte, 256)
  std::vector<sfu_row> rows;    // by row_start
};

// Opens and fully validates `bytes` loaded at `addr`, then reads every function. Returns the
// decoder's error (SFU_E_EMPTY for an empty section).
sfu_error read_sframe_functions(const std::vector<uint8_t> &bytes, uint64_t addr, uint8_t &abi,
                                std::vector<SframeFunction> &out);

// The image's .sframe section read the same way; an empty section is a table without functions.
// On failure sets `error` ("invalid SFrame section: <error name>", or the ELF reader's reason).
bool read_image_sframe(const ElfImage &image, uint8_t &abi, std::vector<SframeFunction> &out, std::string &error);

// The function whose [start, start + size) holds pc, or nullptr (functions sorted by start).
const SframeFunction *sframe_function_at(const std::vector<SframeFunction> &fns, uint64_t pc);

// The row of `fn` that applies at pc, or nullptr where the runtime finds none: before the first
// row, or in a function without rows (sfu_table_find's no-row). PCMASK functions match the
// offset inside the repeating block, as sfu_table_find does.
const sfu_row *sframe_row_at(const SframeFunction &fn, uint64_t pc);

// "r7+16", "[cfa-8]", "cfa+0", "[r6-8]", "same", "undefined": registers by DWARF number.
std::string rule_text(const sfu_rule &rule);
// "CFA r7+16, RA [cfa-8], FP same" and " (RA signed)" / "outermost".
std::string row_text(const sfu_row &row);

}  // namespace sfu::tools
