// Range lists (.debug_ranges, .debug_rnglists). See ranges.h.
#include "tools/dwarf/ranges.h"

#include "tools/dwarf/reader.h"

namespace sfu::tools::dwarf {
namespace {

using cfi::Reader;

bool read_ranges_v4(const Section &sec, bool big, const Unit &unit, uint64_t offset, uint64_t base,
                    std::vector<AddressRange> &out, DebugError &err) {
  Reader r(sec.data, offset, sec.size, big, unit.address_size, err.error);
  const uint64_t all_ones = unit.address_size == 8 ? ~uint64_t(0) : 0xffffffffu;
  for (;;) {
    uint64_t at = r.pos(), low, high;
    if (r.at_end()) return r.fail(kErrUnterminated, at, "range list without its end entry");
    if (!r.fixed(unit.address_size, low, "range start") || !r.fixed(unit.address_size, high, "range end"))
      return false;
    if (low == 0 && high == 0) return true;
    if (low == all_ones) {
      base = high;
      continue;
    }
    out.push_back({base + low, base + high});
  }
}

bool read_rnglist(const DebugInfoReader &reader, const Section &sec, bool big, const Unit &unit, uint64_t offset,
                  uint64_t base, std::vector<AddressRange> &out, DebugError &err, RangeListKinds *kinds) {
  Reader r(sec.data, offset, sec.size, big, unit.address_size, err.error);
  auto indexed = [&](uint64_t index, uint64_t field, uint64_t &addr) {
    if (kinds && !kinds->indexed) kinds->indexed = true, kinds->before_indexed = out.size();
    DebugError aerr;
    if (!reader.indexed_address(unit, index, field, addr, aerr)) {
      err.section = sec.name;  // the index is a field of this list
      err.error = aerr.error;
      return false;
    }
    return true;
  };
  for (;;) {
    uint64_t at = r.pos(), a, b;
    uint8_t kind = 0;
    if (r.at_end()) return r.fail(kErrUnterminated, at, "range list without DW_RLE_end_of_list");
    r.u8(kind, "range entry kind");
    switch (kind) {
      case kRleEndOfList: return true;
      case kRleBaseAddressx:
        if (!r.uleb(a, "address index") || !indexed(a, at, base)) return false;
        break;
      case kRleStartxEndx:
        if (!r.uleb(a, "address index") || !r.uleb(b, "address index") || !indexed(a, at, a) || !indexed(b, at, b))
          return false;
        out.push_back({a, b});
        break;
      case kRleStartxLength:
        if (!r.uleb(a, "address index") || !r.uleb(b, "range length") || !indexed(a, at, a)) return false;
        out.push_back({a, a + b});
        break;
      case kRleOffsetPair:
        if (!r.uleb(a, "range start offset") || !r.uleb(b, "range end offset")) return false;
        out.push_back({base + a, base + b});
        break;
      case kRleBaseAddress:
        if (!r.fixed(unit.address_size, base, "base address")) return false;
        break;
      case kRleStartEnd:
        if (!r.fixed(unit.address_size, a, "range start") || !r.fixed(unit.address_size, b, "range end")) return false;
        out.push_back({a, b});
        break;
      case kRleStartLength:
        if (!r.fixed(unit.address_size, a, "range start") || !r.uleb(b, "range length")) return false;
        out.push_back({a, a + b});
        break;
      default:
        return r.fail(kErrBadRangeEntry, at, "entry kind " + Reader::hex(kind));
    }
  }
}

}  // namespace

bool read_range_list(const DebugInfoReader &reader, const Unit &unit, uint64_t offset, uint64_t base,
                     std::vector<AddressRange> &out, DebugError &err, RangeListKinds *kinds) {
  const Sections &s = reader.sections();
  const Section &sec = unit.version >= 5 ? s.rnglists : s.ranges;
  err.section = sec.name;
  Reader fail_at(nullptr, 0, 0, s.big_endian, 8, err.error);
  if (!sec.present()) return fail_at.fail(kErrMissingSection, offset, std::string("no ") + sec.name);
  if (offset >= sec.size) return fail_at.fail(kErrBadIndex, offset, "range list offset past the section");
  if (kinds) *kinds = RangeListKinds{};
  if (unit.version >= 5) return read_rnglist(reader, sec, s.big_endian, unit, offset, base, out, err, kinds);
  return read_ranges_v4(sec, s.big_endian, unit, offset, base, out, err);
}

}  // namespace sfu::tools::dwarf
