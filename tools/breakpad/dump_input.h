// The inputs of `sfu minidump` and `sfu stackwalk`: a crash record (binary, or the one record of
// a serial log) or a microdump, read into a CrashDump with the images given for its modules; and
// the symbols a walk uses for each module: a matching --image first, else the first symbol
// directory holding ROOT/NAME/ID/NAME.sym (else, for a record, any ROOT/*/ID/*.sym: a record
// names a module as the kernel registered it, not as its file is called).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tools/breakpad/dump.h"
#include "tools/breakpad/stackwalk.h"
#include "tools/crash/report.h"

namespace sfu::tools::breakpad {

struct DumpInput {
  CrashDump dump;
  std::string what;                // "x86_64 crash record (log:19-55)", "arm64 microdump (x.txt)"
  bool from_record = false;
  std::vector<int> image;          // per module: index into the images, -1 for none
  std::vector<uint64_t> link_base; // per module with an image: the link address of its base (the
                                   // image's first PT_LOAD); base - link_base is its load bias
  std::vector<bool> holds_frames;  // per module: a frame of the record's trace is in it
};

// Reads `bytes` (named `name`): a microdump when it holds one's begin marker, else a crash
// record. Images are matched to modules by build-id (a microdump's by module id); an image that
// matches none is refused ("the wrong image?"), as `sfu crash` refuses it. A record module's base
// is where its image's first loaded byte ran: the image's link address plus the module's load
// bias, found as `sfu crash` finds it (crash::match_modules); a microdump's M line says it.
// Messages leave the file's name to the caller (a microdump's give "line N: " where the line
// matters).
bool read_dump_input(const std::vector<uint8_t> &bytes, const std::string &name,
                     const std::vector<crash::CrashImage> &images, DumpInput &out, std::string &error);

struct WalkSymbols {
  std::vector<std::unique_ptr<ModuleSymbols>> owned;
  std::vector<const ModuleSymbols *> per_module;  // nullptr: none found
  std::vector<std::string> source;                // per module: "image PATH", the .sym path, or ""
};

// Finds each module's symbols (above). A symbol file that does not parse is refused with its
// file and line. A record module placed at its text start (no image) with a symbol file is moved
// so that the file's lowest address is the text start, and takes the file's MODULE name.
bool find_walk_symbols(DumpInput &in, const std::vector<crash::CrashImage> &images,
                       const std::vector<std::string> &roots, WalkSymbols &out, std::string &error);

}  // namespace sfu::tools::breakpad
