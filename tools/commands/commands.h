// The commands of `sfu`, one file each in tools/commands/; tools/sfu.cpp lists them.
#pragma once

#include "tools/commands/cli.h"

namespace sfu::tools::cli {

extern const Command kDumpCommand;       // dump.cpp
extern const Command kGenCommand;        // gen.cpp
extern const Command kVerifyCommand;     // verify.cpp
extern const Command kDiffCommand;       // diff.cpp
extern const Command kSymbolizeCommand;  // symbolize.cpp
extern const Command kCrashCommand;      // crash.cpp
extern const Command kSymbolsCommand;    // symbols.cpp
extern const Command kBreakpadCommand;   // breakpad.cpp
extern const Command kMinidumpCommand;   // minidump.cpp
extern const Command kStackwalkCommand;  // stackwalk.cpp
extern const Command kNameCommand;       // name.cpp
extern const Command kProfileCommand;    // profile.cpp

}  // namespace sfu::tools::cli
