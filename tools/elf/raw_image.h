// What the device reads of its own image at run time (the SFrame table, the function names, the
// build-id note), and whether a raw binary (`objcopy -O binary`, a flash image) keeps it. A
// firmware that ships `objcopy -O binary -j ...` loses whatever its -j list leaves out; the
// device then registers with a zeroed or missing table and no names. `sfu verify --raw` and
// `sfu gen` ask here.
//
// objcopy -O binary writes every allocated section with contents (SHF_ALLOC, not NOBITS, not
// empty) that it keeps, at byte LMA - base, base the lowest LMA of those sections, and fills the
// gaps with zeros. A section's LMA is, as BFD reads an ELF, p_paddr + sh_offset - p_offset of the
// PT_LOAD whose file contents and memory hold it, else its address (its address too when every
// program header's p_paddr is 0, as some linkers leave them).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/elf/elf_file.h"

namespace sfu::tools {

// One piece the device reads: [addr, addr + size) of `section`, from its linker symbols
// (__sfu_sframe_start/_end, ...) where the image defines them, else the whole section of the
// fragment's name. Clipped to the section (ld 2.40 may put __sfu_sframe_end past .sframe).
enum class PieceKind { table, names, build_id };
struct RuntimePiece {
  PieceKind kind = PieceKind::table;
  const char *what = "";            // "the SFrame table"
  std::string section;              // ".sframe"
  const ElfSectionHeader *header = nullptr;
  uint64_t addr = 0, size = 0;
};

// The pieces the image has: the table, the names, the build-id note, in that order; empty ones
// (no names reserved, linked without --build-id) left out.
std::vector<RuntimePiece> runtime_pieces(const ElfImage &image);

// The image's crash area (.sfu_crash, or [__sfu_crash_start, __sfu_crash_end)), if it has one.
bool crash_area(const ElfImage &image, uint64_t &addr, uint64_t &size);

// From the ELF alone: each piece that no loader puts in the device's memory, one sentence each
// ("the function names (.sfu_symbols) are not allocated (no SHF_ALLOC): ..."). A piece in no
// PT_LOAD is reported only for an image that has PT_LOAD segments.
std::vector<std::string> placement_problems(const ElfImage &image, const std::vector<ElfSegment> &segments);

// A section's load address (LMA) as objcopy computes it (above).
uint64_t section_lma(const ElfSectionHeader &s, const std::vector<ElfSegment> &segments);

struct RawCheck {
  uint64_t base = 0;            // the LMA of the raw image's first byte
  std::string first;            // the section found there
  std::vector<std::string> kept;      // "SECTION 0xSIZE bytes at 0xOFFSET", per piece found intact
  std::vector<std::string> problems;  // one sentence per piece missing or different
  std::vector<std::string> warnings;  // the crash area inside the image's span
};

// Checks `raw` (the bytes of `objcopy -O binary [-j ...]` of `image`) holds every runtime piece
// as the ELF has it; a warning if it covers the crash area (harmless only to an image that
// captures from a copy it moved elsewhere, which the ELF does not say). The raw image's start is the lowest-LMA
// allocated section whose bytes begin it (a -j list may leave out the image's first sections).
// False with `error` when no such section begins it (not a raw image of this ELF).
bool check_raw_image(const ElfImage &image, const std::vector<ElfSegment> &segments, const std::vector<uint8_t> &raw,
                     RawCheck &out, std::string &error);

}  // namespace sfu::tools
