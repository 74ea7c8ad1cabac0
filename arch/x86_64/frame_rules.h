// x86_64: the return address sits at the fixed CFA offset the table's header gives (-8); the
// caller's SP is the CFA. Frame records: [rbp] saved rbp, [rbp + 8] return address.
#pragma once

#include <stdint.h>

#include "sfu/unwind.h"

namespace sfu::arch {

struct X86_64 {
  static constexpr uint8_t kSp = SFU_X86_64_RSP, kFp = SFU_X86_64_RBP;
  static constexpr int kLinkRegister = -1;  // call pushes the RA: never in a register
  static constexpr int64_t kSpFromCfa = 0;
  static constexpr bool kFrameRecords = true;
  static constexpr bool big_endian(uint8_t /*abi*/) { return false; }
  static uint64_t strip_ra(uint64_t ra, bool /*signed_ra*/, unsigned /*va_bits*/) { return ra; }
};

}  // namespace sfu::arch
