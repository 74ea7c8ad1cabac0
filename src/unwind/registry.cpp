// The registered tables: a fixed array of slots, each a pointer published with release stores
// and read with acquire loads. Walks only read it; registrations claim a free slot with a
// compare-and-swap (src/atomic.h), so several CPUs may register at once. No locks, no allocation.
//
// Each slot keeps its own copy of its module's text range, and registration reads only those
// copies: a module unregistered and freed on another CPU while a registration runs is never
// read (the rule for freeing a module waits for walks, not for registrations).
#include "atomic.h"
#include "config.h"
#include "sframe/table.h"
#include "sfu/unwind.h"
#include "unwind/registry.h"
#include "unwind/row_cache.h"

namespace {

constexpr unsigned kSlots = CONFIG_SFU_MAX_MODULES;

// Zero-initialized: no constructor runs before the kernel's first registration.
sfu_module *g_slots[kSlots];
uint64_t g_text_start[kSlots], g_text_end[kSlots];  // [start, end) of the slot's module; 0, 0: none

// Marks a slot a registration has claimed but not yet published (or an unregistration is
// emptying): walks see no module in it. Only its address is used.
alignas(sfu_module) char g_claimed_tag;
sfu_module *claimed() { return reinterpret_cast<sfu_module *>(&g_claimed_tag); }

sfu_module *load(unsigned i) {
  sfu_module *m = __atomic_load_n(&g_slots[i], __ATOMIC_ACQUIRE);
  return m == claimed() ? nullptr : m;
}

// Sequentially consistent, with the stores in claim(): of two registrations racing with
// overlapping text, at least one sees the other's range.
bool overlaps_another(unsigned self, uint64_t start, uint64_t end) {
  for (unsigned i = 0; i < kSlots; i++) {
    if (i == self) continue;
    uint64_t s = __atomic_load_n(&g_text_start[i], __ATOMIC_SEQ_CST);
    uint64_t e = __atomic_load_n(&g_text_end[i], __ATOMIC_SEQ_CST);
    if (s < end && start < e) return true;
  }
  return false;
}

// Folded into both callers: three stores are less code than a call (the compiler built for size
// keeps it a call of its own).
[[gnu::always_inline]] inline void release(unsigned i) {
  __atomic_store_n(&g_text_end[i], 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&g_text_start[i], 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&g_slots[i], nullptr, __ATOMIC_RELEASE);
}

// A free slot, claimed and given the range; -1 if every slot is taken.
int claim(uint64_t start, uint64_t end) {
  for (unsigned i = 0; i < kSlots; i++) {
    sfu_module *expected = nullptr;
    if (!sfu::compare_and_swap(&g_slots[i], expected, claimed()))
      continue;
    __atomic_store_n(&g_text_start[i], start, __ATOMIC_SEQ_CST);
    __atomic_store_n(&g_text_end[i], end, __ATOMIC_SEQ_CST);
    return int(i);
  }
  return -1;
}

// What the module brings besides its table (none for sfu_register): a refusal is recorded,
// never fatal.
void attach_extras(sfu_module &m, const sfu_module_desc *d) {
  if constexpr (sfu::config::kSymbols) {
    sfu_symbols_desc sd{nullptr, 0, 0, m.table.text_start, m.table.text_end};
    if (d) {
      sd.section = d->symbols;
      sd.size = d->symbols_size;
      sd.section_addr = d->symbols_addr;
    }
    m.symbols_error = sfu_symbols_init(&m.symbols, &sd);
  } else {  // the stub's answer, without linking the stub
    m.symbols.ready = 0;
    m.symbols_error = d && d->symbols && d->symbols_size ? SFU_E_SYMBOLS_DISABLED : SFU_E_NO_SYMBOLS;
  }
  if constexpr (sfu::config::kBuildId) {
    m.build_id_error = sfu_build_id_from_note(d ? d->build_id_note : nullptr, d ? d->build_id_note_size : 0,
                                              m.table.big_endian, &m.build_id, &m.build_id_size);
  } else {  // the note is not read: its lines say "no build-id"
    m.build_id = nullptr;
    m.build_id_size = 0;
    m.build_id_error = d && d->build_id_note && d->build_id_note_size ? SFU_E_BUILD_ID_DISABLED : SFU_E_NO_BUILD_ID;
  }
}

// Both entry points: the table's description read in place, not copied into a module
// description (a copy is a memcpy call at -Os on arm64, and code on every architecture).
sfu_error register_module(sfu_module *module, const sfu_table_desc *table, const char *name,
                          const sfu_module_desc *extras) {
  if (!module || !table) return SFU_E_NULL_ARGUMENT;
  if (table->text_end <= table->text_start) return SFU_E_NO_TEXT_RANGE;
  // A module already published must not be rewritten under the walks reading it.
  // (The slot read as is: a module is never the claimed tag.)
  for (unsigned i = 0; i < kSlots; i++)
    if (__atomic_load_n(&g_slots[i], __ATOMIC_ACQUIRE) == module) return SFU_E_TEXT_OVERLAP;
  if (sfu_error e = sfu::sframe::init_table(module->table, *table)) return e;
  // Without CONFIG_SFU_BLOCK_INDEX the memory is ignored and the builder is not linked.
  if (sfu::config::kBlockIndex && extras && extras->index)
    if (sfu_error e = sfu_table_index(&module->table, extras->index, extras->index_size)) return e;
  module->name = name;
  int slot = claim(module->table.text_start, module->table.text_end);
  if (slot < 0) return SFU_E_REGISTRY_FULL;
  if (overlaps_another(unsigned(slot), module->table.text_start, module->table.text_end)) {
    release(unsigned(slot));
    return SFU_E_TEXT_OVERLAP;
  }
  attach_extras(*module, extras);
  // Without the row cache the number keys nothing: 1 says registered, without the counter.
  __atomic_store_n(&module->serial, sfu::config::kRowCacheEntries ? sfu::unwind::next_registration_serial() : 1,
                   __ATOMIC_RELAXED);
  __atomic_store_n(&g_slots[slot], module, __ATOMIC_RELEASE);
  return SFU_OK;
}

}  // namespace

extern "C" enum sfu_error sfu_register_module(struct sfu_module *module, const struct sfu_module_desc *desc) {
  return register_module(module, desc ? &desc->table : nullptr, desc ? desc->name : nullptr, desc);
}

extern "C" enum sfu_error sfu_register(struct sfu_module *module, const struct sfu_table_desc *desc,
                                       const char *name) {
  return register_module(module, desc, name, nullptr);
}

extern "C" enum sfu_error sfu_unregister(struct sfu_module *module) {
  if (!module) return SFU_E_NOT_REGISTERED;
  for (unsigned i = 0; i < kSlots; i++) {
    sfu_module *expected = module;
    // Withdrawn from walks first (the slot shows no module), then its rows leave the row cache,
    // then its range is cleared and the slot freed: no registration of its text is published
    // before its rows are gone.
    if (sfu::compare_and_swap(&g_slots[i], expected, claimed())) {
      sfu::unwind::retire_rows(*module);
      release(i);
      return SFU_OK;
    }
  }
  return SFU_E_NOT_REGISTERED;
}

extern "C" const struct sfu_module *sfu_module_for_pc(uint64_t pc) {
  for (unsigned i = 0; i < kSlots; i++) {
    const sfu_module *m = load(i);
    if (m && pc >= m->table.text_start && pc < m->table.text_end) return m;
  }
  return nullptr;
}

const sfu_module *sfu::unwind::module_in_slot(unsigned i) { return i < kSlots ? load(i) : nullptr; }
