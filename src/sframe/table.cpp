// sfu_table_init and the full validation: a section is checked once, at registration, and is
// then either a table every lookup can trust or a named refusal. Never half-used.
#include "config.h"
#include "sframe/table.h"

namespace sfu::sframe {
namespace {

bool version_enabled(uint32_t v) {
  return (v == kVersion1 && config::kVersion1) || (v == kVersion2 && config::kVersion2) ||
         (v == kVersion3 && config::kVersion3);
}

uint32_t defined_flags(uint32_t v) {
  return is_v1(v) ? kFlagsV1 : v == kVersion2 ? kFlagsV2 : kFlagsV3;
}

bool abi_known(uint32_t abi, uint32_t version) {
  if (abi == SFU_ABI_S390X_BE) return !is_v1(version);  // s390x arrived with V2
  return abi >= SFU_ABI_AARCH64_BE && abi <= SFU_ABI_AMD64_LE;
}

sfu_error parse_header(sfu_table &t, const sfu_table_desc &d) {
  const uint8_t *p = static_cast<const uint8_t *>(d.section);
  if (d.size < kHeaderSize) return SFU_E_TRUNCATED_HEADER;
  // The magic tells the byte order: 0xdee2 stored little-endian reads e2 de.
  const uint32_t magic = uint32_t(load_field<2>(p, true));
  if (magic != kMagic && magic != __builtin_bswap16(kMagic)) return SFU_E_BAD_MAGIC;
  const bool big = magic == kMagic;

  // Read as words: byte-sized locals cost extensions at each comparison.
  const uint32_t version = p[hdr::kVersion], flags = p[hdr::kFlags], abi = p[hdr::kAbi];
  if (version < kVersion1 || version > kVersion3) return SFU_E_BAD_VERSION;
  if (!version_enabled(version)) return SFU_E_VERSION_DISABLED;
  if (flags & ~defined_flags(version)) return SFU_E_UNKNOWN_FLAGS;
  if (!abi_known(abi, version)) return SFU_E_BAD_ABI;
  if (abi_byte_big_endian(abi) != big) return SFU_E_ABI_BYTE_ORDER;
  uint8_t want = d.abi != SFU_ABI_ANY ? d.abi : SFU_BUILD_ABI;
  if (want != SFU_ABI_ANY && abi != want) return SFU_E_ABI_MISMATCH;
  // A target build serves only its own ABI, whatever the caller asks: format.h's ABI predicates
  // are constants there, so a table of another ABI would be read as one of its own.
  if (SFU_BUILD_ABI != SFU_ABI_ANY && abi != SFU_BUILD_ABI) return SFU_E_ABI_MISMATCH;

  int8_t fixed_fp = int8_t(p[hdr::kFixedFp]), fixed_ra = int8_t(p[hdr::kFixedRa]);
  // AMD64 keeps the RA at a fixed CFA offset and its rows never say where; the other ABIs
  // track the RA in each row, so a fixed offset there would be ambiguous.
  if ((abi == SFU_ABI_AMD64_LE) != (fixed_ra != 0)) return SFU_E_BAD_FIXED_RA_OFFSET;

  // The header's size was checked above: its fields are loaded without a bound each, in the
  // ABI's byte order (checked above to be the magic's): a constant in a target build.
  const bool order = SFU_BUILD_ABI != SFU_ABI_ANY ? abi_big_endian(abi) : big;
  auto u32 = [p, order](uint32_t off) { return uint32_t(load_field<4>(p + off, order)); };
  uint32_t num_fdes = u32(hdr::kNumFdes), num_fres = u32(hdr::kNumFres), fre_len = u32(hdr::kFreLen);
  uint32_t fde_off = u32(hdr::kFdeOff), fre_off = u32(hdr::kFreOff);

  uint64_t size = d.size;
  uint64_t hdr_end = uint64_t(kHeaderSize) + p[hdr::kAuxLen];
  if (hdr_end > size) return SFU_E_AUXHDR_OUT_OF_BOUNDS;
  uint64_t fdes_at = hdr_end + fde_off;
  const uint8_t fde_bytes = is_v1(version) ? kFdeSizeV1 : version == kVersion2 ? kFdeSizeV2 : kFdeSizeV3;
  uint64_t fdes_end = fdes_at + uint64_t(num_fdes) * fde_bytes;
  if (fdes_end > size) return SFU_E_FDES_OUT_OF_BOUNDS;
  uint64_t fres_at = hdr_end + fre_off;
  uint64_t fres_end = fres_at + fre_len;
  if (fres_end > size) return SFU_E_FRES_OUT_OF_BOUNDS;
  bool both_nonempty = fdes_end > fdes_at && fres_end > fres_at;
  if (both_nonempty && fdes_at < fres_end && fres_at < fdes_end) return SFU_E_SUBSECTIONS_OVERLAP;

  t.sec = p;
  t.sec_size = uint32_t(d.size);
  t.sec_addr = d.section_addr;
  t.text_start = d.text_start;
  t.text_end = d.text_end;
  t.num_fdes = num_fdes;
  t.num_fres = num_fres;
  t.fre_len = fre_len;
  t.fdes_at = uint32_t(fdes_at);
  t.fres_at = uint32_t(fres_at);
  t.version = version;
  t.flags = flags;
  t.abi = abi;
  t.big_endian = big;
  t.fixed_fp_offset = fixed_fp;
  t.fixed_ra_offset = fixed_ra;
  t.fde_size = fde_bytes;
  t.index = nullptr;
  t.index_entries = 0;
  // A lookup scans an unsorted table linearly: bounded here, before anything can look one up.
  if (!(flags & SFU_F_FDE_SORTED) && num_fdes > config::kMaxUnsortedFdes) return SFU_E_UNSORTED_TOO_LARGE;
  return SFU_OK;
}

sfu_error check_fde(const sfu_table &t, const Fde &f) {
  // The reserved bits, and the B-key bit outside AArch64.
  const uint32_t refused = (t.version == kVersion3 ? kFdeInfoReservedV3 : kFdeInfoReservedV12) |
                           (abi_aarch64(t.abi) ? 0 : make_fde_info(0, false, true, false));
  if ((f.info & refused) || (f.info2 & kFdeInfo2Reserved)) return SFU_E_BAD_FDE_INFO;
  if (f.fre_type() > kFreTypeAddr4) return SFU_E_BAD_FRE_TYPE;
  if (fde_type(f.info2) > kFdeTypeFlex) return SFU_E_BAD_FDE_TYPE;
  if (f.pcmask() && !is_v1(t.version) && f.rep_size == 0) return SFU_E_PCMASK_ZERO_REP;
  uint64_t end = f.start + f.size;
  if (end < f.start) return SFU_E_FUNCTION_OUTSIDE_TEXT;
  if (t.text_end != 0 && (f.start < t.text_start || end > t.text_end))
    return SFU_E_FUNCTION_OUTSIDE_TEXT;
  return SFU_OK;
}

// Walks one FDE's rows; returns the section offset just past them in *end.
sfu_error check_chain(const sfu_table &t, const Fde &f, uint32_t &end) {
  // A row may start anywhere up to the function's (or the repeating block's) end: gas emits a
  // row at the very end when a CFI directive follows the last instruction, and a zero-size
  // function (a V3 signal trampoline marker) has its row at offset 0. Such rows match no PC.
  uint32_t limit = !f.pcmask() ? f.size : is_v1(t.version) ? kV1PcmaskMask + 1 : f.rep_size;
  uint32_t at = f.fres_at, prev_start = 0;
  for (uint32_t j = 0; j < f.num_fres; j++) {
    Fre fre;
    sfu_row row;
    if (sfu_error e = read_fre(t, f, at, fre)) return e;
    if (sfu_error e = decode_fre(t, f, fre, row)) return e;
    if (j > 0 && fre.start <= prev_start) return SFU_E_FRE_START_NOT_RISING;
    if (fre.start > limit) return SFU_E_FRE_START_OUTSIDE_FUNCTION;
    prev_start = fre.start;
    at = fre.end;
  }
  end = at;
  return SFU_OK;
}

}  // namespace

sfu_error validate(const sfu_table &t) {
  uint64_t fres_seen = 0, bytes_seen = 0;
  uint64_t prev_start = 0, prev_end = 0;  // the function before, for the sorted checks
  for (uint32_t i = 0; i < t.num_fdes; i++) {
    Fde f;
    if (sfu_error e = read_fde(t, i, f)) return e;
    if (sfu_error e = check_fde(t, f)) return e;
    if (f.num_fres > config::kMaxFunctionRows) return SFU_E_TOO_MANY_ROWS;
    if ((t.flags & SFU_F_FDE_SORTED) && i > 0) {
      if (f.start <= prev_start) return SFU_E_FDES_NOT_SORTED;
      if (prev_end > f.start) return SFU_E_FUNCTIONS_OVERLAP;
    }
    uint32_t end;
    if (sfu_error e = check_chain(t, f, end)) return e;
    fres_seen += f.num_fres;
    bytes_seen += end - f.chain_at;
    // Chains that share bytes would make this walk re-read them: stop as soon as the rows
    // claim more than the sub-section holds, which also keeps validation linear.
    if (bytes_seen > t.fre_len) return SFU_E_FRE_LENGTH_MISMATCH;
    prev_start = f.start;
    prev_end = f.start + f.size;
  }
  if (fres_seen != t.num_fres) return SFU_E_FRE_COUNT_MISMATCH;
  if (bytes_seen != t.fre_len) return SFU_E_FRE_LENGTH_MISMATCH;
  return SFU_OK;
}

}  // namespace sfu::sframe

using namespace sfu::sframe;

extern "C" enum sfu_error sfu_table_open(struct sfu_table *table, const struct sfu_table_desc *desc) {
  if (!table || !desc) return SFU_E_NULL_ARGUMENT;
  table->ready = 0;
  if (desc->size == 0) return SFU_E_EMPTY;
  if (!desc->section) return SFU_E_NULL_ARGUMENT;
  if (desc->size > kMaxSectionSize) return SFU_E_SECTION_TOO_LARGE;
  if (sfu_error e = parse_header(*table, *desc)) return e;
  table->ready = 1;
  return SFU_OK;
}

extern "C" enum sfu_error sfu_table_validate(struct sfu_table *table) {
  if (!table) return SFU_E_NULL_ARGUMENT;
  if (!table->ready) return SFU_E_NOT_INITIALIZED;
  if (sfu_error e = validate(*table)) {
    table->ready = 0;
    return e;
  }
  table->ready = 2;
  return SFU_OK;
}

extern "C" enum sfu_error sfu_table_init(struct sfu_table *table, const struct sfu_table_desc *desc) {
  if (!table || !desc) return SFU_E_NULL_ARGUMENT;
  return init_table(*table, *desc);
}
