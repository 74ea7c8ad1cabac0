// DWARF debug information (.debug_info and .debug_abbrev, versions 2 to 5): unit headers,
// abbreviation tables, and one DIE at a time with every attribute form decoded and, where the
// form is indirect (strx*, addrx*, strp, line_strp, rnglistx), resolved through .debug_str,
// .debug_line_str, .debug_str_offsets and .debug_addr with the unit's own bases. Split DWARF
// (.dwo) is not read. Every read is bounds-checked; a corrupt or truncated section gives a
// DebugError naming the section, the offset of the offending field and a short reason.
// Host code; used by the source lookup (source.cpp).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "tools/dwarf/cfi.h"

namespace sfu::tools::cfi {
class Reader;  // tools/dwarf/reader.h
}

namespace sfu::tools::dwarf {

// Tags, attributes and forms this reader or its users look at (DWARF 5, 7.5).
inline constexpr uint64_t kTagEntryPoint = 0x03, kTagLexicalBlock = 0x0b, kTagCompileUnit = 0x11,
                          kTagInlinedSubroutine = 0x1d, kTagSubprogram = 0x2e, kTagPartialUnit = 0x3c,
                          kTagSkeletonUnit = 0x4a;
inline constexpr uint64_t kAtName = 0x03, kAtStmtList = 0x10, kAtLowPc = 0x11, kAtHighPc = 0x12,
                          kAtLanguage = 0x13, kAtCompDir = 0x1b, kAtAbstractOrigin = 0x31,
                          kAtSpecification = 0x47, kAtRanges = 0x55, kAtCallFile = 0x58,
                          kAtCallLine = 0x59, kAtLinkageName = 0x6e, kAtStrOffsetsBase = 0x72,
                          kAtAddrBase = 0x73, kAtRnglistsBase = 0x74, kAtLoclistsBase = 0x8c,
                          kAtMipsLinkageName = 0x2007;
inline constexpr uint64_t kFormAddr = 0x01, kFormBlock2 = 0x03, kFormBlock4 = 0x04, kFormData2 = 0x05,
                          kFormData4 = 0x06, kFormData8 = 0x07, kFormString = 0x08, kFormBlock = 0x09,
                          kFormBlock1 = 0x0a, kFormData1 = 0x0b, kFormFlag = 0x0c, kFormSdata = 0x0d,
                          kFormStrp = 0x0e, kFormUdata = 0x0f, kFormRefAddr = 0x10, kFormRef1 = 0x11,
                          kFormRef2 = 0x12, kFormRef4 = 0x13, kFormRef8 = 0x14, kFormRefUdata = 0x15,
                          kFormIndirect = 0x16, kFormSecOffset = 0x17, kFormExprloc = 0x18,
                          kFormFlagPresent = 0x19, kFormStrx = 0x1a, kFormAddrx = 0x1b,
                          kFormRefSup4 = 0x1c, kFormStrpSup = 0x1d, kFormData16 = 0x1e,
                          kFormLineStrp = 0x1f, kFormRefSig8 = 0x20, kFormImplicitConst = 0x21,
                          kFormLoclistx = 0x22, kFormRnglistx = 0x23, kFormRefSup8 = 0x24,
                          kFormStrx1 = 0x25, kFormStrx2 = 0x26, kFormStrx3 = 0x27, kFormStrx4 = 0x28,
                          kFormAddrx1 = 0x29, kFormAddrx2 = 0x2a, kFormAddrx3 = 0x2b, kFormAddrx4 = 0x2c,
                          kFormGnuAddrIndex = 0x1f01, kFormGnuStrIndex = 0x1f02,
                          kFormGnuRefAlt = 0x1f20, kFormGnuStrpAlt = 0x1f21;
inline constexpr uint8_t kUtCompile = 1, kUtType = 2, kUtPartial = 3, kUtSkeleton = 4, kUtSplitCompile = 5,
                         kUtSplitType = 6;

// Every refusal of the debug-info readers (this file, line_table.h, ranges.h), besides the
// cursor's own "truncated" and "leb128-too-long". Each names what is wrong at the offset given.
inline constexpr const char *kErrBadUnitLength = "bad-unit-length";    // reserved, or past the section
inline constexpr const char *kErrBadVersion = "bad-version";           // unit, line table or list header
inline constexpr const char *kErrBadUnitType = "bad-unit-type";
inline constexpr const char *kErrBadAddressSize = "bad-address-size";  // not 4 or 8, or a segment size
inline constexpr const char *kErrBadAbbrevOffset = "bad-abbrev-offset";
inline constexpr const char *kErrBadAbbrev = "bad-abbrev";             // code 0 twice, tag 0, bad children byte
inline constexpr const char *kErrUnknownAbbrev = "unknown-abbrev";     // a DIE's code is in no entry
inline constexpr const char *kErrUnknownForm = "unknown-form";
inline constexpr const char *kErrBadStringOffset = "bad-string-offset";  // past the string section
inline constexpr const char *kErrBadIndex = "bad-index";               // strx/addrx/rnglistx past its table
inline constexpr const char *kErrBadReference = "bad-reference";       // a DIE reference outside its unit
inline constexpr const char *kErrReferenceLoop = "reference-loop";     // origin/specification chains too long
inline constexpr const char *kErrMissingSection = "missing-section";   // a form needs a section the image lacks
inline constexpr const char *kErrBadLineHeader = "bad-line-header";    // line_range 0, opcode_base 0, header past its end
inline constexpr const char *kErrBadRangeEntry = "bad-range-entry";    // unknown DW_RLE_* kind
inline constexpr const char *kErrUnterminated = "unterminated";        // DIE children or a range list without its end

// One section's bytes (nullptr when the image has none) and its name for messages.
struct Section {
  const uint8_t *data = nullptr;
  uint64_t size = 0;
  const char *name = "";
  bool present() const { return data != nullptr; }
};

// The debug sections of one image, all of one byte order.
struct Sections {
  bool big_endian = false;
  Section info{nullptr, 0, ".debug_info"}, abbrev{nullptr, 0, ".debug_abbrev"},
      str{nullptr, 0, ".debug_str"}, line_str{nullptr, 0, ".debug_line_str"},
      str_offsets{nullptr, 0, ".debug_str_offsets"}, addr{nullptr, 0, ".debug_addr"},
      line{nullptr, 0, ".debug_line"}, ranges{nullptr, 0, ".debug_ranges"},
      rnglists{nullptr, 0, ".debug_rnglists"};
};

// A refusal: which section, and the cursor's error (name, offset in that section, detail).
struct DebugError {
  std::string section;
  cfi::Error error;
  // ".debug_info+0x1f3: unknown-form (form 0x55)"
  std::string message() const;
};

struct AttrSpec {
  uint64_t name = 0, form = 0;
  int64_t implicit_const = 0;
};

struct Abbrev {
  uint64_t code = 0, tag = 0;
  bool has_children = false;
  std::vector<AttrSpec> attrs;
};

// One abbreviation table: entries by code.
struct AbbrevTable {
  std::unordered_map<uint64_t, Abbrev> entries;
  const Abbrev *find(uint64_t code) const {
    auto it = entries.find(code);
    return it == entries.end() ? nullptr : &it->second;
  }
};

// Reads the abbreviation table at `offset` of `section` (.debug_abbrev).
bool read_abbrev_table(const Section &section, bool big_endian, uint64_t offset, AbbrevTable &out,
                       DebugError &err);

// A unit header, and the bases its unit DIE declares.
struct Unit {
  uint64_t offset = 0;     // of the header in .debug_info
  uint64_t end = 0;        // one past the unit's last byte
  uint64_t first_die = 0;  // the unit DIE
  uint16_t version = 0;
  uint8_t unit_type = kUtCompile;
  uint8_t address_size = 8, offset_size = 4;
  uint64_t abbrev_offset = 0;
  const AbbrevTable *abbrevs = nullptr;
  // DW_AT_str_offsets_base, DW_AT_addr_base, DW_AT_rnglists_base of the unit DIE (DWARF 5). A
  // unit without them reads indexes from just after the table's header (offset 8 in 32-bit DWARF).
  bool has_str_offsets_base = false, has_addr_base = false, has_rnglists_base = false;
  uint64_t str_offsets_base = 0, addr_base = 0, rnglists_base = 0;
};

// One attribute's value. `cls` says which field holds it. References are section offsets in
// .debug_info (unit-relative forms already made absolute); string forms are resolved to a pointer
// into their string section; addrx to the address; rnglistx to the list's .debug_rnglists offset.
struct AttrValue {
  enum Class : uint8_t {
    kNone,       // a form this reader steps over (supplementary-file references, type signatures)
    kAddress,    // u
    kConstant,   // u (data1..8, udata)
    kSigned,     // s (sdata, implicit_const)
    kString,     // str
    kBlock,      // block_offset, block_size (block*, exprloc, data16)
    kFlag,       // u
    kReference,  // u: .debug_info offset of the DIE
    kSecOffset,  // u: offset into another section (stmt_list, ranges, ...)
    kRangeList,  // u: .debug_rnglists offset, from DW_FORM_rnglistx
    kLocList,    // u: index into the unit's location-list offsets (not resolved)
  };
  uint64_t name = 0;
  uint64_t form = 0;  // the form the value was read with (after DW_FORM_indirect)
  uint64_t at = 0;    // .debug_info offset of the value
  Class cls = kNone;
  uint64_t u = 0;
  int64_t s = 0;
  const char *str = nullptr;
  uint64_t block_offset = 0, block_size = 0;
  // Constant classes as an unsigned number (sdata and implicit_const as their bits).
  bool as_unsigned(uint64_t &v) const {
    if (cls == kConstant || cls == kFlag || cls == kAddress || cls == kSecOffset) return v = u, true;
    if (cls == kSigned) return v = uint64_t(s), true;
    return false;
  }
};

struct Die {
  uint64_t offset = 0;
  uint64_t tag = 0;  // 0: a null entry (end of a sibling list)
  bool has_children = false;
  std::vector<AttrValue> attrs;
  const AttrValue *find(uint64_t name) const {
    for (const AttrValue &a : attrs)
      if (a.name == name) return &a;
    return nullptr;
  }
};

// Reads units and DIEs of one image's debug sections. Abbreviation tables are read once each.
class DebugInfoReader {
 public:
  explicit DebugInfoReader(const Sections &s) : s_(s) {}

