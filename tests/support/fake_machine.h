// Test helper: stacks laid out in a fake address space for any of the three architectures, and
// tables registered for the duration of a test. The unit-test binary defines
// sfu_hook_read_nofault to read this memory, so every read a walk makes is seen and checked.
#pragma once

#include <stdint.h>

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "sfu/unwind.h"
#include "support/sframe_builder.h"
#include "support/walks.h"

namespace sfu::test {

class FakeMemory {
 public:
  explicit FakeMemory(bool big_endian) : big_(big_endian) {}
  ~FakeMemory();

  // Maps [lo, hi) as zeroed memory and declares it as a stack of the given kind.
  void add_stack(uint64_t lo, uint64_t hi, uint32_t kind = SFU_STACK_TASK);
  // Stores a 64-bit word in the target byte order.
  void put(uint64_t addr, uint64_t value);
  // Makes [addr, addr + 8) fail to read, as an unmapped page would.
  void poison(uint64_t addr) { poisoned_.push_back(addr); }

  const std::vector<sfu_stack> &stacks() const { return stacks_; }
  // The walk configuration for these stacks; also makes this the memory the hook serves.
  sfu_walk_config config(uint8_t abi, uint32_t max_frames = 0);

  // Every read the walker made, and the ones outside every declared stack (must stay empty).
  const std::vector<uint64_t> &reads() const { return reads_; }
  const std::vector<uint64_t> &stray_reads() const { return stray_; }

  // The hook's view: copies from this memory if mapped, else fails. Safe from several threads
  // at once (walks on many CPUs); put() is not.
  int read(void *dst, uint64_t src, size_t len);

 private:
  bool big_;
  std::vector<sfu_stack> stacks_;
  std::map<uint64_t, std::vector<uint8_t>> regions_;  // lo -> bytes
  std::vector<uint64_t> poisoned_, reads_, stray_;
  std::mutex record_;  // guards reads_ and stray_
};

// What a module may bring besides its table (sfu_module_desc), as bytes the test owns.
struct ModuleExtras {
  std::vector<uint8_t> symbols;  // a .sfu_symbols section; empty: none given
  uint64_t symbols_addr = 0;
  std::vector<uint8_t> build_id_note;  // empty: none given
};

// A table registered for one test's lifetime (with sfu_register_module when given extras).
class Registered {
 public:
  Registered(const TableSpec &spec, uint64_t text_start, uint64_t text_end, const char *name = "test");
  Registered(const TableSpec &spec, uint64_t text_start, uint64_t text_end, const char *name, ModuleExtras extras);
  ~Registered();
  sfu_error error() const { return error_; }
  const sfu_module &module() const { return module_; }

 private:
  std::vector<uint8_t> bytes_;
  ModuleExtras extras_;
  sfu_module module_{};
  sfu_error error_;
};

sfu_regs regs_with(uint64_t pc, std::initializer_list<std::pair<int, uint64_t>> values);

}  // namespace sfu::test
