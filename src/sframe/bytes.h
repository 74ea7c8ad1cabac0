// Bounds-checked, byte-order-aware reads from a section. Each field is one whole load of its
// width (a fixed-size memcpy, which the compiler turns into a single load), byte-swapped when the
// table's order is not the CPU's; byte by byte where the target must not access memory unaligned
// (arm64 kernels built with -mstrict-align). Every read takes an offset and fails (returns false)
// past the given limit.
#pragma once

#include <stdint.h>

namespace sfu::sframe {

inline constexpr bool kNativeBigEndian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

// arm64 kernel code is built never to access memory unaligned (-mstrict-align, which gcc does not
// announce in a macro): an unaligned memcpy would become a call, so there the field is put
// together from its bytes.
#if defined(__aarch64__)
inline constexpr bool kByteLoads = true;
#else
inline constexpr bool kByteLoads = false;
#endif

// Built for size (CONFIG_SFU_OPTIMIZE_SIZE, read from the generated header where the core is built),
// those byte loads are one loop, called, not unrolled at each of the dozens of fields read.
#if defined(__aarch64__) && __has_include("sfu_autoconf.h")
#include "sfu_autoconf.h"
#endif
#if defined(__aarch64__) && defined(CONFIG_SFU_OPTIMIZE_SIZE)
inline constexpr bool kByteLoadCalls = true;
#else
inline constexpr bool kByteLoadCalls = false;
#endif

// The n-byte field at q, a byte at a time: the one copy kByteLoadCalls calls.
[[gnu::noinline]] inline uint64_t load_bytes(const uint8_t *q, uint32_t n, bool big_endian) {
  uint64_t v = 0;
  for (uint32_t i = 0; i < n; i++) v = (v << 8) | q[big_endian ? i : n - 1 - i];
  return v;
}

// The N-byte (1, 2, 4 or 8) field at q, stored in the given byte order; q may be unaligned.
template <uint32_t N>
inline uint64_t load_field(const uint8_t *q, bool big_endian) {
  if constexpr (N == 1) {
    return q[0];
  } else if constexpr (kByteLoadCalls) {
    return load_bytes(q, N, big_endian);
  } else if constexpr (kByteLoads) {
    uint64_t v = 0;
    if (big_endian) {
#pragma GCC unroll 8
      for (uint32_t i = 0; i < N; i++) v = (v << 8) | q[i];
    } else {
#pragma GCC unroll 8
      for (uint32_t i = 0; i < N; i++) v = (v << 8) | q[N - 1 - i];
    }
    return v;
  } else if constexpr (N == 2) {
    uint16_t v;
    __builtin_memcpy(&v, q, 2);
    return big_endian == kNativeBigEndian ? v : __builtin_bswap16(v);
  } else if constexpr (N == 4) {
    uint32_t v;
    __builtin_memcpy(&v, q, 4);
    return big_endian == kNativeBigEndian ? v : __builtin_bswap32(v);
  } else {
    static_assert(N == 8);
    uint64_t v;
    __builtin_memcpy(&v, q, 8);
    return big_endian == kNativeBigEndian ? v : __builtin_bswap64(v);
  }
}

// The 1-, 2- or 4-byte field at q (a row's start or data word, whose width the row says).
inline uint32_t load_width(const uint8_t *q, uint32_t n, bool big_endian) {
  if constexpr (kByteLoadCalls) return uint32_t(load_bytes(q, n, big_endian));
  return uint32_t(n == 1 ? q[0] : n == 2 ? load_field<2>(q, big_endian) : load_field<4>(q, big_endian));
}

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
    return load_field<N>(q, big_endian);
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
