// SFrame on-disk format: every constant and bit field, listed once.
// Facts: ../shared/reference/sframe-versions.md (V1, V2, V3), the V2 spec and V1 mail in seeds/.
#pragma once

#include <stdint.h>

#include "config.h"
#include "sfu/sframe.h"

namespace sfu::sframe {

inline constexpr uint16_t kMagic = 0xdee2;
inline constexpr uint32_t kHeaderSize = 28;

inline constexpr uint8_t kVersion1 = 1;
inline constexpr uint8_t kVersion2 = 2;
inline constexpr uint8_t kVersion3 = 3;

// Sections of 2 GiB or more are refused, so offset arithmetic never wraps in 32 bits.
inline constexpr uint32_t kMaxSectionSize = 0x7fffffff;

// Rules keep DWARF register numbers in a byte (sfu_rule.reg); a larger one cannot be said.
inline constexpr uint32_t kMaxRegister = 255;

// Header field offsets.
namespace hdr {
inline constexpr uint32_t kMagic = 0x00, kVersion = 0x02, kFlags = 0x03, kAbi = 0x04;
inline constexpr uint32_t kFixedFp = 0x05, kFixedRa = 0x06, kAuxLen = 0x07;
inline constexpr uint32_t kNumFdes = 0x08, kNumFres = 0x0c, kFreLen = 0x10;
inline constexpr uint32_t kFdeOff = 0x14, kFreOff = 0x18;
}  // namespace hdr

// Flag bits each version defines.
inline constexpr uint8_t kFlagsV1 = 0x1 | 0x2;
inline constexpr uint8_t kFlagsV2 = 0x1 | 0x2 | 0x4;
inline constexpr uint8_t kFlagsV3 = 0x1 | 0x4;

// FDE sizes in the FDE sub-section. V3 keeps 5 more bytes at the head of each FRE chain.
inline constexpr uint8_t kFdeSizeV1 = 17;
inline constexpr uint8_t kFdeSizeV2 = 20;
inline constexpr uint8_t kFdeSizeV3 = 16;
inline constexpr uint32_t kAttrSizeV3 = 5;
constexpr uint8_t fde_size(uint8_t version) {
  return version == kVersion1 ? kFdeSizeV1 : version == kVersion2 ? kFdeSizeV2 : kFdeSizeV3;
}
// Whether an opened table is V1: never in a build without V1 (CONFIG_SFU_SFRAME_V1=n), whose open
// refuses such a table, so that V1's cases compile away there.
constexpr bool is_v1(uint8_t version) { return config::kVersion1 && version == kVersion1; }

// FDE info byte.
constexpr uint8_t fde_fre_type(uint8_t info) { return info & 0xf; }
constexpr bool fde_pcmask(uint8_t info) { return (info >> 4) & 1; }
constexpr bool fde_pauth_key_b(uint8_t info) { return (info >> 5) & 1; }
constexpr bool fde_signal(uint8_t info) { return (info >> 7) & 1; }  // V3 only
constexpr uint8_t make_fde_info(uint8_t fre_type, bool pcmask, bool pauth_key_b, bool signal) {
  return uint8_t((fre_type & 0xf) | (pcmask << 4) | (pauth_key_b << 5) | (signal << 7));
}
inline constexpr uint8_t kFdeInfoReservedV12 = 0xc0;             // bits 6-7
inline constexpr uint8_t kFdeInfoReservedV3 = 0x40;              // bit 6
// V3 info2 byte: low 5 bits FDE type, the rest reserved.
constexpr uint8_t fde_type(uint8_t info2) { return info2 & 0x1f; }
inline constexpr uint8_t kFdeInfo2Reserved = 0xe0;
inline constexpr uint8_t kFdeTypeDefault = 0;
inline constexpr uint8_t kFdeTypeFlex = 1;

inline constexpr uint8_t kFreTypeAddr1 = 0, kFreTypeAddr2 = 1, kFreTypeAddr4 = 2;
constexpr uint32_t fre_addr_size(uint8_t fre_type) { return 1u << fre_type; }

// V1 has no repeat size; binutils 2.40 matched PCMASK rows with this fixed mask.
inline constexpr uint32_t kV1PcmaskMask = 0xff;

// FRE info byte.
constexpr bool fre_base_sp(uint8_t info) { return info & 1; }
constexpr uint8_t fre_word_count(uint8_t info) { return (info >> 1) & 0xf; }
constexpr uint8_t fre_word_size_code(uint8_t info) { return (info >> 5) & 3; }
constexpr bool fre_ra_signed(uint8_t info) { return (info >> 7) & 1; }
constexpr uint8_t make_fre_info(bool base_sp, uint8_t word_count, uint8_t word_size_code, bool ra_signed) {
  return uint8_t(base_sp | ((word_count & 0xf) << 1) | ((word_size_code & 3) << 5) | (ra_signed << 7));
}
inline constexpr uint8_t kWordSizeInvalid = 3;

inline constexpr uint8_t kMaxWordsDefault = 3;
inline constexpr uint8_t kMaxWordsFlex = 6;

// V3 flexible rule control word.
constexpr bool flex_reg_p(uint32_t ctl) { return ctl & 1; }
constexpr bool flex_deref_p(uint32_t ctl) { return (ctl >> 1) & 1; }
constexpr bool flex_unused_bit(uint32_t ctl) { return (ctl >> 2) & 1; }
constexpr uint32_t flex_reg(uint32_t ctl) { return ctl >> 3; }
// Without reg_p the base is the CFA and `reg` is not stored.
constexpr uint32_t make_flex_control(bool reg_p, uint32_t reg, bool deref_p) {
  return (reg_p ? (reg << 3) | 1 : 0) | (deref_p ? 2 : 0);
}

// s390x: CFA offsets are stored as (offset - 160) / 8; the caller's SP is CFA - 160.
inline constexpr int64_t kS390xCfaAdjust = 160;
inline constexpr int64_t kS390xCfaScale = 8;
constexpr int64_t s390x_cfa_decode(int32_t w) { return int64_t(w) * kS390xCfaScale + kS390xCfaAdjust; }
// V2 s390x: an odd RA/FP word names a DWARF register, w >> 1.
constexpr bool s390x_v2_is_regnum(int32_t w) { return w & 1; }
constexpr uint32_t s390x_v2_regnum(int32_t w) { return uint32_t(w) >> 1; }

// DWARF numbers of the stack and frame pointer registers, per ABI.
inline constexpr uint8_t kAmd64Sp = 7, kAmd64Fp = 6;
inline constexpr uint8_t kAarch64Sp = 31, kAarch64Fp = 29;
inline constexpr uint8_t kS390xSp = 15, kS390xFp = 11;

// The byte order an ABI byte names, for a header not yet checked (open's byte-order check).
constexpr bool abi_byte_big_endian(uint8_t abi) { return abi == SFU_ABI_AARCH64_BE || abi == SFU_ABI_S390X_BE; }

// Whether this build serves the ABI: every known one on the host, its own on a target (a
// cursor of another is a bad start, a crash record of another is refused).
constexpr bool abi_served(uint8_t abi) {
  return SFU_BUILD_ABI == 0 ? abi >= SFU_ABI_AARCH64_BE && abi <= SFU_ABI_S390X_BE : abi == SFU_BUILD_ABI;
}

// The predicates below are for an ABI already checked to be one this build serves: an opened
// table's, a cursor's, a readable crash record's. A target build serves only its own ABI (open
// refuses a table of another, sfu_walk_start a cursor of another), so there the ABI is a constant
// and the other ABIs' cases compile away; the host build serves all four.
constexpr uint8_t served_abi(uint8_t abi) { return SFU_BUILD_ABI != 0 ? uint8_t(SFU_BUILD_ABI) : abi; }
constexpr bool abi_aarch64(uint8_t abi) {
  return served_abi(abi) == SFU_ABI_AARCH64_BE || served_abi(abi) == SFU_ABI_AARCH64_LE;
}
constexpr bool abi_amd64(uint8_t abi) { return served_abi(abi) == SFU_ABI_AMD64_LE; }
constexpr bool abi_s390x(uint8_t abi) { return served_abi(abi) == SFU_ABI_S390X_BE; }
constexpr bool abi_big_endian(uint8_t abi) { return abi_byte_big_endian(served_abi(abi)); }
// An opened table's byte order (open checked it is its ABI's): a constant in a target build.
constexpr bool table_big_endian(const sfu_table &t) {
  return SFU_BUILD_ABI != 0 ? abi_big_endian(t.abi) : t.big_endian != 0;
}
constexpr uint8_t abi_sp_reg(uint8_t abi) {
  return abi_aarch64(abi) ? kAarch64Sp : abi_s390x(abi) ? kS390xSp : kAmd64Sp;
}
constexpr uint8_t abi_fp_reg(uint8_t abi) {
  return abi_aarch64(abi) ? kAarch64Fp : abi_s390x(abi) ? kS390xFp : kAmd64Fp;
}

}  // namespace sfu::sframe
