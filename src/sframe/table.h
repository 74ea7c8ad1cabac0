// Internal views of one validated table: FDEs and FREs as decoded records. The runtime uses them
// for lookups; host tools (sfu dump) use them to print the raw encoding.
#pragma once

#include <stdint.h>

#include "sfu/sframe.h"
#include "sframe/bytes.h"
#include "sframe/format.h"

namespace sfu::sframe {

struct Fde {
  uint64_t start;     // absolute address of the function
  uint32_t size;      // bytes of code it covers
  uint32_t chain_at;  // section offset of its FRE data (V3: the attribute record)
  uint32_t fres_at;   // section offset of its first FRE
  uint32_t num_fres;
  uint8_t info;
  uint8_t info2;     // V3 only, else 0
  uint8_t rep_size;  // V2/V3 only, else 0

  bool pcmask() const { return fde_pcmask(info); }
  bool flex() const { return fde_type(info2) == kFdeTypeFlex; }
  uint8_t fre_type() const { return fde_fre_type(info); }
};

struct Fre {
  uint32_t start;  // offset from the function start
  uint32_t end;    // section offset just past this FRE
  uint8_t info;
  uint8_t count;      // data words
  uint8_t word_size;  // bytes per data word
  uint32_t raw[kMaxWordsFlex];  // words as stored, zero-extended

  int32_t word(uint32_t i) const { return int32_t(sign_extend(raw[i], word_size)); }
};

inline Bytes section_bytes(const sfu_table &t) {
  return Bytes{t.sec, t.sec_size, t.big_endian != 0};
}

// The start address of FDE `index` (< num_fdes), reading nothing else: the binary search's probe.
// Built for size, one copy for the search and read_fde.
#ifdef CONFIG_SFU_OPTIMIZE_SIZE
[[gnu::noinline]]
#endif
inline uint64_t fde_start(const sfu_table &t, uint32_t index) {
  uint32_t at = t.fdes_at + index * t.fde_size;  // open checked the FDE array fits
  const uint8_t *q = t.sec + at;
  // V1/V2 keep a signed 32-bit offset, V3 a 64-bit one; it counts from the section, or
  // (PCREL) from the field itself.
  int64_t offset = t.version == kVersion3 ? int64_t(load_field<8>(q, table_big_endian(t)))
                                          : int64_t(int32_t(uint32_t(load_field<4>(q, table_big_endian(t)))));
  uint64_t base = t.sec_addr + ((t.flags & SFU_F_FDE_FUNC_START_PCREL) ? at : 0);
  return base + uint64_t(offset);
}

// Whether a row's start (addr_size bytes) and info byte at section offset `at` lie inside the FRE
// data: what the row scan and read_fre both check before reading them.
inline bool fre_head_fits(const sfu_table &t, uint32_t at, uint32_t addr_size) {
  const uint32_t limit = t.fres_at + t.fre_len;
  return at >= t.fres_at && at <= limit && limit - at >= addr_size + 1;
}

// Reads FDE `index` (< num_fdes); checks its V3 attribute record is inside the FRE data.
sfu_error read_fde(const sfu_table &t, uint32_t index, Fde &out);

// Reads the FRE at section offset `at` of function `fde`; checks it fits in the FRE data and
// that its word size and count can be stored. What the words mean is checked by decode_fre.
sfu_error read_fre(const sfu_table &t, const Fde &fde, uint32_t at, Fre &out);

// sfu_table_find for a table validated in full (ready 2) and a pc the caller knows lies in its
// text: the same row or error, without the checks validation made already, and each row read
// whole (read_fre) rather than scanned by its start alone. What the walk of a core built for size
// with validation at registration (every registered table validated) looks rows up with; defined
// in that build only.
sfu_error find_validated(const sfu_table &t, uint64_t pc, sfu_row &row);

// The full validation sfu_table_init runs: every FDE, every row, counts and lengths.
sfu_error validate(const sfu_table &t);

// sfu_table_init's work: open, then, where registration validates (CONFIG_SFU_VALIDATE_ON_REGISTER),
// sfu_table_validate's work without its checks, which an opened table passes; a table validation
// refuses is closed again. Inline, so that registration folds it in: no call through sfu_table_init.
inline sfu_error init_table(sfu_table &t, const sfu_table_desc &d) {
  if (sfu_error e = sfu_table_open(&t, &d)) return e;
  if constexpr (!config::kValidateOnRegister) return SFU_OK;
  if (sfu_error e = validate(t)) {
    t.ready = 0;
    return e;
  }
  t.ready = 2;
  return SFU_OK;
}

// Turns one FRE into the rules the walker applies, checking as it goes that the data words suit
// the ABI, version and FDE type: one reading of the words for validation and lookups alike (on an
// error *row is partly written).
sfu_error decode_fre(const sfu_table &t, const Fde &fde, const Fre &fre, sfu_row &row);

// The same for a row known to be valid (a validated table's).
inline void rules_of_fre(const sfu_table &t, const Fde &fde, const Fre &fre, sfu_row &row) {
  (void)decode_fre(t, fde, fre, row);
}

// The row of one FRE, checked: the tools' and lookups' name for decode_fre.
inline sfu_error row_from_fre(const sfu_table &t, const Fde &fde, const Fre &fre, sfu_row &row) {
  return decode_fre(t, fde, fre, row);
}

}  // namespace sfu::sframe
