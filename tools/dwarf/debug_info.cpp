// Units, abbreviations and DIEs of .debug_info (DWARF 2-5). See debug_info.h.
#include "tools/dwarf/debug_info.h"

#include "tools/dwarf/reader.h"

namespace sfu::tools::dwarf {
namespace {

using cfi::Reader;

// Nested DW_FORM_indirect is legal but pointless; a chain this long is a corrupt section.
constexpr int kMaxIndirect = 4;

}  // namespace

std::string DebugError::message() const {
  std::string m = section + "+" + Reader::hex(error.offset) + ": " + error.name;
  if (!error.detail.empty()) m += " (" + error.detail + ")";
  return m;
}

bool read_abbrev_table(const Section &section, bool big_endian, uint64_t offset, AbbrevTable &out,
                       DebugError &err) {
  err.section = section.name;
  if (!section.present())
    return Reader(nullptr, 0, 0, big_endian, 8, err.error).fail(kErrMissingSection, 0, "no .debug_abbrev");
  Reader r(section.data, offset, section.size, big_endian, 8, err.error);
  if (offset >= section.size)
    return r.fail(kErrBadAbbrevOffset, offset, "past the end of .debug_abbrev");
  out.entries.clear();
  for (;;) {
    uint64_t at = r.pos(), code, tag;
    if (!r.uleb(code, "abbreviation code")) return false;
    if (code == 0) return true;
    if (!r.uleb(tag, "abbreviation tag")) return false;
    if (tag == 0) return r.fail(kErrBadAbbrev, at, "tag 0");
    uint8_t children;
    uint64_t children_at = r.pos();
    if (!r.u8(children, "children flag")) return false;
    if (children > 1) return r.fail(kErrBadAbbrev, children_at, "children flag " + Reader::hex(children));
    Abbrev a;
    a.code = code;
    a.tag = tag;
    a.has_children = children == 1;
    for (;;) {
      AttrSpec spec;
      if (!r.uleb(spec.name, "attribute name") || !r.uleb(spec.form, "attribute form")) return false;
      if (spec.name == 0 && spec.form == 0) break;
      if (spec.form == kFormImplicitConst && !r.sleb(spec.implicit_const, "implicit constant")) return false;
      a.attrs.push_back(spec);
    }
    if (!out.entries.emplace(code, std::move(a)).second)
      return r.fail(kErrBadAbbrev, at, "code " + std::to_string(code) + " defined twice");
  }
}

bool DebugInfoReader::read_units(std::vector<Unit> &out, DebugError &err) {
  out.clear();
  err.section = s_.info.name;
  if (!s_.info.present()) return true;
  uint64_t offset = 0;
  while (offset < s_.info.size) {
    Reader r(s_.info.data, offset, s_.info.size, s_.big_endian, 8, err.error);
    Unit u;
    u.offset = offset;
    uint64_t length;
    if (!r.fixed(4, length, "unit length")) return false;
    if (length == 0xffffffff) {
      u.offset_size = 8;
      if (!r.fixed(8, length, "unit length")) return false;
    } else if (length >= 0xfffffff0) {
      return r.fail(kErrBadUnitLength, offset, "reserved length " + Reader::hex(length));
    }
    if (length > r.left() || length < 2)
      return r.fail(kErrBadUnitLength, offset,
                    "length " + Reader::hex(length) + ", " + Reader::hex(r.left()) + " bytes left");
    u.end = r.pos() + length;
    Reader h(s_.info.data, r.pos(), u.end, s_.big_endian, 8, err.error);
    uint64_t version;
    if (!h.fixed(2, version, "unit version")) return false;
    if (version < 2 || version > 5) return h.fail(kErrBadVersion, h.pos() - 2, "version " + std::to_string(version));
    u.version = uint16_t(version);
    uint8_t addr_size = 0;
    if (u.version >= 5) {
      uint64_t type_at = h.pos();
      if (!h.u8(u.unit_type, "unit type") || !h.u8(addr_size, "address size")) return false;
      if (u.unit_type < kUtCompile || u.unit_type > kUtSplitType)
        return h.fail(kErrBadUnitType, type_at, "unit type " + Reader::hex(u.unit_type));
      if (!h.offset(u.offset_size, u.abbrev_offset, "abbreviation offset")) return false;
    } else {
      if (!h.offset(u.offset_size, u.abbrev_offset, "abbreviation offset") || !h.u8(addr_size, "address size"))
        return false;
    }
    if (addr_size != 4 && addr_size != 8)
      return h.fail(kErrBadAddressSize, h.pos() - (u.version >= 5 ? 1 + u.offset_size : 1),
                    "address size " + std::to_string(addr_size));
    u.address_size = addr_size;
    if (u.unit_type == kUtSkeleton || u.unit_type == kUtSplitCompile) {
      if (!h.skip(8, "unit id")) return false;
    } else if (u.unit_type == kUtType || u.unit_type == kUtSplitType) {
      if (!h.skip(8 + u.offset_size, "type signature and offset")) return false;
    }
    u.first_die = h.pos();
    auto it = abbrevs_.find(u.abbrev_offset);
    if (it == abbrevs_.end()) {
      AbbrevTable table;
      DebugError aerr;
      if (!read_abbrev_table(s_.abbrev, s_.big_endian, u.abbrev_offset, table, aerr)) {
        // An offset outside .debug_abbrev is the unit header's fault: name that field.
        if (aerr.error.name == kErrBadAbbrevOffset || aerr.error.name == kErrMissingSection)
          return h.fail(kErrBadAbbrevOffset, u.first_die - (u.version >= 5 ? u.offset_size : u.offset_size + 1),
                        "abbreviation offset " + Reader::hex(u.abbrev_offset) + ": " + aerr.error.detail);
        err = aerr;
        return false;
      }
      it = abbrevs_.emplace(u.abbrev_offset, std::move(table)).first;
    }
    u.abbrevs = &it->second;
    // The unit DIE: the bases first, so that its own index forms can then be resolved.
    if (u.first_die < u.end) {
      Die die;
      uint64_t next;
      if (!read_die(u, u.first_die, die, next, err, false)) return false;
      for (const AttrValue &a : die.attrs) {
        uint64_t v;
        if (!a.as_unsigned(v)) continue;
        if (a.name == kAtStrOffsetsBase) u.has_str_offsets_base = true, u.str_offsets_base = v;
        if (a.name == kAtAddrBase) u.has_addr_base = true, u.addr_base = v;
        if (a.name == kAtRnglistsBase) u.has_rnglists_base = true, u.rnglists_base = v;
      }
    }
    out.push_back(u);
    offset = u.end;
  }
  return true;
}

bool DebugInfoReader::read_die(const Unit &unit, uint64_t offset, Die &die, uint64_t &next, DebugError &err,
                               bool resolve_forms) const {
  err.section = s_.info.name;
  Reader r(s_.info.data, offset, unit.end, s_.big_endian, unit.address_size, err.error);
  if (offset < unit.first_die || offset >= unit.end)
    return r.fail(kErrBadReference, offset, "DIE offset outside its unit");
  die.offset = offset;
  die.attrs.clear();
  uint64_t code;
  if (!r.uleb(code, "abbreviation code")) return false;
  if (code == 0) {
    die.tag = 0;
    die.has_children = false;
    next = r.pos();
    return true;
  }
  const Abbrev *a = unit.abbrevs ? unit.abbrevs->find(code) : nullptr;
  if (!a) return r.fail(kErrUnknownAbbrev, offset, "code " + std::to_string(code));
  die.tag = a->tag;
  die.has_children = a->has_children;
  die.attrs.reserve(a->attrs.size());
  for (const AttrSpec &spec : a->attrs) {
    AttrValue v;
    v.name = spec.name;
    uint64_t field = r.pos();
    v.at = field;
    if (!read_value(unit, r, spec.form, spec.implicit_const, v, err, 0, field)) return false;
    if (resolve_forms && !resolve(unit, v, field, err)) return false;
    die.attrs.push_back(v);
  }
  next = r.pos();
  return true;
}

bool DebugInfoReader::read_value(const Unit &unit, Reader &r, uint64_t form, int64_t implicit_const, AttrValue &v,
                                 DebugError &err, int depth, uint64_t form_at) const {
  v.form = form;
  uint64_t at = r.pos(), n;
  auto constant = [&](unsigned size) { v.cls = AttrValue::kConstant; return r.fixed(size, v.u, "constant"); };
  auto block = [&](uint64_t size) {
    v.cls = AttrValue::kBlock;
    v.block_offset = r.pos();
    v.block_size = size;
    return r.skip(size, "block");
  };
  auto index = [&](AttrValue::Class cls, unsigned size) {
    v.cls = cls;
    v.s = 1;  // marks an index still to resolve
    return size ? r.fixed(size, v.u, "index") : r.uleb(v.u, "index");
  };
  auto unit_ref = [&](bool ok) {
    if (!ok) return false;
    if (v.u >= unit.end - unit.offset)
      return r.fail(kErrBadReference, at, "reference " + Reader::hex(v.u) + " past its unit");
    v.u += unit.offset;
    v.cls = AttrValue::kReference;
    return true;
  };
  switch (form) {
    case kFormAddr: v.cls = AttrValue::kAddress; return r.fixed(unit.address_size, v.u, "address");
    case kFormData1: return constant(1);
    case kFormData2: return constant(2);
    case kFormData4: return constant(4);
    case kFormData8: return constant(8);
    case kFormData16: return block(16);
    case kFormUdata: v.cls = AttrValue::kConstant; return r.uleb(v.u, "constant");
    case kFormSdata: v.cls = AttrValue::kSigned; return r.sleb(v.s, "constant");
    case kFormImplicitConst:
      if (depth > 0) return r.fail(kErrUnknownForm, at, "implicit_const through DW_FORM_indirect");
      v.cls = AttrValue::kSigned;
      v.s = implicit_const;
      return true;
    case kFormFlag: v.cls = AttrValue::kFlag; return r.fixed(1, v.u, "flag");
    case kFormFlagPresent: v.cls = AttrValue::kFlag; v.u = 1; return true;
    case kFormBlock1: return r.fixed(1, n, "block length") && block(n);
    case kFormBlock2: return r.fixed(2, n, "block length") && block(n);
    case kFormBlock4: return r.fixed(4, n, "block length") && block(n);
    case kFormBlock:
    case kFormExprloc: return r.uleb(n, "block length") && block(n);
    case kFormString: v.cls = AttrValue::kString; return r.cstring(v.str, "string");
    case kFormStrp:
    case kFormLineStrp:
      v.cls = AttrValue::kString;
      v.s = 1;
      return r.offset(unit.offset_size, v.u, "string offset");
    case kFormStrx: return index(AttrValue::kString, 0);
    case kFormStrx1: return index(AttrValue::kString, 1);
    case kFormStrx2: return index(AttrValue::kString, 2);
    case kFormStrx3: return index(AttrValue::kString, 3);
    case kFormStrx4: return index(AttrValue::kString, 4);
    case kFormAddrx: return index(AttrValue::kAddress, 0);
    case kFormAddrx1: return index(AttrValue::kAddress, 1);
    case kFormAddrx2: return index(AttrValue::kAddress, 2);
    case kFormAddrx3: return index(AttrValue::kAddress, 3);
    case kFormAddrx4: return index(AttrValue::kAddress, 4);
    case kFormRnglistx: return index(AttrValue::kRangeList, 0);
    case kFormLoclistx: v.cls = AttrValue::kLocList; return r.uleb(v.u, "index");
    case kFormRef1: return unit_ref(r.fixed(1, v.u, "reference"));
    case kFormRef2: return unit_ref(r.fixed(2, v.u, "reference"));
    case kFormRef4: return unit_ref(r.fixed(4, v.u, "reference"));
    case kFormRef8: return unit_ref(r.fixed(8, v.u, "reference"));
    case kFormRefUdata: return unit_ref(r.uleb(v.u, "reference"));
    case kFormRefAddr:
      if (!r.fixed(unit.version <= 2 ? unit.address_size : unit.offset_size, v.u, "reference")) return false;
      if (v.u >= s_.info.size) return r.fail(kErrBadReference, at, "reference " + Reader::hex(v.u) + " past .debug_info");
      v.cls = AttrValue::kReference;
      return true;
    case kFormSecOffset: v.cls = AttrValue::kSecOffset; return r.offset(unit.offset_size, v.u, "section offset");
    case kFormRefSig8: return r.skip(8, "type signature");
    case kFormRefSup4: return r.skip(4, "supplementary reference");
    case kFormRefSup8: return r.skip(8, "supplementary reference");
    case kFormStrpSup:
    case kFormGnuRefAlt:
    case kFormGnuStrpAlt: return r.skip(unit.offset_size, "supplementary offset");
    case kFormGnuAddrIndex:
    case kFormGnuStrIndex: return r.uleb(n, "split-DWARF index");
    case kFormIndirect:
      if (depth >= kMaxIndirect) return r.fail(kErrUnknownForm, at, "DW_FORM_indirect nested too deep");
      if (!r.uleb(n, "indirect form")) return false;
      return read_value(unit, r, n, 0, v, err, depth + 1, at);
    default:
      return r.fail(kErrUnknownForm, form_at, "form " + Reader::hex(form));
  }
}

bool DebugInfoReader::string_at(const Section &sec, uint64_t offset, uint64_t field, const char *&out,
                                DebugError &err) const {
  err.section = s_.info.name;
  Reader fail_at(nullptr, 0, 0, s_.big_endian, 8, err.error);
  if (!sec.present()) return fail_at.fail(kErrMissingSection, field, std::string("no ") + sec.name);
  if (offset >= sec.size)
    return fail_at.fail(kErrBadStringOffset, field, Reader::hex(offset) + " past the end of " + sec.name);
  DebugError serr;
  serr.section = sec.name;
  Reader r(sec.data, offset, sec.size, s_.big_endian, 8, serr.error);
  if (!r.cstring(out, "string")) return err = serr, false;
  return true;
}

bool DebugInfoReader::indexed_string(const Unit &unit, uint64_t index, uint64_t field, const char *&out,
                                     DebugError &err) const {
  err.section = s_.info.name;
  Reader fail_at(nullptr, 0, 0, s_.big_endian, 8, err.error);
  const Section &offsets = s_.str_offsets;
  if (!offsets.present()) return fail_at.fail(kErrMissingSection, field, "no .debug_str_offsets");
  uint64_t base = unit.has_str_offsets_base ? unit.str_offsets_base : 2u * unit.offset_size;
  uint64_t at = base + index * unit.offset_size;
  if (index > offsets.size / unit.offset_size || base > offsets.size || at > offsets.size - unit.offset_size)
    return fail_at.fail(kErrBadIndex, field, "string index " + std::to_string(index) + " past .debug_str_offsets");
  Reader r(offsets.data, at, offsets.size, s_.big_endian, 8, err.error);
  uint64_t str_offset = 0;
  r.offset(unit.offset_size, str_offset, "string offset");
  return string_at(s_.str, str_offset, field, out, err);
}

bool DebugInfoReader::resolve(const Unit &unit, AttrValue &v, uint64_t field, DebugError &err) const {
  if (v.s != 1 || (v.cls != AttrValue::kString && v.cls != AttrValue::kAddress && v.cls != AttrValue::kRangeList))
    return true;
  v.s = 0;
  err.section = s_.info.name;
  Reader fail_at(nullptr, 0, 0, s_.big_endian, 8, err.error);
  switch (v.form) {
    case kFormStrp: return string_at(s_.str, v.u, field, v.str, err);
    case kFormLineStrp: return string_at(s_.line_str, v.u, field, v.str, err);
    case kFormStrx: case kFormStrx1: case kFormStrx2: case kFormStrx3: case kFormStrx4:
      return indexed_string(unit, v.u, field, v.str, err);
    case kFormRnglistx: {
      const Section &lists = s_.rnglists;
      if (!lists.present()) return fail_at.fail(kErrMissingSection, field, "no .debug_rnglists");
      uint64_t base = unit.has_rnglists_base ? unit.rnglists_base : (unit.offset_size == 8 ? 20 : 12);
      uint64_t at = base + v.u * unit.offset_size;
      if (v.u > lists.size / unit.offset_size || base > lists.size || at > lists.size - unit.offset_size)
        return fail_at.fail(kErrBadIndex, field, "range list index " + std::to_string(v.u) + " past .debug_rnglists");
      Reader r(lists.data, at, lists.size, s_.big_endian, 8, err.error);
      uint64_t rel = 0;
      r.offset(unit.offset_size, rel, "range list offset");
      v.u = base + rel;
      return true;
    }
    default:  // addrx*
      return indexed_address(unit, v.u, field, v.u, err);
  }
}

bool DebugInfoReader::indexed_address(const Unit &unit, uint64_t index, uint64_t field, uint64_t &out,
                                      DebugError &err) const {
  err.section = s_.info.name;
  Reader fail_at(nullptr, 0, 0, s_.big_endian, 8, err.error);
  const Section &addrs = s_.addr;
  if (!addrs.present()) return fail_at.fail(kErrMissingSection, field, "no .debug_addr");
  uint64_t base = unit.has_addr_base ? unit.addr_base : (unit.offset_size == 8 ? 16 : 8);
  uint64_t at = base + index * unit.address_size;
  if (index > addrs.size / unit.address_size || base > addrs.size || at > addrs.size - unit.address_size)
    return fail_at.fail(kErrBadIndex, field, "address index " + std::to_string(index) + " past .debug_addr");
  Reader r(addrs.data, at, addrs.size, s_.big_endian, 8, err.error);
  return r.fixed(unit.address_size, out, "address");
}

}  // namespace sfu::tools::dwarf
