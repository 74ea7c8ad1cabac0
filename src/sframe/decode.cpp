// read_fde and read_fre: one function's descriptor and one row, as lookups and validation both
// read them. Apart from table.cpp because they are on the walk path (a row-cache miss runs both):
// built -O2, where registration is built for size (Makefile, CORE_SIZE_SRCS).
#include "sframe/table.h"

namespace sfu::sframe {

sfu_error read_fde(const sfu_table &t, uint32_t index, Fde &out) {
  // Open checked the FDE array and the FRE data fit in the section, so a field inside either is
  // loaded without a bound of its own.
  const uint8_t *q = t.sec + t.fdes_at + index * t.fde_size;
  const bool big = table_big_endian(t), v3 = t.version == kVersion3;
  // V3's start offset is 8 bytes, V1/V2's 4; the size and the FRE offset follow it.
  const uint32_t start_bytes = v3 ? 8 : 4;
  out.start = fde_start(t, index);
  out.size = uint32_t(load_field<4>(q + start_bytes, big));
  const uint32_t fre_off = uint32_t(load_field<4>(q + start_bytes + 4, big));
  // The rest: the row count (V3 2 bytes, else 4), info, V3's info2, and V2/V3's repeat size, in
  // the FDE after the FRE offset, or in front of the function's rows in V3.
  const uint8_t *a = q + 12;
  out.chain_at = out.fres_at = t.fres_at + fre_off;
  if (v3) {
    if (fre_off > t.fre_len || kAttrSizeV3 > t.fre_len - fre_off) return SFU_E_ATTR_OUT_OF_BOUNDS;
    a = t.sec + out.chain_at;
    out.fres_at += kAttrSizeV3;
  }
  const uint32_t count_bytes = v3 ? 2 : 4;
  out.num_fres = uint32_t(v3 ? load_field<2>(a, big) : load_field<4>(a, big));
  out.info = a[count_bytes];
  out.info2 = v3 ? a[3] : 0;
  out.rep_size = !is_v1(t.version) ? a[count_bytes + 1 + v3] : 0;
  if (!v3 && fre_off > t.fre_len) return SFU_E_FRE_OUT_OF_BOUNDS;
  return SFU_OK;
}

sfu_error read_fre(const sfu_table &t, const Fde &fde, uint32_t at, Fre &out) {
  if (fde.fre_type() > kFreTypeAddr4) return SFU_E_BAD_FRE_TYPE;
  // Reads are limited to the FRE sub-section, not the whole section: the start and info byte
  // are bounded first, then all the data words at once.
  const uint32_t addr_size = fre_addr_size(fde.fre_type());
  if (!fre_head_fits(t, at, addr_size)) return SFU_E_FRE_OUT_OF_BOUNDS;
  const uint32_t limit = t.fres_at + t.fre_len;
  const bool big = table_big_endian(t);
  const uint8_t *q = t.sec + at;
  out.start = load_width(q, addr_size, big);
  out.info = q[addr_size];
  uint8_t code = fre_word_size_code(out.info);
  if (code == kWordSizeInvalid) return SFU_E_BAD_OFFSET_SIZE;
  out.word_size = uint8_t(1u << code);
  out.count = fre_word_count(out.info);
  if (out.count > kMaxWordsFlex) return SFU_E_BAD_WORD_COUNT;
  uint32_t pos = at + addr_size + 1, words = uint32_t(out.count) << code;
  if (limit - pos < words) return SFU_E_FRE_OUT_OF_BOUNDS;
  out.end = pos + words;
  q += addr_size + 1;
  for (uint32_t i = 0; i < out.count; i++, q += out.word_size) out.raw[i] = load_width(q, out.word_size, big);
  return SFU_OK;
}

}  // namespace sfu::sframe
