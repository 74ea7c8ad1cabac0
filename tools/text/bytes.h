// Integers into and out of bytes in a chosen byte order: the one writer of the host tools'
// encoders (the SFrame and symbol tables) and of the ELF edit, and the one reader of the ELF,
// DWARF and expression readers.
#pragma once

#include <cstdint>
#include <vector>

namespace sfu::tools {

// The n-byte (1..8) unsigned integer at p, most significant byte first if big. The caller
// checked that n bytes are there.
inline uint64_t load_bytes(const uint8_t *p, unsigned n, bool big) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; i++) v = (v << 8) | p[big ? i : n - 1 - i];
  return v;
}

// The n low bytes of v at out[at..at+n) (the caller made room), most significant first if big.
inline void put_bytes(std::vector<uint8_t> &out, uint64_t at, uint64_t v, unsigned n, bool big) {
  for (unsigned i = 0; i < n; i++) out[at + (big ? n - 1 - i : i)] = uint8_t(v >> (8 * i));
}

// The same, appended.
inline void append_bytes(std::vector<uint8_t> &out, uint64_t v, unsigned n, bool big) {
  out.resize(out.size() + n);
  put_bytes(out, out.size() - n, v, n, big);
}

// Appending writer for the encoders: w.put(v, n).
struct ByteWriter {
  std::vector<uint8_t> &out;
  bool big;
  void put(uint64_t v, unsigned n) { append_bytes(out, v, n, big); }
};

}  // namespace sfu::tools
