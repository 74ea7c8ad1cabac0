#include "unwind/memory.h"

namespace sfu::unwind {

sfu_stop read_stack_word(const sfu_walk_config &c, uint64_t addr, bool big_endian, uint64_t &out, int hint) {
  // A target build walks its own ABI's stacks, in the CPU's byte order.
  if (SFU_BUILD_ABI != 0) big_endian = sframe::kNativeBigEndian;
  if (!readable(c, addr, hint)) return SFU_STOP_READ_REFUSED;
  if (sfu_hook_read_nofault) {
    // Copied into out itself, then put in order: no buffer, so no frame beyond the save area.
    if (sfu_hook_read_nofault(&out, addr, 8) != 0) return SFU_STOP_READ_REFUSED;
    out = sframe::load_field<8>(reinterpret_cast<const uint8_t *>(&out), big_endian);
    return SFU_STOP_NONE;
  }
  out = load_stack_word(addr, big_endian);
  return SFU_STOP_NONE;
}

}  // namespace sfu::unwind
