#include "unwind/memory.h"

#include "sframe/bytes.h"

namespace sfu::unwind {

bool read_word(const sfu_walk_config &c, uint64_t addr, bool big_endian, uint64_t &out, int hint) {
  if (addr % 8 != 0 || !in_stacks(c, addr, 8, hint)) return false;
  if (sfu_hook_read_nofault) {
    uint8_t bytes[8];
    if (sfu_hook_read_nofault(bytes, addr, 8) != 0) return false;
    out = sframe::load_field<8>(bytes, big_endian);
    return true;
  }
  // Declared stack memory is mapped by contract: one aligned access, not split or elided.
  uint64_t word = *reinterpret_cast<const volatile uint64_t *>(uintptr_t(addr));
  out = big_endian == sframe::kNativeBigEndian ? word : __builtin_bswap64(word);
  return true;
}

}  // namespace sfu::unwind
