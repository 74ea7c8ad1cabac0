// arm64: a row with only a CFA leaves the RA in the link register (x30) and FP unchanged, which
// only the topmost frame may rely on; the caller's SP is the CFA. Return addresses may carry
// pointer-authentication bits above the virtual address size: they are always stripped (a
// canonical address is unchanged by it). Frame records: [x29] saved x29, [x29 + 8] x30.
#pragma once

#include <stdint.h>

#include "config.h"
#include "sframe/format.h"
#include "sfu/unwind.h"

namespace sfu::arch {

struct Arm64 {
  static constexpr uint8_t kSp = SFU_ARM64_SP, kFp = SFU_ARM64_FP;
  static constexpr int kLinkRegister = SFU_ARM64_LR;
  static constexpr int64_t kSpFromCfa = 0;
  static constexpr bool kFrameRecords = true;
  // The rule at a function's first instruction: the return address in x30 (bl, blr), SP and x29
  // the caller's. A frame stopped at PC 0 (a call through a NULL pointer) is walked by it.
  static constexpr sfu_row kEntryRow = {0, 0, 0, {SFU_RULE_REGISTER, kSp, 0}, {SFU_RULE_UNCHANGED, 0, 0},
                                        {SFU_RULE_UNCHANGED, 0, 0}, 0};
  // Whether a PC a trap frame or the start registers hold is a stop at address 0: an instruction
  // abort or an undefined instruction there, both with ELR 0.
  static constexpr bool at_address_zero(uint64_t pc) { return pc == 0; }
  // The one architecture of either byte order (a host build walks both).
  static constexpr bool big_endian(uint8_t abi) { return sframe::abi_big_endian(abi); }

  // Clears the bits above the VA size of a user address, sets them for a kernel one (bit 55
  // tells which half, as the MMU sees it). With top-byte-ignore the top byte is a tag, not part
  // of the signature: it is kept.
  static uint64_t strip_pac_bits(uint64_t ra, unsigned va_bits, bool tbi) {
    uint64_t mask = (uint64_t(1) << va_bits) - 1;
    uint64_t stripped = (ra >> 55) & 1 ? ra | ~mask : ra & mask;
    constexpr uint64_t kTopByte = uint64_t(0xff) << 56;
    return tbi ? (stripped & ~kTopByte) | (ra & kTopByte) : stripped;
  }

  static uint64_t strip_ra(uint64_t ra, bool signed_ra, unsigned va_bits) {
#if defined(__aarch64__) && !defined(SFU_HOSTED)
    if (signed_ra) {
      // XPACLRI strips LR in place; it is a hint, a no-op on CPUs without PAC.
      register uint64_t lr asm("x30") = ra;
      asm("hint #7" : "+r"(lr));
      ra = lr;
    }
#else
    (void)signed_ra;
#endif
    return strip_pac_bits(ra, va_bits, config::kArm64Tbi);  // sfu_walk_start resolved and checked it
  }
};

}  // namespace sfu::arch
