// Crash record format, version 1: every offset, size and constant once (docs/crash-record.md
// says what each means). Shared by the writer (capture.cpp), the checker and accessors
// (record.cpp), the printer (print.cpp), and the host tools that read printed records.
#pragma once

#include <stdint.h>

#include "config.h"
#include "sfu/crash.h"

namespace sfu::crash {

inline constexpr uint8_t kMagic[8] = {'S', 'F', 'U', 'C', 'R', 'A', 'S', 'H'};
inline constexpr uint16_t kVersion = 1;

// The state word. Each value's four bytes read the same forwards and backwards, so the word
// means the same in either byte order: a reader needs no ABI byte to tell a torn record.
inline constexpr uint32_t kStateFree = 0x46525246;      // "FRRF": a take freed the area
inline constexpr uint32_t kStateWriting = 0x57525257;   // "WRRW": a capture claimed it
inline constexpr uint32_t kStateComplete = 0x444f4f44;  // "DOOD": a record waits for its take
inline constexpr uint32_t kStateTaken = 0x544b4b54;     // "TKKT": handed over; claimable again

// Header fields. The CRC-32 covers [kCrcFrom, length): everything but magic, state and itself.
namespace hdr {
inline constexpr uint32_t kMagic = 0x00, kState = 0x08, kCrc = 0x0c, kLength = 0x10;
inline constexpr uint32_t kVersion = 0x14, kAbi = 0x16, kFlags = 0x17;
inline constexpr uint32_t kReason = 0x18, kDetail = 0x1c, kFaultAddress = 0x20;
inline constexpr uint32_t kStop = 0x28, kReliable = 0x29;
inline constexpr uint32_t kNumFrames = 0x2a, kNumModules = 0x2c, kNumWindows = 0x2e;
inline constexpr uint32_t kWalkFrames = 0x30, kMaxFrames = 0x34;
inline constexpr uint32_t kVaBits = 0x38, kWalkOptions = 0x39;
inline constexpr uint32_t kReserved = 0x3a, kReservedSize = 6;  // zero
inline constexpr uint32_t kMessage = 0x40;
inline constexpr uint32_t kSize = kMessage + SFU_CRASH_MESSAGE_MAX;
}  // namespace hdr
inline constexpr uint32_t kCrcFrom = hdr::kLength;
// What a reader needs before it knows the byte order and the version: through the ABI byte.
inline constexpr uint32_t kPrologueSize = hdr::kAbi + 1;

// Header flags.
inline constexpr uint8_t kFramesTruncated = 0x1, kStackTruncated = 0x2, kModulesTruncated = 0x4;
inline constexpr uint8_t kKnownFlags = kFramesTruncated | kStackTruncated | kModulesTruncated;
inline constexpr uint8_t kKnownWalkOptions =
    SFU_CRASH_WALKED_FP_FALLBACK | SFU_CRASH_WALKED_BACK_CHAIN | SFU_CRASH_WALKED_ARM64_TBI;

// Registers: pc, r[0..31], valid, 4 zero bytes.
namespace regs {
inline constexpr uint32_t kAt = hdr::kSize;
inline constexpr uint32_t kPc = 0, kR = 8, kValid = 8 + 8 * SFU_REGS_MAX, kPad = kValid + 4;
inline constexpr uint32_t kSize = kPad + 4;
}  // namespace regs
inline constexpr uint32_t kFixedSize = regs::kAt + regs::kSize;
static_assert(kFixedSize == SFU_CRASH_FIXED_SIZE, "crash.h states the fixed size");

// A module: text range, build-id size, 7 zero bytes, build-id (zero past its size), name
// (NUL-terminated, zero after the NUL).
namespace module {
inline constexpr uint32_t kTextStart = 0, kTextEnd = 8, kBuildIdSize = 16, kReserved = 17;
inline constexpr uint32_t kBuildId = 24, kName = kBuildId + SFU_CRASH_BUILD_ID_MAX;
inline constexpr uint32_t kSize = kName + SFU_CRASH_NAME_MAX;
}  // namespace module

// A frame: pc, sp, module index (kNoModule: none), source, reliable, stack kind, 3 zero bytes.
namespace frame {
inline constexpr uint32_t kPc = 0, kSp = 8, kModule = 16, kSource = 18, kReliable = 19;
inline constexpr uint32_t kStackKind = 20, kReserved = 21, kSize = 24;
inline constexpr uint16_t kNoModule = 0xffff;
}  // namespace frame

// A stack window: address, size (both multiples of 8), kind, 3 zero bytes, then the bytes.
namespace window {
inline constexpr uint32_t kAddr = 0, kSize = 8, kKind = 12, kReserved = 13, kHeader = 16;
inline constexpr uint32_t kAlign = 8;
}  // namespace window
// Windows one capture writes at most (one per stack the walk visited).
inline constexpr uint32_t kMaxWindows = 8;

// Where the parts start, from the counts: header, registers, modules, frames, windows.
constexpr uint32_t modules_at() { return kFixedSize; }
constexpr uint32_t frames_at(uint32_t num_modules) { return modules_at() + num_modules * module::kSize; }
constexpr uint32_t windows_at(uint32_t num_modules, uint32_t num_frames) {
  return frames_at(num_modules) + num_frames * frame::kSize;
}

// The state word of an area (8-byte aligned: the word is updated atomically).
inline uint32_t *state_word(void *area) { return reinterpret_cast<uint32_t *>(static_cast<uint8_t *>(area) + hdr::kState); }

// Stores the low n bytes of v at p in the given byte order.
inline void put(uint8_t *p, uint64_t v, unsigned n, bool big_endian) {
  for (unsigned i = 0; i < n; i++) p[big_endian ? n - 1 - i : i] = uint8_t(v >> (8 * i));
}

}  // namespace sfu::crash
