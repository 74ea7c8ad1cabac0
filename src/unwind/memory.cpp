#include "unwind/memory.h"

namespace sfu::unwind {

bool read_word(const sfu_walk_config &c, uint64_t addr, bool big_endian, uint64_t &out, int hint) {
  if (!readable(c, addr, hint)) return false;
  if (sfu_hook_read_nofault) {
    uint8_t bytes[8];
    if (sfu_hook_read_nofault(bytes, addr, 8) != 0) return false;
    out = sframe::load_field<8>(bytes, big_endian);
    return true;
  }
  out = load_stack_word(addr, big_endian);
  return true;
}

}  // namespace sfu::unwind
