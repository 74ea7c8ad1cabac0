// Where an image ran. Firmware that relocates itself, a KASLR kernel and a position-independent
// image run away from their link address, moved as a whole by one load bias: run-time address
// minus link-time address (modulo 2^64). Every host command that maps a device's addresses to an
// image (`sfu crash`, `symbolize`, `minidump`, `stackwalk`) takes the bias from here and looks
// names, lines and tables up at `address - bias`.
//
// The device says where a module's text ran: [text_start, text_end) as the kernel registered it
// (a crash record's module, a backtrace's module line). Its link-time start is found in the image:
//   1. two symbols exactly text_end - text_start apart, the range between them holding executable
//      code: the pair the kernel registered ([_stext, _etext), [__executable_start, etext), ...).
//      Of several such starts, the one equal to text_start (the image did not move), else the one
//      named _stext, else the only pair of labels (symbols without a type, as a linker script
//      defines them; the others pair a function or an object); any other choice is ambiguous and
//      refused.
//   2. without such a pair, the span of the executable sections, if it has exactly that length.
// A user who knows where the image ran says so instead: IMAGE@ADDRESS, ADDRESS the run-time
// address of the image's first loaded byte (the first PT_LOAD's link address, which is also what
// Breakpad's symbol files count from).
#pragma once

#include <cstdint>
#include <string>

#include "tools/elf/elf_file.h"

namespace sfu::tools {

struct LoadBias {
  uint64_t bias = 0;  // added to a link address gives the run-time one (modulo 2^64)
  std::string how;    // how it was found, for messages: "[_stext, _etext) ran at 0x40080000"
};

// The bias of an image whose text ran at [run_start, run_end) (rules above). False with `error`
// saying why it cannot tell: no pair of symbols that far apart and executable sections of another
// length, or several pairs.
bool find_load_bias(const ElfImage &image, uint64_t run_start, uint64_t run_end, LoadBias &out,
                    std::string &error);

// The bias of an image whose first loaded byte ran at `address` (IMAGE@ADDRESS). False when the
// image has no loadable segment.
bool given_load_bias(const ElfImage &image, uint64_t address, LoadBias &out, std::string &error);

// Whether [lo, hi) (link addresses) overlaps the image's executable sections.
bool holds_code(const ElfImage &image, uint64_t lo, uint64_t hi);

// A bias for people: "+0x5f400000", "-0x1000", "0" (none).
std::string bias_text(uint64_t bias);

}  // namespace sfu::tools
