// s390x: CFA = SP at the call + 160, so the caller's SP is CFA - 160. Leaf functions may keep
// the RA in r14 (RA "not saved") or in a floating-point register: only the topmost frame may.
// Back chain (-mbackchain): the word at SP is the caller's SP; the callee saved r6-r15 in the
// caller's 160-byte register save area, so r14 is at caller SP + 112 and r11 at + 88.
#pragma once

#include <stdint.h>

#include "sfu/unwind.h"

namespace sfu::arch {

struct S390x {
  static constexpr uint8_t kSp = SFU_S390X_SP, kFp = SFU_S390X_FP;
  static constexpr int kLinkRegister = SFU_S390X_RA;
  static constexpr int64_t kSpFromCfa = -160;
  static constexpr bool kFrameRecords = false;
  static constexpr bool big_endian(uint8_t /*abi*/) { return true; }
  static constexpr int64_t kSaveAreaRa = 14 * 8, kSaveAreaFp = 11 * 8;
  static uint64_t strip_ra(uint64_t ra, bool, unsigned) { return ra; }
  // The rule at a function's first instruction: the return address in r14 (brasl, basr), r15 the
  // caller's SP, so the CFA is r15 + 160; r11 the caller's. A frame stopped at address 0 (a call
  // through a NULL pointer) is walked by it.
  static constexpr sfu_row kEntryRow = {0, 0, 0, {SFU_RULE_REGISTER, kSp, -kSpFromCfa}, {SFU_RULE_UNCHANGED, 0, 0},
                                        {SFU_RULE_UNCHANGED, 0, 0}, 0};
  // Whether a PC a trap frame or the start registers hold is a stop at address 0: 0 itself (a
  // nullified instruction there), or the address after the instruction at 0 (2, 4 or 6 bytes
  // long), where the old PSW of a suppressed or completed one points. The lowcore is at 0: where
  // its first halfword is 0 (opcode 0x00), an operation exception, the PSW at 2.
  static constexpr bool at_address_zero(uint64_t pc) { return pc <= 6 && pc % 2 == 0; }
};

}  // namespace sfu::arch
