// The registered tables: a fixed array of slots, each a pointer published with release stores
// and read with acquire loads. Walks only read it; registrations claim a free slot with a
// compare-and-swap, so several CPUs may register at once. No locks, no allocation.
#include "config.h"
#include "sfu/unwind.h"
#include "unwind/registry.h"

namespace {

constexpr unsigned kSlots = CONFIG_SFU_MAX_MODULES;

// Zero-initialized: no constructor runs before the kernel's first registration.
sfu_module *g_slots[kSlots];

sfu_module *load(unsigned i) { return __atomic_load_n(&g_slots[i], __ATOMIC_ACQUIRE); }

bool overlaps(const sfu_table &a, const sfu_table &b) {
  return a.text_start < b.text_end && b.text_start < a.text_end;
}

// What the module brings besides its table: a refusal is recorded, never fatal.
void attach_extras(sfu_module &m, const sfu_module_desc &d) {
  sfu_symbols_desc sd{d.symbols, d.symbols_size, d.symbols_addr, m.table.text_start, m.table.text_end};
  m.symbols_error = sfu_symbols_init(&m.symbols, &sd);
  m.build_id_error = sfu_build_id_from_note(d.build_id_note, d.build_id_note_size, m.table.big_endian,
                                            &m.build_id, &m.build_id_size);
}

}  // namespace

extern "C" enum sfu_error sfu_register_module(struct sfu_module *module, const struct sfu_module_desc *desc) {
  if (!module || !desc) return SFU_E_NULL_ARGUMENT;
  if (desc->table.text_end <= desc->table.text_start) return SFU_E_NO_TEXT_RANGE;
  // A module already published must not be rewritten under the walks reading it.
  for (unsigned i = 0; i < kSlots; i++)
    if (load(i) == module) return SFU_E_TEXT_OVERLAP;
  if (sfu_error e = sfu_table_init(&module->table, &desc->table)) return e;
  module->name = desc->name;
  for (unsigned i = 0; i < kSlots; i++) {
    const sfu_module *other = load(i);
    if (other && overlaps(other->table, module->table)) return SFU_E_TEXT_OVERLAP;
  }
  attach_extras(*module, *desc);
  // Two CPUs registering overlapping text at the same moment could both pass the check above;
  // registration of one image's modules is serialized by the kernel's module loader anyway.
  for (unsigned i = 0; i < kSlots; i++) {
    sfu_module *expected = nullptr;
    if (__atomic_compare_exchange_n(&g_slots[i], &expected, module, false, __ATOMIC_RELEASE,
                                    __ATOMIC_RELAXED))
      return SFU_OK;
  }
  return SFU_E_REGISTRY_FULL;
}

extern "C" enum sfu_error sfu_register(struct sfu_module *module, const struct sfu_table_desc *desc,
                                       const char *name) {
  if (!desc) return SFU_E_NULL_ARGUMENT;
  sfu_module_desc d{};
  d.table = *desc;
  d.name = name;
  return sfu_register_module(module, &d);
}

extern "C" enum sfu_error sfu_unregister(struct sfu_module *module) {
  for (unsigned i = 0; i < kSlots; i++) {
    sfu_module *expected = module;
    if (module && __atomic_compare_exchange_n(&g_slots[i], &expected, nullptr, false,
                                              __ATOMIC_RELEASE, __ATOMIC_RELAXED))
      return SFU_OK;
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
