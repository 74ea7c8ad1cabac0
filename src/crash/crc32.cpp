// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320: zlib's crc32), four bits at a time from
// a 16-entry table computed at compile time: 64 bytes of read-only data, no constructor.
#include "sfu/crash.h"

namespace {

constexpr uint32_t kPolynomial = 0xedb88320;

struct NibbleTable {
  uint32_t v[16];
};

constexpr NibbleTable make_table() {
  NibbleTable t{};
  for (uint32_t n = 0; n < 16; n++) {
    uint32_t c = n;
    for (int bit = 0; bit < 4; bit++) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    t.v[n] = c;
  }
  return t;
}

constexpr NibbleTable kTable = make_table();

}  // namespace

extern "C" uint32_t sfu_crc32(uint32_t crc, const void *bytes, size_t len) {
  const uint8_t *p = static_cast<const uint8_t *>(bytes);
  uint32_t c = ~crc;
  for (size_t i = 0; p && i < len; i++) {
    c = (c >> 4) ^ kTable.v[(c ^ p[i]) & 0xf];
    c = (c >> 4) ^ kTable.v[(c ^ (p[i] >> 4)) & 0xf];
  }
  return ~c;
}
