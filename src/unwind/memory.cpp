#include "unwind/memory.h"

namespace sfu::unwind {

namespace {
constexpr bool kNativeBigEndian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

bool read_word(const sfu_walk_config &c, uint64_t addr, bool big_endian, uint64_t &out, int hint) {
  if (addr % 8 != 0 || !in_stacks(c, addr, 8, hint)) return false;
  uint64_t word = 0;
  if (sfu_hook_read_nofault) {
    uint8_t bytes[8];
    if (sfu_hook_read_nofault(bytes, addr, 8) != 0) return false;
    for (int i = 0; i < 8; i++) word |= uint64_t(bytes[i]) << (kNativeBigEndian ? 8 * (7 - i) : 8 * i);
  } else {
    // Declared stack memory is mapped by contract: one aligned access, not split or elided.
    word = *reinterpret_cast<const volatile uint64_t *>(uintptr_t(addr));
  }
  out = big_endian == kNativeBigEndian ? word : __builtin_bswap64(word);
  return true;
}

}  // namespace sfu::unwind
