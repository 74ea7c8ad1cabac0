// The profiles of a log summed into one, their frames named from the images: what every output
// of `sfu profile` (top, folded, pprof, svg) is written from.
//
// Each profile's module lines place its images (matched by GNU build-id, moved by the load bias
// its text range gives, or by ELF@ADDRESS: tools/crash/report.h's place_module), so profiles of
// several boots of a moved image sum at link addresses. A frame is named as `sfu symbolize` names
// its address: the function of the image's symbol table holding it (tools/elf/functions.h),
// demangled; its source frames (file:line, inlined callers) as addr2line -i gives them. An address
// in no module line's range is "[unknown]"; one in a module but in no function, its link address.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/crash/report.h"
#include "tools/dwarf/source.h"
#include "tools/profile/read.h"

namespace sfu::tools::profile {

// One distinct frame of the summed profile.
struct Frame {
  int image = -1;           // index into the images; -1 for "[unknown]" and "[no frames]"
  uint64_t link = 0;        // its lookup address in the image (run-time address less the bias)
  std::string function;     // the name every output shows
  std::string system_name;  // the symbol as the image spells it (mangled), or `function`
  uint64_t function_start = 0;                // link address of the symbol, when it has one
  std::vector<dwarf::SourceFrame> source;     // innermost first; empty without DWARF for it
};

struct Stack {
  std::vector<size_t> frames;  // indexes into Summed::frames, innermost first
  uint64_t count = 0;
};

struct Summed {
  size_t profiles = 0;
  unsigned abi = 0;
  uint64_t period = 0;  // 0: unknown
  std::string unit;
  uint64_t samples = 0, counted = 0;
  std::vector<std::pair<std::string, uint64_t>> lost, stopped;  // summed by name, in first-seen order
  std::vector<Frame> frames;
  std::vector<Stack> stacks;  // distinct frame lists, counts summed; ordered as first seen
  std::vector<bool> image_used;
};

// A named refusal: "profile-no-image", ...; `where` is the log's line (0: none) or an image's path.
struct SumError {
  std::string name;
  size_t line = 0;
  std::string image;
  std::string detail;
};

// Sums `profiles` (read from one log) with `images`. False with `error` when a module that holds
// frames has no image (profile-no-image), an image matches no module holding frames
// (profile-wrong-image), an image is built for another ABI than the profile (profile-image-abi), a
// module cannot be placed in its image (profile-unplaced), or the profiles differ in ABI or
// sampling period (profile-mismatch).
bool sum_profiles(const std::vector<PrintedProfile> &profiles, const std::vector<crash::CrashImage> &images,
                  Summed &out, SumError &error);

}  // namespace sfu::tools::profile
