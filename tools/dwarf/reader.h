// A bounds-checked cursor over part of a DWARF section: fixed-size integers in either byte order,
// LEB128, NUL-terminated strings, offsets of either DWARF format, and DW_EH_PE_* encoded pointers.
// Positions are section offsets, so every error it reports carries the offset of the field that
// did not fit. Host code; used by the CFI reader (cfi.cpp) and the debug-info readers
// (debug_info.cpp, line_table.cpp, ranges.cpp), which name their own errors through fail(name).
#pragma once

#include <cstdint>
#include <string>

#include "tools/dwarf/cfi.h"
#include "tools/text/bytes.h"

namespace sfu::tools::cfi {

// DW_EH_PE_* (LSB 4.1, "DWARF Exception Header Encoding").
inline constexpr uint8_t kPeAbsptr = 0x00, kPeUleb128 = 0x01, kPeUdata2 = 0x02, kPeUdata4 = 0x03,
                         kPeUdata8 = 0x04, kPeSleb128 = 0x09, kPeSdata2 = 0x0a, kPeSdata4 = 0x0b,
                         kPeSdata8 = 0x0c;
inline constexpr uint8_t kPePcrel = 0x10, kPeTextrel = 0x20, kPeDatarel = 0x30, kPeFuncrel = 0x40,
                         kPeAligned = 0x50;
inline constexpr uint8_t kPeIndirect = 0x80, kPeOmit = 0xff;

// Whether `enc` names a value format and an application this reader knows. DW_EH_PE_omit and
// the indirect bit are the caller's business: it passes what the field may carry.
inline bool valid_pointer_encoding(uint8_t enc, bool allow_omit, bool allow_indirect) {
  if (enc == kPeOmit) return allow_omit;
  if ((enc & kPeIndirect) && !allow_indirect) return false;
  uint8_t fmt = enc & 0x0f, app = enc & 0x70;
  switch (fmt) {
    case kPeAbsptr: case kPeUleb128: case kPeUdata2: case kPeUdata4: case kPeUdata8:
    case kPeSleb128: case kPeSdata2: case kPeSdata4: case kPeSdata8:
      break;
    default:
      return false;
  }
  if (app > kPeAligned) return false;
  return app != kPeAligned || fmt == kPeAbsptr;  // aligned is a pointer-sized word
}

// What pc-relative and function-relative pointers are relative to.
struct PointerBase {
  uint64_t section_addr = 0;  // address of section offset 0
  bool has_func = false;      // DW_EH_PE_funcrel is only meaningful inside an FDE
  uint64_t func = 0;
};

class Reader {
 public:
  // Reads [begin, end) of `bytes` (offsets); failures go to `err`.
  Reader(const uint8_t *bytes, uint64_t begin, uint64_t end, bool big_endian, uint8_t address_size,
         Error &err)
      : bytes_(bytes), pos_(begin), end_(end), big_(big_endian), addr_size_(address_size), err_(err) {}

  uint64_t pos() const { return pos_; }
  uint64_t end() const { return end_; }
  uint64_t left() const { return end_ - pos_; }
  bool at_end() const { return pos_ >= end_; }
  void set_address_size(uint8_t n) { addr_size_ = n; }  // a version 4 CIE says its own
  // Moves to `to`, which the caller has checked lies in [pos, end].
  void seek(uint64_t to) { pos_ = to; }

  // Sets the error and returns false, for `return r.fail(...)`.
  bool fail(ErrorCode code, uint64_t at, std::string detail) {
    err_.name = error_name(code);
    err_.offset = at;
    err_.detail = std::move(detail);
    return false;
  }

  // The same with an error name of the caller's own (the debug-info readers' list).
  bool fail(const char *name, uint64_t at, std::string detail) {
    err_.name = name;
    err_.offset = at;
    err_.detail = std::move(detail);
    return false;
  }

  const uint8_t *bytes() const { return bytes_; }
  bool big_endian() const { return big_; }
  uint8_t address_size() const { return addr_size_; }

  bool need(uint64_t n, const char *what) {
    if (n <= left()) return true;
    return fail(ErrorCode::kTruncated, pos_,
                std::string(what) + " needs " + std::to_string(n) + " bytes, " +
                    std::to_string(left()) + " left");
  }

  bool skip(uint64_t n, const char *what) {
    if (!need(n, what)) return false;
    pos_ += n;
    return true;
  }

  // An unsigned integer of `n` (1..8) bytes in the section's byte order.
  bool fixed(unsigned n, uint64_t &v, const char *what) {
    if (!need(n, what)) return false;
    v = load_bytes(bytes_ + pos_, n, big_);
    pos_ += n;
    return true;
  }

  bool u8(uint8_t &v, const char *what) {
    uint64_t x;
    if (!fixed(1, x, what)) return false;
    v = uint8_t(x);
    return true;
  }

  // A signed integer of `n` bytes, sign-extended.
  bool fixed_signed(unsigned n, int64_t &v, const char *what) {
    uint64_t x;
    if (!fixed(n, x, what)) return false;
    if (n < 8 && (x >> (8 * n - 1)) & 1) x |= ~uint64_t(0) << (8 * n);
    v = int64_t(x);
    return true;
  }

  // A section offset of the unit's format: 4 bytes (32-bit DWARF) or 8 (64-bit DWARF).
  bool offset(unsigned offset_size, uint64_t &v, const char *what) { return fixed(offset_size, v, what); }

