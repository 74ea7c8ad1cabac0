// Breakpad microdumps: the text form of a crash that crash logs carry (Breakpad's
// src/client/linux/microdump_writer/microdump_writer.cc writes it, src/processor/microdump.cc
// reads it). Breakpad reads only lines holding "google-breakpad", between "-----BEGIN BREAKPAD
// MICRODUMP-----" and "-----END BREAKPAD MICRODUMP-----", each keyed by ": X " (X one letter);
// numbers are uppercase hex, of the width of their C type:
//
//   google-breakpad: -----BEGIN BREAKPAD MICRODUMP-----
//   google-breakpad: V sfunwind:1                               product (not read)
//   google-breakpad: O L arm64 01 aarch64 sfunwind crash record  OS (L: Linux), CPU, CPU count,
//                                                                hardware, OS version
//   google-breakpad: P UNKNOWN                                  process type (not read)
//   google-breakpad: R 0000000B SIGSEGV 0080000000000000        signal, its name, fault address
//   google-breakpad: G UNKNOWN                                  GPU
//   google-breakpad: S 0 SP LOW LENGTH                          the stack: SP, start, length
//   google-breakpad: S ADDRESS HEX...                           its bytes, 384 a line
//   google-breakpad: C HEX...                                   MDRawContextARM64, 912 bytes
//   google-breakpad: M BASE OFFSET SIZE MODULE-ID NAME          one per module
//   google-breakpad: -----END BREAKPAD MICRODUMP-----
//
// Only arm64 is written and read here: Breakpad defines microdumps for arm, arm64, x86 (32-bit)
// and mips, none for x86_64 or s390x.
#pragma once

#include <string>

#include "tools/breakpad/dump.h"

namespace sfu::tools::breakpad {

// The dump as microdump lines, each ending in '\n'. The dump must be arm64; only its first stack
// is written (a microdump has one).
std::string write_microdump(const CrashDump &dump);

// Whether `text` holds a microdump's begin marker (on a line with "google-breakpad").
bool looks_like_microdump(const std::string &text);

// Reads the first microdump in `text` into `out` (stacks[0]: the S lines' bytes; modules with
// base, size, name and module id; crash reason and address; the O line's OS version). `name`
// names the input in messages: "NAME:LINE: WHAT". Refused: no begin marker, no end marker, a
// CPU other than arm64, a line whose numbers or hex do not read, stack lines that do not follow
// each other, a context of the wrong size, no context, no O line.
bool read_microdump(const std::string &text, const std::string &name, CrashDump &out, std::string &error);

}  // namespace sfu::tools::breakpad
