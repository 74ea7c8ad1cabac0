// Test helper for crash records: a registered table with a build-id and a fake stack holding a
// three-frame call chain, for each ABI and byte order (x86_64, arm64 little- and big-endian,
// s390x), and an 8-byte aligned area to capture into.
#pragma once

#include <stdint.h>

#include <memory>
#include <string>
#include <vector>

#include "sfu/crash.h"
#include "support/fake_machine.h"
#include "support/sframe_builder.h"

namespace sfu::test {

// A GNU build-id note (.note.gnu.build-id contents) in the given byte order.
std::vector<uint8_t> gnu_build_id_note(bool big_endian, const std::vector<uint8_t> &id);

// The build-id every CrashMachine's module carries, and where its text is unless told otherwise.
extern const std::vector<uint8_t> kCrashBuildId;
inline constexpr uint64_t kCrashText = 0x100000, kCrashTextSize = 0x1000;

struct CrashMachine {
  uint8_t abi;
  TableSpec spec;  // the registered table, for a host that walks again
  std::unique_ptr<FakeMemory> mem;
  std::unique_ptr<Registered> reg;
  sfu_regs start{};
  std::vector<uint64_t> pcs;  // the frames a walk gives, top first; it ends at end-of-stack

  sfu_walk_config config() { return mem->config(abi); }
};

// What the machine's module brings besides its table.
struct CrashModuleOptions {
  std::vector<uint8_t> build_id = kCrashBuildId;  // empty: registered without one
  bool names = false;  // a symbol table naming the chain's functions outer, mid and leaf
  uint64_t text = kCrashText;  // where its text runs: elsewhere, an image moved from its link address
};

// The chain for one ABI (SFU_ABI_*), registered as "kernel" at [text, text + 0x1000) (outer at
// text, mid at +0x100, leaf at +0x300; the table 1 MiB above text) on a task stack at
// [0x7000, 0x8000). One machine at a time: the registry holds its text.
CrashMachine crash_machine(uint8_t abi, const CrashModuleOptions &options = {});

// Every ABI and byte order crash_machine serves.
inline constexpr uint8_t kCrashAbis[] = {SFU_ABI_AMD64_LE, SFU_ABI_AARCH64_LE, SFU_ABI_AARCH64_BE,
                                         SFU_ABI_S390X_BE};

// Memory to capture into: 8-byte aligned, filled with a pattern so stray writes show.
struct Area {
  std::vector<uint64_t> words;
  uint8_t fill;
  explicit Area(size_t bytes, uint8_t fill_ = 0xcc) : words((bytes + 7) / 8), fill(fill_) {
    for (size_t i = 0; i < words.size() * 8; i++) data()[i] = fill;
  }
  uint8_t *data() { return reinterpret_cast<uint8_t *>(words.data()); }
  size_t size() const { return words.size() * 8; }
  // Nothing was written at or after byte `from`.
  bool untouched(size_t from = 0) const {
    const uint8_t *p = reinterpret_cast<const uint8_t *>(words.data());
    for (size_t i = from; i < size(); i++)
      if (p[i] != fill) return false;
    return true;
  }
};

// Text printed through a sink.
struct PrintedText {
  std::string s;
  sfu_sink sink{[](void *ctx, char c) { static_cast<std::string *>(ctx)->push_back(c); }, &s};
  PrintedText() = default;
  PrintedText(const PrintedText &) = delete;  // the sink points at this object's string
};

}  // namespace sfu::test