  // A NUL-terminated string starting here; `out` points into the section. The NUL must lie
  // before the end, else the string is truncated.
  bool cstring(const char *&out, const char *what) {
    uint64_t start = pos_;
    for (uint64_t i = pos_; i < end_; i++) {
      if (bytes_[i] == 0) {
        out = reinterpret_cast<const char *>(bytes_ + start);
        pos_ = i + 1;
        return true;
      }
    }
    return fail(ErrorCode::kTruncated, start, std::string(what) + ": string without its NUL");
  }

  // LEB128 of at most 64 significant bits (ten bytes); anything longer or wider is refused
  // rather than silently truncated.
  bool uleb(uint64_t &v, const char *what) { return leb(false, v, what); }
  bool sleb(int64_t &v, const char *what) {
    uint64_t x;
    if (!leb(true, x, what)) return false;
    v = int64_t(x);
    return true;
  }

  // Reads a pointer in encoding `enc` (valid_pointer_encoding, not omit; the indirect bit is
  // ignored: the value is the pointer's address, never dereferenced). The result is truncated
  // to the address size.
  bool pointer(uint8_t enc, const PointerBase &base, uint64_t &v, const char *what) {
    uint64_t field = pos_;
    uint8_t app = enc & 0x70;
    if (app == kPeAligned) {
      if (!skip(align_pad(base), what)) return false;
    }
    if (!value(enc & 0x0f, v, what)) return false;
    switch (app) {
      case kPeAbsptr:
      case kPeAligned:
        break;
      case kPePcrel:
        v += base.section_addr + field;
        break;
      case kPeFuncrel:
        if (!base.has_func)
          return fail(ErrorCode::kUnsupportedPointerBase, field,
                      std::string(what) + ": function-relative outside an FDE");
        v += base.func;
        break;
      case kPeTextrel:
      case kPeDatarel:
        return fail(ErrorCode::kUnsupportedPointerBase, field,
                    std::string(what) + (app == kPeTextrel ? ": text" : ": data") +
                        "-relative pointer, base unknown");
      default:
        return fail(ErrorCode::kBadPointerEncoding, field, std::string(what) + ": encoding " +
                                                              hex(enc));
    }
    v &= mask();
    return true;
  }

  // Steps over a pointer in encoding `enc` without applying it (so any application will do):
  // personality and LSDA pointers are only skipped.
  bool skip_pointer(uint8_t enc, const PointerBase &base, const char *what) {
    if ((enc & 0x70) == kPeAligned && !skip(align_pad(base), what)) return false;
    uint64_t v;
    return value(enc & 0x0f, v, what);
  }

  // The value part of an encoding: its size and signedness, nothing applied.
  bool value(uint8_t fmt, uint64_t &v, const char *what) {
    int64_t s;
    switch (fmt) {
      case kPeAbsptr: return fixed(addr_size_, v, what);
      case kPeUleb128: return uleb(v, what);
      case kPeUdata2: return fixed(2, v, what);
      case kPeUdata4: return fixed(4, v, what);
      case kPeUdata8: return fixed(8, v, what);
      case kPeSleb128: if (!sleb(s, what)) return false; break;
      case kPeSdata2: if (!fixed_signed(2, s, what)) return false; break;
      case kPeSdata4: if (!fixed_signed(4, s, what)) return false; break;
      case kPeSdata8: if (!fixed_signed(8, s, what)) return false; break;
      default:
        return fail(ErrorCode::kBadPointerEncoding, pos_,
                    std::string(what) + ": value format " + hex(fmt));
    }
    v = uint64_t(s);
    return true;
  }

  uint64_t mask() const { return addr_size_ >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * addr_size_)) - 1; }

  static std::string hex(uint64_t v) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    do {
      s.insert(s.begin(), digits[v & 15]);
      v >>= 4;
    } while (v);
    if (s.size() == 1) s.insert(s.begin(), '0');
    return "0x" + s;
  }

 private:
  // DW_EH_PE_aligned: aligned on the address the field is loaded at, not its section offset.
  uint64_t align_pad(const PointerBase &base) const {
    uint64_t addr = base.section_addr + pos_;
    return (addr_size_ - addr % addr_size_) % addr_size_;
  }

  bool leb(bool is_signed, uint64_t &v, const char *what) {
    uint64_t start = pos_;
    v = 0;
    for (unsigned i = 0;; i++) {
      if (pos_ >= end_)
        return fail(ErrorCode::kTruncated, start, std::string(what) + ": LEB128 runs past the end");
      uint8_t b = bytes_[pos_++];
      if (i == 9) {
        // Bit 63 is the tenth byte's lowest bit; the rest must be its sign (or zero).
        bool ok = is_signed ? (b == 0x00 || b == 0x7f) : (b == 0x00 || b == 0x01);
        if (!ok)
          return fail(ErrorCode::kLeb128TooLong, start,
                      std::string(what) + ": LEB128 wider than 64 bits");
        v |= uint64_t(b & 1) << 63;
        return true;
      }
      v |= uint64_t(b & 0x7f) << (7 * i);
      if (!(b & 0x80)) {
        if (is_signed && (b & 0x40)) v |= ~uint64_t(0) << (7 * (i + 1));
        return true;
      }
    }
  }

  const uint8_t *bytes_;
  uint64_t pos_, end_;
  bool big_;
  uint8_t addr_size_;
  Error &err_;
};

}  // namespace sfu::tools::cfi