  // Every unit of .debug_info, in section order, with its abbreviations and bases.
  bool read_units(std::vector<Unit> &out, DebugError &err);

  // The DIE at `offset` (inside `unit`), and the offset after it. Index forms are resolved
  // with the unit's bases unless `resolve` is false (the unit DIE's first read).
  bool read_die(const Unit &unit, uint64_t offset, Die &die, uint64_t &next, DebugError &err,
                bool resolve = true) const;

  const Sections &sections() const { return s_; }

  // Resolves an index or string-offset form of a DIE read with `resolve` false (a no-op for
  // any other form, and for one already resolved).
  bool resolve(const Unit &unit, AttrValue &v, DebugError &err) const { return resolve(unit, v, v.at, err); }

  // The string at `offset` of a string section (.debug_str, .debug_line_str).
  bool string_at(const Section &sec, uint64_t offset, uint64_t field, const char *&out, DebugError &err) const;
  // Entry `index` of the unit's .debug_str_offsets table, as a string.
  bool indexed_string(const Unit &unit, uint64_t index, uint64_t field, const char *&out, DebugError &err) const;
  // Entry `index` of the unit's .debug_addr table.
  bool indexed_address(const Unit &unit, uint64_t index, uint64_t field, uint64_t &out, DebugError &err) const;

 private:
  // `form_at`: where the form code was read (the value's own offset, or DW_FORM_indirect's operand).
  bool read_value(const Unit &unit, cfi::Reader &r, uint64_t form, int64_t implicit_const, AttrValue &v,
                  DebugError &err, int depth, uint64_t form_at) const;
  bool resolve(const Unit &unit, AttrValue &v, uint64_t field, DebugError &err) const;

  const Sections &s_;
  std::map<uint64_t, AbbrevTable> abbrevs_;
};

}  // namespace sfu::tools::dwarf
