// Writing a crash dump as a minidump (Breakpad's src/google_breakpad/common/minidump_format.h),
// the file Breakpad's minidump_stackwalk, Crashpad's and Sentry's processors read.
//
// All little-endian. What is written, in file order (every part 8-byte aligned):
//   header         'MDMP', version 0xa793, stream count, directory at 32, no checksum, time 0,
//                  flags 0 (MD_NORMAL)
//   directory      thread list, module list, memory list, exception, system info, and a comment
//                  (MD_COMMENT_STREAM_A) with the record's message when it has one
//   system info    MD_CPU_ARCHITECTURE_AMD64 (9) or _ARM64 (12), one processor, platform
//                  MD_OS_LINUX (0x8201) with version 0.0.0 and the CSD string "sfunwind crash
//                  record": Linux because the processors read its signals as crash reasons, let
//                  ELF build-ids (CodeView 'BpEL') name modules, and walk x86_64 frames by
//                  frame pointer when CFI is missing (which "windows" turns off)
//   thread list    one thread, id 1, its stack = the dump's first stack, its context
//   context        MDRawContextAMD64 (1232 bytes, flags MD_CONTEXT_AMD64_CONTROL | _INTEGER:
//                  0x00100003) or MDRawContextARM64 (912 bytes, MD_CONTEXT_ARM64_CONTROL |
//                  _INTEGER: 0x00400003); registers the record lacks are 0, as are segment,
//                  flag, floating-point and debug registers
//   stack memory   every stack's bytes
//   module list    each module: base, size, name (MDString, UTF-16), and a CodeView record
//                  'BpEL' + the build-id bytes (as Breakpad's Linux writer does, so the
//                  processors look for NAME/<module id>/NAME.sym), none without a build-id
//   memory list    every stack
//   exception      thread 1, the Linux signal as exception code, its si_code as flags, the
//                  fault address, two parameters: the record's reason and detail
#pragma once

#include <cstdint>
#include <vector>

#include "tools/breakpad/dump.h"

namespace sfu::tools::breakpad {

inline constexpr uint32_t kMdSignature = 0x504d444d, kMdVersion = 0xa793;
inline constexpr uint32_t kMdContextAmd64Flags = 0x00100003, kMdContextArm64Flags = 0x00400003;
inline constexpr uint32_t kMdContextAmd64Size = 1232, kMdContextArm64Size = 912;
inline constexpr uint32_t kMdCvElfSignature = 0x4270454c;  // 'BpEL'
inline constexpr uint32_t kMdOsLinux = 0x8201;

std::vector<uint8_t> write_minidump(const CrashDump &dump);

// The context structure alone (MDRawContextAMD64 or MDRawContextARM64), as both the minidump
// and a microdump's C line carry it.
std::vector<uint8_t> context_bytes(DumpCpu cpu, const DumpRegisters &regs);

}  // namespace sfu::tools::breakpad
