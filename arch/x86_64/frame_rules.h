// x86_64: the return address sits at the fixed CFA offset the table's header gives (-8); the
// caller's SP is the CFA. Frame records: [rbp] saved rbp, [rbp + 8] return address. At a
// function's first instruction (kEntryRow) the return address is at SP.
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
  // The rule at a function's first instruction: the call pushed the return address at SP, the
  // CFA is just above it, RBP is the caller's. A frame stopped at PC 0 (a call through a NULL
  // pointer) is walked by it.
  static constexpr sfu_row kEntryRow = {0, 0, 0, {SFU_RULE_REGISTER, kSp, 8}, {SFU_RULE_AT_CFA, 0, -8},
                                        {SFU_RULE_UNCHANGED, 0, 0}, 0};
  // Whether a PC a trap frame or the start registers hold is a stop at address 0: a fetch there
  // faults with RIP 0.
  static constexpr bool at_address_zero(uint64_t pc) { return pc == 0; }
};

}  // namespace sfu::arch
