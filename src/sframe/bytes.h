// Bounds-checked, byte-order-aware reads from a section, one byte at a time so that no read is
// ever unaligned. Every read takes an offset and fails (returns false) past the given limit.
#pragma once

#include <stdint.h>

namespace sfu::sframe {

struct Bytes {
  const uint8_t *p;
  uint32_t size;
  bool big_endian;

  // Reads an unsigned little/big-endian integer of n bytes (1, 2, 4 or 8) at off.
  bool uint(uint32_t off, uint32_t n, uint64_t &out) const {
    if (off > size || n > size - off) return false;
    const uint8_t *q = p + off;
    // Fixed widths, so each read compiles to straight-line byte loads: this is the hot path of
    // every lookup.
    switch (n) {
      case 1: out = q[0]; return true;
      case 2: out = load<2>(q); return true;
      case 4: out = load<4>(q); return true;
      case 8: out = load<8>(q); return true;
      default: return false;
    }
  }
  template <uint32_t N>
  uint64_t load(const uint8_t *q) const {
    uint64_t v = 0;
    if (big_endian) {
#pragma GCC unroll 8
      for (uint32_t i = 0; i < N; i++) v = (v << 8) | q[i];
    } else {
#pragma GCC unroll 8
      for (uint32_t i = 0; i < N; i++) v = (v << 8) | q[N - 1 - i];
    }
    return v;
  }
  bool u8(uint32_t off, uint8_t &out) const {
    uint64_t v;
    if (!uint(off, 1, v)) return false;
    out = uint8_t(v);
    return true;
  }
  bool u16(uint32_t off, uint16_t &out) const {
    uint64_t v;
    if (!uint(off, 2, v)) return false;
    out = uint16_t(v);
    return true;
  }
  bool u32(uint32_t off, uint32_t &out) const {
    uint64_t v;
    if (!uint(off, 4, v)) return false;
    out = uint32_t(v);
    return true;
  }
  bool u64(uint32_t off, uint64_t &out) const { return uint(off, 8, out); }
};

// Sign-extends the low `bytes` bytes of v.
constexpr int64_t sign_extend(uint64_t v, uint32_t bytes) {
  uint32_t shift = 64 - 8 * bytes;
  return int64_t(v << shift) >> shift;
}

}  // namespace sfu::sframe
