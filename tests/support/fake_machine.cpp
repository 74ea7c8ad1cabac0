#include "support/fake_machine.h"

#include <string.h>

#include <stdexcept>

namespace sfu::test {
namespace {
FakeMemory *g_memory = nullptr;  // the memory the hook serves; one walk at a time
}

FakeMemory::~FakeMemory() {
  if (g_memory == this) g_memory = nullptr;
}

void FakeMemory::add_stack(uint64_t lo, uint64_t hi, uint32_t kind) {
  regions_[lo] = std::vector<uint8_t>(hi - lo);
  stacks_.push_back({lo, hi, kind});
}

void FakeMemory::put(uint64_t addr, uint64_t value) {
  for (auto &[lo, bytes] : regions_) {
    if (addr >= lo && addr + 8 <= lo + bytes.size()) {
      for (int i = 0; i < 8; i++) bytes[addr - lo + i] = uint8_t(value >> (big_ ? 8 * (7 - i) : 8 * i));
      return;
    }
  }
  throw std::runtime_error("put outside the fake memory");
}

sfu_walk_config FakeMemory::config(uint8_t abi, uint32_t max_frames) {
  g_memory = this;
  sfu_walk_config c{};
  c.stacks = stacks_.data();
  c.num_stacks = uint32_t(stacks_.size());
  c.max_frames = max_frames;
  c.abi = abi;
  return c;
}

int FakeMemory::read(void *dst, uint64_t src, size_t len) {
  bool declared = false;
  for (const sfu_stack &s : stacks_) declared |= src >= s.lo && src + len <= s.hi;
  {
    std::lock_guard<std::mutex> hold(record_);
    reads_.push_back(src);
    if (!declared) stray_.push_back(src);
  }
  for (uint64_t p : poisoned_)
    if (src < p + 8 && p < src + len) return -1;
  for (auto &[lo, bytes] : regions_) {
    if (src >= lo && src + len <= lo + bytes.size()) {
      memcpy(dst, bytes.data() + (src - lo), len);
      return 0;
    }
  }
  return -1;
}

Registered::Registered(const TableSpec &spec, uint64_t text_start, uint64_t text_end, const char *name)
    : bytes_(build_section(spec)) {
  sfu_table_desc d{};
  d.section = bytes_.data();
  d.size = bytes_.size();
  d.section_addr = spec.section_addr;
  d.text_start = text_start;
  d.text_end = text_end;
  error_ = sfu_register(&module_, &d, name);
}

Registered::Registered(const TableSpec &spec, uint64_t text_start, uint64_t text_end, const char *name,
                       ModuleExtras extras)
    : bytes_(build_section(spec)), extras_(std::move(extras)) {
  sfu_module_desc d{};
  d.table.section = bytes_.data();
  d.table.size = bytes_.size();
  d.table.section_addr = spec.section_addr;
  d.table.text_start = text_start;
  d.table.text_end = text_end;
  d.name = name;
  if (!extras_.symbols.empty()) {
    d.symbols = extras_.symbols.data();
    d.symbols_size = extras_.symbols.size();
    d.symbols_addr = extras_.symbols_addr;
  }
  if (!extras_.build_id_note.empty()) {
    d.build_id_note = extras_.build_id_note.data();
    d.build_id_note_size = extras_.build_id_note.size();
  }
  error_ = sfu_register_module(&module_, &d);
}

Registered::~Registered() {
  if (error_ == SFU_OK) sfu_unregister(&module_);
}

sfu_regs regs_with(uint64_t pc, std::initializer_list<std::pair<int, uint64_t>> values) {
  sfu_regs r{};
  r.pc = pc;
  for (auto [n, v] : values) {
    r.r[n] = v;
    r.valid |= 1u << n;
  }
  return r;
}

}  // namespace sfu::test

// The kernel hook, as a kernel with a no-fault copy would define it: here it serves the fake
// memory of the running test.
extern "C" int sfu_hook_read_nofault(void *dst, uint64_t src, size_t len) {
  return sfu::test::g_memory ? sfu::test::g_memory->read(dst, src, len) : -1;
}
