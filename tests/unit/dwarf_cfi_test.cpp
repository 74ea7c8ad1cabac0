// The DWARF CFI reader (tools/dwarf/cfi.h) on hand-built .eh_frame and .debug_frame sections:
// exact rows for every call frame instruction, augmentations and pointer encodings, both byte
// orders and both length formats, every named error at its exact offset, and damaged sections
// (cut at every length, every byte flipped) that must give rows or a named error, never a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "tools/dwarf/cfi.h"
#include "tools/elf/elf_file.h"

namespace sfu::tools::cfi {
// Readable failures. static: other test files may print these types their own way.
[[maybe_unused]] static void PrintTo(const CfaRule &c, std::ostream *os) {
  if (c.kind == CfaRule::kRegOffset)
    *os << "r" << c.reg << "+" << c.offset;
  else
    *os << "expr(" << c.expr.size() << " bytes)";
}
[[maybe_unused]] static void PrintTo(const RegRule &r, std::ostream *os) {
  static const char *const kinds[] = {"same", "undef", "at", "val", "reg", "expr", "val_expr"};
  *os << kinds[r.kind] << "(" << r.value << (r.expr.empty() ? "" : ", expr") << ")";
}
}  // namespace sfu::tools::cfi

using namespace sfu::tools;
using namespace sfu::tools::cfi;

namespace {

// ---- A tiny builder for CFI sections ----

struct Bytes {
  bool big = false;
  std::vector<uint8_t> v;

  size_t size() const { return v.size(); }
  Bytes &u8(uint64_t x) {
    v.push_back(uint8_t(x));
    return *this;
  }
  Bytes &un(uint64_t x, unsigned n) {
    for (unsigned i = 0; i < n; i++) v.push_back(uint8_t(x >> (8 * (big ? n - 1 - i : i))));
    return *this;
  }
  void patch(size_t at, uint64_t x, unsigned n) {
    for (unsigned i = 0; i < n; i++) v[at + i] = uint8_t(x >> (8 * (big ? n - 1 - i : i)));
  }
  Bytes &uleb(uint64_t x) {
    do {
      uint8_t b = x & 0x7f;
      x >>= 7;
      v.push_back(b | (x ? 0x80 : 0));
    } while (x);
    return *this;
  }
  Bytes &sleb(int64_t x) {
    for (;;) {
      uint8_t b = x & 0x7f;
      x >>= 7;
      bool done = (x == 0 && !(b & 0x40)) || (x == -1 && (b & 0x40));
      v.push_back(b | (done ? 0 : 0x80));
      if (done) return *this;
    }
  }
  Bytes &raw(const std::vector<uint8_t> &b) {
    v.insert(v.end(), b.begin(), b.end());
    return *this;
  }
};

// Call frame instructions, by name.
struct Ops : Bytes {
  explicit Ops(bool big_endian = false) { big = big_endian; }
  Ops &nop() { return op(0x00); }
  Ops &set_loc(uint64_t a, unsigned n = 8) { op(0x01).un(a, n); return *this; }
  Ops &adv(uint8_t d) { return op(0x40 | d); }
  Ops &adv1(uint8_t d) { op(0x02).u8(d); return *this; }
  Ops &adv2(uint16_t d) { op(0x03).un(d, 2); return *this; }
  Ops &adv4(uint32_t d) { op(0x04).un(d, 4); return *this; }
  Ops &offset(uint8_t r, uint64_t o) { op(0x80 | r).uleb(o); return *this; }
  Ops &offset_ext(uint64_t r, uint64_t o) { op(0x05).uleb(r).uleb(o); return *this; }
  Ops &restore(uint8_t r) { return op(0xc0 | r); }
  Ops &restore_ext(uint64_t r) { op(0x06).uleb(r); return *this; }
  Ops &undefined(uint64_t r) { op(0x07).uleb(r); return *this; }
  Ops &same_value(uint64_t r) { op(0x08).uleb(r); return *this; }
  Ops &reg(uint64_t r, uint64_t r2) { op(0x09).uleb(r).uleb(r2); return *this; }
  Ops &remember() { return op(0x0a); }
  Ops &restore_state() { return op(0x0b); }
  Ops &def_cfa(uint64_t r, uint64_t o) { op(0x0c).uleb(r).uleb(o); return *this; }
  Ops &def_cfa_register(uint64_t r) { op(0x0d).uleb(r); return *this; }
  Ops &def_cfa_offset(uint64_t o) { op(0x0e).uleb(o); return *this; }
  Ops &def_cfa_expr(const std::vector<uint8_t> &e) { op(0x0f).uleb(e.size()).raw(e); return *this; }
  Ops &expr(uint64_t r, const std::vector<uint8_t> &e) { op(0x10).uleb(r).uleb(e.size()).raw(e); return *this; }
  Ops &offset_ext_sf(uint64_t r, int64_t o) { op(0x11).uleb(r).sleb(o); return *this; }
  Ops &def_cfa_sf(uint64_t r, int64_t o) { op(0x12).uleb(r).sleb(o); return *this; }
  Ops &def_cfa_offset_sf(int64_t o) { op(0x13).sleb(o); return *this; }
  Ops &val_offset(uint64_t r, uint64_t o) { op(0x14).uleb(r).uleb(o); return *this; }
  Ops &val_offset_sf(uint64_t r, int64_t o) { op(0x15).uleb(r).sleb(o); return *this; }
  Ops &val_expr(uint64_t r, const std::vector<uint8_t> &e) { op(0x16).uleb(r).uleb(e.size()).raw(e); return *this; }
  Ops &negate_ra() { return op(0x2d); }
  Ops &args_size(uint64_t s) { op(0x2e).uleb(s); return *this; }
  Ops &neg_offset_ext(uint64_t r, uint64_t o) { op(0x2f).uleb(r).uleb(o); return *this; }
  Ops &op(uint8_t o) {
    u8(o);
    return *this;
  }
};

struct CieSpec {
  uint8_t version = 1;
  std::string aug = "zR";
  uint64_t caf = 1;
  int64_t daf = -8;
  uint64_t ra = 16;
  std::vector<uint8_t> aug_data = {0x1b};  // R: pcrel | sdata4
  std::vector<uint8_t> insns;
  uint8_t v4_address_size = 8, v4_segment_size = 0;
};

struct CieMarks {
  size_t rec = 0, version = 0, aug = 0, aug_data = 0, insns = 0;
};

struct FdeSpec {
  size_t cie = 0;
  uint64_t start = 0, len = 0;
  uint8_t enc = 0x1b;        // .eh_frame only; .debug_frame writes absolute addresses
  bool z = true;             // the CIE has 'z': write augmentation data
  std::vector<uint8_t> aug_data;
  std::vector<uint8_t> insns;
};

// FdeSpec with the three fields every FDE needs; the rest by chained setters.
struct F : FdeSpec {
  F(size_t c, uint64_t s, uint64_t l) {
    cie = c;
    start = s;
    len = l;
  }
  F &encoding(uint8_t e) { enc = e; return *this; }
  F &has_z(bool v) { z = v; return *this; }
  F &augmentation(std::vector<uint8_t> d) { aug_data = std::move(d); return *this; }
  F &ops(std::vector<uint8_t> i) { insns = std::move(i); return *this; }
};

struct FdeMarks {
  size_t rec = 0, id = 0, start = 0, insns = 0;
};

struct Builder {
  bool eh = true, big = false, dwarf64 = false;
  uint64_t addr = 0x402000;
  uint8_t address_size = 8;
  uint16_t machine = kEmX86_64;
  Bytes b;

  Builder() = default;
  Builder(bool eh_frame, bool big_endian, bool dwarf64_lengths, uint16_t m = kEmX86_64)
      : eh(eh_frame), big(big_endian), dwarf64(dwarf64_lengths), machine(m) {
    b.big = big;
  }

  unsigned id_size() const { return dwarf64 ? 8 : 4; }
  size_t open() {
    size_t at = b.size();
    b.big = big;
    if (dwarf64)
      b.un(0xffffffff, 4).un(0, 8);
    else
      b.un(0, 4);
    return at;
  }
  void close(size_t at) {
    if (dwarf64)
      b.patch(at + 4, b.size() - at - 12, 8);
    else
      b.patch(at, b.size() - at - 4, 4);
  }

  CieMarks cie(const CieSpec &s) {
    CieMarks m;
    m.rec = open();
    b.un(eh ? 0 : ~uint64_t(0), id_size());
    m.version = b.size();
    b.u8(s.version);
    m.aug = b.size();
    for (char ch : s.aug) b.u8(uint8_t(ch));
    b.u8(0);
    if (s.version == 4) b.u8(s.v4_address_size).u8(s.v4_segment_size);
    b.uleb(s.caf).sleb(s.daf);
    if (s.version == 1)
      b.u8(s.ra);
    else
      b.uleb(s.ra);
    if (!s.aug.empty() && s.aug[0] == 'z') {
      b.uleb(s.aug_data.size());
      m.aug_data = b.size();
      b.raw(s.aug_data);
    }
    m.insns = b.size();
    b.raw(s.insns);
    close(m.rec);
    return m;
  }

  // A pointer in encoding `enc` whose value is `value`, as a producer writes it.
  void pointer(uint8_t enc, uint64_t value) {
    uint64_t field = b.size();
    if ((enc & 0x70) == 0x50) {
      while ((addr + b.size()) % address_size) b.u8(0);
      b.un(value, address_size);
      return;
    }
    if ((enc & 0x70) == 0x10) value -= addr + field;
    switch (enc & 0x0f) {
      case 0x00: b.un(value, address_size); break;
      case 0x01: b.uleb(value); break;
      case 0x02: case 0x0a: b.un(value, 2); break;
      case 0x03: case 0x0b: b.un(value, 4); break;
      case 0x04: case 0x0c: b.un(value, 8); break;
      case 0x09: b.sleb(int64_t(value)); break;
      default: ADD_FAILURE() << "builder: format " << int(enc & 0x0f);
    }
  }

  FdeMarks fde(const FdeSpec &s) {
    FdeMarks m;
    m.rec = open();
    m.id = b.size();
    b.un(eh ? m.id - s.cie : s.cie, id_size());
    m.start = b.size();
    if (eh) {
      pointer(s.enc, s.start);
      pointer(s.enc & 0x0f, s.len);
    } else {
      b.un(s.start, address_size).un(s.len, address_size);
    }
    if (s.z) b.uleb(s.aug_data.size()).raw(s.aug_data);
    m.insns = b.size();
    b.raw(s.insns);
    close(m.rec);
    return m;
  }

  void terminator() { b.un(0, 4); }

  Section section() const {
    Section s;
    s.bytes = b.v.data();
    s.size = b.v.size();
    s.addr = addr;
    s.eh_frame = eh;
    s.big_endian = big;
    s.machine = machine;
    s.address_size = address_size;
    return s;
  }
};

struct Result {
  bool ok = false;
  std::vector<Fde> fdes;
  Error err;
};

Result parse(const Section &s) {
  Result r;
  r.ok = read_cfi(s, r.fdes, r.err);
  return r;
}
Result parse(const Builder &b) { return parse(b.section()); }

// ---- Rule shorthands ----

CfaRule cfa(uint32_t reg, int64_t off) { return CfaRule{CfaRule::kRegOffset, reg, off, {}}; }
CfaRule cfa_expr(std::vector<uint8_t> e) { return CfaRule{CfaRule::kExpression, 0, 0, std::move(e)}; }
RegRule at(int64_t off) { return RegRule{RegRule::kOffset, off, {}}; }
RegRule val(int64_t off) { return RegRule{RegRule::kValOffset, off, {}}; }
RegRule in_reg(int64_t r) { return RegRule{RegRule::kRegister, r, {}}; }
RegRule undef() { return RegRule{RegRule::kUndefined, 0, {}}; }
RegRule same() { return RegRule{RegRule::kSameValue, 0, {}}; }
RegRule expr(std::vector<uint8_t> e) { return RegRule{RegRule::kExpression, 0, std::move(e)}; }
RegRule val_expr(std::vector<uint8_t> e) { return RegRule{RegRule::kValExpression, 0, std::move(e)}; }
using Regs = std::map<uint32_t, RegRule>;

void expect_row(const Row &row, uint64_t start, uint64_t end, const CfaRule &c, const Regs &regs,
                bool ra_signed = false, uint64_t args_size = 0) {
  EXPECT_EQ(row.start, start);
  EXPECT_EQ(row.end, end);
  EXPECT_EQ(row.cfa, c);
  EXPECT_EQ(row.regs, regs);
  EXPECT_EQ(row.ra_signed, ra_signed);
  EXPECT_EQ(row.args_size, args_size);
}

// GCC's x86_64 CIE: CFA = rsp + 8, return address (16) at CFA - 8.
CieSpec x86_cie() {
  CieSpec c;
  c.insns = Ops().def_cfa(7, 8).offset(16, 1).v;
  return c;
}

constexpr uint64_t kStart = 0x401000, kLen = 0x100, kEnd = kStart + kLen;

// One x86_64 FDE at [kStart, kEnd) with `ops` after the GCC CIE; the reader must accept it.
std::vector<Row> rows_of(const Ops &ops, uint16_t machine = kEmX86_64, CieSpec c = x86_cie()) {
  Builder b(true, false, false, machine);
  auto cm = b.cie(c);
  b.fde(F(cm.rec, kStart, kLen).ops(ops.v));
  Result r = parse(b);
  EXPECT_TRUE(r.ok) << r.err.name << " at " << r.err.offset << ": " << r.err.detail;
  if (!r.ok || r.fdes.size() != 1) return {};
  return r.fdes[0].rows;
}

const Regs kRa = {{16, at(-8)}};  // the CIE's rule for the return address

// ---- Rows ----

TEST(DwarfCfi, X86PrologueAndEpilogueRows) {
  Builder b;
  auto cm = b.cie(x86_cie());
  Ops ops;
  ops.adv(1).def_cfa_offset(16).offset(6, 2)   // push %rbp
      .adv(3).def_cfa_register(6)               // mov %rsp,%rbp
      .adv1(0x10).def_cfa(7, 8).restore(6);     // leave
  auto fm = b.fde(F(cm.rec, kStart, kLen).ops(ops.v));
  Result r = parse(b);
  ASSERT_TRUE(r.ok) << r.err.name << ": " << r.err.detail;
  ASSERT_EQ(r.fdes.size(), 1u);
  const Fde &f = r.fdes[0];
  EXPECT_EQ(f.offset, fm.rec);
  EXPECT_EQ(f.start, kStart);
  EXPECT_EQ(f.end, kEnd);
  EXPECT_EQ(f.ra_reg, 16u);
  EXPECT_FALSE(f.signal_frame);
  EXPECT_FALSE(f.pauth_key_b);
  ASSERT_EQ(f.rows.size(), 4u);
  Regs saved = {{16, at(-8)}, {6, at(-16)}};
  expect_row(f.rows[0], kStart, kStart + 1, cfa(7, 8), kRa);
  expect_row(f.rows[1], kStart + 1, kStart + 4, cfa(7, 16), saved);
  expect_row(f.rows[2], kStart + 4, kStart + 0x14, cfa(6, 16), saved);
  expect_row(f.rows[3], kStart + 0x14, kEnd, cfa(7, 8), kRa);
}

TEST(DwarfCfi, EachRegisterRuleOpcode) {
  struct Case {
    const char *name;
    Ops ops;
    Regs regs;
  };
  std::vector<Case> cases = {
      {"offset", Ops().offset(3, 2), {{16, at(-8)}, {3, at(-16)}}},
      {"offset_extended", Ops().offset_ext(20, 3), {{16, at(-8)}, {20, at(-24)}}},
      {"offset_extended_sf", Ops().offset_ext_sf(20, -2), {{16, at(-8)}, {20, at(16)}}},
      {"val_offset", Ops().val_offset(5, 1), {{16, at(-8)}, {5, val(-8)}}},
      {"val_offset_sf", Ops().val_offset_sf(5, -1), {{16, at(-8)}, {5, val(8)}}},
      {"GNU_negative_offset_extended", Ops().neg_offset_ext(5, 2), {{16, at(-8)}, {5, at(16)}}},
      {"undefined", Ops().undefined(16), {{16, undef()}}},
      {"same_value", Ops().same_value(3), {{16, at(-8)}, {3, same()}}},
      {"register", Ops().reg(16, 30), {{16, in_reg(30)}}},
      {"expression", Ops().expr(3, {0x77, 0x10}), {{16, at(-8)}, {3, expr({0x77, 0x10})}}},
      {"val_expression", Ops().val_expr(3, {0x92, 0x07, 0x08}),
       {{16, at(-8)}, {3, val_expr({0x92, 0x07, 0x08})}}},
      {"restore to the CIE rule", Ops().offset(16, 3).restore(16), kRa},
      {"restore_extended to the CIE rule", Ops().undefined(16).restore_ext(16), kRa},
      {"restore without a CIE rule", Ops().offset(3, 2).restore(3), kRa},
      {"restore_extended without a CIE rule", Ops().offset(40, 2).restore_ext(40), kRa},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    Ops ops;
    ops.adv(4).raw(c.ops.v);
    auto rows = rows_of(ops);
    if (c.regs == kRa) {
      ASSERT_EQ(rows.size(), 1u) << "an unchanged rule set merges with the row before";
      expect_row(rows[0], kStart, kEnd, cfa(7, 8), kRa);
      continue;
    }
    ASSERT_EQ(rows.size(), 2u);
    expect_row(rows[0], kStart, kStart + 4, cfa(7, 8), kRa);
    expect_row(rows[1], kStart + 4, kEnd, cfa(7, 8), c.regs);
  }
}

TEST(DwarfCfi, EachCfaOpcode) {
  struct Case {
    const char *name;
    Ops ops;
    CfaRule cfa;
  };
  std::vector<Case> cases = {
      {"def_cfa", Ops().def_cfa(6, 32), cfa(6, 32)},
      {"def_cfa_sf", Ops().def_cfa_sf(6, -4), cfa(6, 32)},  // factored: -4 * -8
      {"def_cfa_register", Ops().def_cfa_register(6), cfa(6, 8)},
      {"def_cfa_offset", Ops().def_cfa_offset(40), cfa(7, 40)},
      {"def_cfa_offset_sf", Ops().def_cfa_offset_sf(-5), cfa(7, 40)},
      {"def_cfa_expression", Ops().def_cfa_expr({0x77, 0x08, 0x06}), cfa_expr({0x77, 0x08, 0x06})},
      {"def_cfa after an expression", Ops().def_cfa_expr({0x77, 0x08}).def_cfa(7, 16), cfa(7, 16)},
      // As libgcc: register and offset outlive an expression. def_cfa_offset sets the offset
      // but leaves the expression in force; def_cfa_register goes back to register + offset.
      {"def_cfa_register after an expression",
       Ops().def_cfa_offset(56).def_cfa_expr({0x77, 0x08}).def_cfa_register(6), cfa(6, 56)},
      {"def_cfa_offset under an expression",
       Ops().def_cfa_expr({0x77, 0x08}).def_cfa_offset(24), cfa_expr({0x77, 0x08})},
      {"def_cfa_offset_sf, then def_cfa_register",
       Ops().def_cfa_expr({0x77, 0x08}).def_cfa_offset_sf(-4).def_cfa_register(7), cfa(7, 32)},
      {"remember_state saves the offset under an expression",
       Ops().def_cfa_offset(56).def_cfa_expr({0x77, 0x08}).remember().def_cfa_offset(16)
           .restore_state().def_cfa_register(6),
       cfa(6, 56)},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    Ops ops;
    ops.adv(2).raw(c.ops.v);
    auto rows = rows_of(ops);
    ASSERT_EQ(rows.size(), 2u);
    expect_row(rows[0], kStart, kStart + 2, cfa(7, 8), kRa);
    expect_row(rows[1], kStart + 2, kEnd, c.cfa, kRa);
  }
}

TEST(DwarfCfi, AdvanceFormsAndSetLoc) {
  CieSpec c = x86_cie();
  c.caf = 4;  // advances count in units of 4 bytes; set_loc is an address
  Ops ops;
  ops.adv(1).def_cfa_offset(16)         // +4
      .adv1(2).def_cfa_offset(24)       // +8
      .adv2(3).def_cfa_offset(32)       // +12
      .adv4(4).def_cfa_offset(40)       // +16
      .set_loc(kStart + 0x80, 4).def_cfa_offset(48);  // pcrel sdata4, as the R encoding
  // set_loc is written in the FDE encoding: pc-relative to its own field.
  Builder b;
  auto cm = b.cie(c);
  size_t set_loc_at = ops.v.size() - 2 - 4;  // the 4 address bytes precede def_cfa_offset 48
  auto fm = b.fde(F(cm.rec, kStart, kLen).ops(ops.v));
  uint64_t field = fm.insns + set_loc_at;
  b.b.patch(field, kStart + 0x80 - (b.addr + field), 4);
  Result r = parse(b);
  ASSERT_TRUE(r.ok) << r.err.name << ": " << r.err.detail;
  const auto &rows = r.fdes.at(0).rows;
  ASSERT_EQ(rows.size(), 6u);
  expect_row(rows[0], kStart, kStart + 4, cfa(7, 8), kRa);
  expect_row(rows[1], kStart + 4, kStart + 12, cfa(7, 16), kRa);
  expect_row(rows[2], kStart + 12, kStart + 24, cfa(7, 24), kRa);
  expect_row(rows[3], kStart + 24, kStart + 40, cfa(7, 32), kRa);
  expect_row(rows[4], kStart + 40, kStart + 0x80, cfa(7, 40), kRa);
  expect_row(rows[5], kStart + 0x80, kEnd, cfa(7, 48), kRa);
}

TEST(DwarfCfi, RowsMergeAndCoverTheRange) {
  // Advances with nothing changed, zero advances and nops make no new rows.
  auto rows = rows_of(Ops().adv(1).nop().adv(0).adv(2).args_size(0).adv1(0).def_cfa_offset(8));
  ASSERT_EQ(rows.size(), 1u);
  expect_row(rows[0], kStart, kEnd, cfa(7, 8), kRa);

  // Advancing exactly to the end is allowed; what follows has no addresses left.
  rows = rows_of(Ops().adv1(0xff).def_cfa_offset(16).adv(1).def_cfa_offset(24));
  ASSERT_EQ(rows.size(), 2u);
  expect_row(rows[1], kStart + 0xff, kEnd, cfa(7, 16), kRa);

  // A change that is undone within the same address makes no row of its own.
  rows = rows_of(Ops().def_cfa_offset(16).def_cfa_offset(8).adv(5).offset(3, 2));
  ASSERT_EQ(rows.size(), 2u);
  expect_row(rows[0], kStart, kStart + 5, cfa(7, 8), kRa);
}

TEST(DwarfCfi, ZeroLengthFdeHasNoRows) {
  Builder b;
  auto cm = b.cie(x86_cie());
  b.fde(F(cm.rec, kStart, 0).ops(Ops().adv(0).def_cfa_offset(16).v));
  Result r = parse(b);
  ASSERT_TRUE(r.ok) << r.err.name;
  ASSERT_EQ(r.fdes.size(), 1u);
  EXPECT_EQ(r.fdes[0].start, kStart);
  EXPECT_EQ(r.fdes[0].end, kStart);
  EXPECT_TRUE(r.fdes[0].rows.empty());
}

TEST(DwarfCfi, ArgsSizeIsRecordedPerRow) {
  auto rows = rows_of(Ops().adv(2).args_size(16).adv(2).args_size(0));
  ASSERT_EQ(rows.size(), 3u);
  expect_row(rows[1], kStart + 2, kStart + 4, cfa(7, 8), kRa, false, 16);
  expect_row(rows[2], kStart + 4, kEnd, cfa(7, 8), kRa, false, 0);
}

TEST(DwarfCfi, RememberAndRestoreStateIncludingTheCfa) {
  Ops ops;
  ops.adv(1).def_cfa_offset(16).offset(6, 2)
      .adv(1).remember().def_cfa(7, 8).restore(6)   // an early return's epilogue
      .adv(1).restore_state()                       // back to the body's rules
      .adv(1).remember().def_cfa_offset(64).remember().offset(3, 5)
      .adv(1).restore_state()
      .adv(1).restore_state();
  auto rows = rows_of(ops);
  ASSERT_EQ(rows.size(), 7u);
  Regs body = {{16, at(-8)}, {6, at(-16)}};
  expect_row(rows[0], kStart, kStart + 1, cfa(7, 8), kRa);
  expect_row(rows[1], kStart + 1, kStart + 2, cfa(7, 16), body);
  expect_row(rows[2], kStart + 2, kStart + 3, cfa(7, 8), kRa);
  expect_row(rows[3], kStart + 3, kStart + 4, cfa(7, 16), body);
  Regs deeper = body;
  deeper[3] = at(-40);
  expect_row(rows[4], kStart + 4, kStart + 5, cfa(7, 64), deeper);
  expect_row(rows[5], kStart + 5, kStart + 6, cfa(7, 64), body);
  expect_row(rows[6], kStart + 6, kEnd, cfa(7, 16), body);
}

TEST(DwarfCfi, RestoreGoesBackToTheCieInitialRules) {
  CieSpec c = x86_cie();
  c.insns = Ops().def_cfa(7, 8).offset(16, 1).same_value(3).undefined(40).v;
  Regs initial = {{16, at(-8)}, {3, same()}, {40, undef()}};
  Ops ops;
  ops.adv(1).offset(16, 4).offset(3, 2).offset_ext(40, 3).offset(5, 4)
      .adv(1).restore(16).restore(3).restore_ext(40).restore(5);
  auto rows = rows_of(ops, kEmX86_64, c);
  ASSERT_EQ(rows.size(), 3u);
  expect_row(rows[0], kStart, kStart + 1, cfa(7, 8), initial);
  expect_row(rows[1], kStart + 1, kStart + 2, cfa(7, 8),
             {{16, at(-32)}, {3, at(-16)}, {40, at(-24)}, {5, at(-32)}});
  expect_row(rows[2], kStart + 2, kEnd, cfa(7, 8), initial);
}

TEST(DwarfCfi, Aarch64NegateRaState) {
  CieSpec c;
  c.caf = 4;
  c.daf = -8;
  c.ra = 30;
  c.insns = Ops().def_cfa(31, 0).v;
  Ops ops;
  ops.adv(1).negate_ra()                          // paciasp
      .adv(1).def_cfa_offset(16).offset(29, 2).offset(30, 1)
      .adv(1).remember().negate_ra()              // autiasp on an early return
      .adv(1).restore_state()                     // signed again, with the saved rules
      .adv(1).negate_ra().negate_ra();            // toggled twice: unchanged, merged
  auto rows = rows_of(ops, kEmAarch64, c);
  ASSERT_EQ(rows.size(), 5u);
  Regs saved = {{29, at(-16)}, {30, at(-8)}};
  expect_row(rows[0], kStart, kStart + 4, cfa(31, 0), {});
  expect_row(rows[1], kStart + 4, kStart + 8, cfa(31, 0), {}, true);
  expect_row(rows[2], kStart + 8, kStart + 12, cfa(31, 16), saved, true);
  expect_row(rows[3], kStart + 12, kStart + 16, cfa(31, 16), saved, false);
  expect_row(rows[4], kStart + 16, kEnd, cfa(31, 16), saved, true);
}

// ---- Augmentations ----

TEST(DwarfCfi, AugmentationZPLRWithIndirectPersonality) {
  Builder b;
  CieSpec c = x86_cie();
  c.aug = "zPLR";
  Bytes data;
  data.u8(0x9b).un(0x1234, 4);  // P: indirect | pcrel | sdata4, skipped, never dereferenced
  data.u8(0x1b);                // L: pcrel | sdata4
  data.u8(0x1b);                // R
  c.aug_data = data.v;
  auto cm = b.cie(c);
  b.fde(F(cm.rec, kStart, kLen).augmentation({1, 2, 3, 4}).ops(Ops().adv(1).def_cfa_offset(16).v));
  Result r = parse(b);
  ASSERT_TRUE(r.ok) << r.err.name << ": " << r.err.detail;
  ASSERT_EQ(r.fdes.size(), 1u);
  EXPECT_EQ(r.fdes[0].start, kStart);
  EXPECT_EQ(r.fdes[0].end, kEnd);
  ASSERT_EQ(r.fdes[0].rows.size(), 2u);
  expect_row(r.fdes[0].rows[1], kStart + 1, kEnd, cfa(7, 16), kRa);
}

TEST(DwarfCfi, PersonalityEncodingsAreSkippedBySize) {
  struct Case {
    std::vector<uint8_t> data;  // P's data, then R
  };
  std::vector<Case> cases = {
      {{0x00, 1, 2, 3, 4, 5, 6, 7, 8, 0x1b}},  // absptr: 8 bytes
      {{0x01, 0x81, 0x01, 0x1b}},              // uleb128
      {{0x02, 1, 2, 0x1b}},                    // udata2
      {{0x3b, 1, 2, 3, 4, 0x1b}},              // datarel: no base needed to skip it
      {{0x0c, 1, 2, 3, 4, 5, 6, 7, 8, 0x1b}},  // sdata8
      {{0xff, 0x1b}},                          // omit: no pointer at all
  };
  for (size_t i = 0; i < cases.size(); i++) {
    SCOPED_TRACE(i);
    Builder b;
    CieSpec c = x86_cie();
    c.aug = "zPR";
    c.aug_data = cases[i].data;
    auto cm = b.cie(c);
    b.fde(F(cm.rec, kStart, kLen));
    Result r = parse(b);
    ASSERT_TRUE(r.ok) << r.err.name << ": " << r.err.detail;
    EXPECT_EQ(r.fdes.at(0).start, kStart);
  }
  // aligned: padding up to the next 8-byte address, then an 8-byte word.
  Builder b;
  b.addr = 0x402000;
  CieSpec c = x86_cie();
  c.aug = "zPR";
  // The P encoding byte is at offset 17 (length 4, id 4, version 1, "zPR" 4, three one-byte
  // fields and the data length); the pointer field at 18, so 6 bytes of padding reach 24.
  c.aug_data = {0x50, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0x1b};
  auto cm = b.cie(c);
  ASSERT_EQ(cm.aug_data, 17u);
  b.fde(F(cm.rec, kStart, kLen));
  Result r = parse(b);
  ASSERT_TRUE(r.ok) << r.err.name << ": " << r.err.detail;
  EXPECT_EQ(r.fdes.at(0).start, kStart);
}

TEST(DwarfCfi, AugmentationSignalFrameAndBKey) {
  Builder b(true, false, false, kEmAarch64);
  CieSpec s = x86_cie();
  s.aug = "zRS";
  auto cs = b.cie(s);
  CieSpec k;
  k.aug = "zRB";
  k.caf = 4;
  k.ra = 30;
  k.insns = Ops().def_cfa(31, 0).v;
  auto ck = b.cie(k);
  b.fde(F(cs.rec, kStart, kLen));
  b.fde(F(ck.rec, kEnd, kLen));
  Result r = parse(b);
  ASSERT_TRUE(r.ok) << r.err.name << ": " << r.err.detail;
  ASSERT_EQ(r.fdes.size(), 2u);
  EXPECT_TRUE(r.fdes[0].signal_frame);
  EXPECT_FALSE(r.fdes[0].pauth_key_b);
  EXPECT_EQ(r.fdes[0].ra_reg, 16u);
  EXPECT_FALSE(r.fdes[1].signal_frame);
  EXPECT_TRUE(r.fdes[1].pauth_key_b);
  EXPECT_EQ(r.fdes[1].ra_reg, 30u);
  EXPECT_EQ(r.fdes[1].start, kEnd);
}

TEST(DwarfCfi, UnknownLetterAfterZIsSkippedByLength) {
  Builder b;
  CieSpec c = x86_cie();
  c.aug = "zRQS";  // Q is nobody's; its data and everything after it is skipped
  c.aug_data = {0x1b, 0xaa, 0xbb, 0xcc};
  auto cm = b.cie(c);
  b.fde(F(cm.rec, kStart, kLen).augmentation({9, 9}));
  Result r = parse(b);
  ASSERT_TRUE(r.ok) << r.err.name << ": " << r.err.detail;
  EXPECT_EQ(r.fdes.at(0).start, kStart);
  EXPECT_FALSE(r.fdes[0].signal_frame);  // S came after the unknown letter
  ASSERT_EQ(r.fdes[0].rows.size(), 1u);
}

TEST(DwarfCfi, EmptyAugmentationUsesAbsolutePointers) {
  Builder b;
  CieSpec c = x86_cie();
  c.aug = "";
  c.aug_data.clear();
  auto cm = b.cie(c);
  b.fde(F(cm.rec, kStart, kLen).encoding(0x00).has_z(false).ops(
      Ops().adv(3).def_cfa_offset(16).v));
  Result r = parse(b);
  ASSERT_TRUE(r.ok) << r.err.name << ": " << r.err.detail;
  ASSERT_EQ(r.fdes.at(0).rows.size(), 2u);
  expect_row(r.fdes[0].rows[1], kStart + 3, kEnd, cfa(7, 16), kRa);
}

// ---- Pointer encodings ----

TEST(DwarfCfi, FdePointerEncodings) {
  struct Case {
    uint8_t enc;
    uint64_t start;
  };
  std::vector<Case> cases = {
      {0x00, 0x401000},              // absptr
      {0x01, 0x401000},              // uleb128
      {0x02, 0x9000},                // udata2
      {0x03, 0x401000},              // udata4
      {0x04, 0x7fff00001000},        // udata8
      {0x09, 0x401000},              // sleb128
      {0x0a, 0x1000},                // sdata2
      {0x0b, 0x401000},              // sdata4
      {0x0c, 0x401000},              // sdata8
      {0x1b, 0x401000},              // pcrel sdata4, text below the section
      {0x1b, 0x500000},              // pcrel sdata4, text above it
      {0x19, 0x401000},              // pcrel sleb128
      {0x1a, 0x402100},              // pcrel sdata2
      {0x10, 0x401000},              // pcrel absptr
      {0x13, 0x500000},              // pcrel udata4, text above the section
      {0x50, 0x401000},              // aligned
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(testing::Message() << "encoding 0x" << std::hex << int(c.enc));
    Builder b;
    CieSpec cs = x86_cie();
    cs.aug_data = {c.enc};
    auto cm = b.cie(cs);
    b.fde(F(cm.rec, c.start, 0x40).encoding(c.enc));
    Result r = parse(b);
    ASSERT_TRUE(r.ok) << r.err.name << ": " << r.err.detail;
    ASSERT_EQ(r.fdes.size(), 1u);
    EXPECT_EQ(r.fdes[0].start, c.start);
    EXPECT_EQ(r.fdes[0].end, c.start + 0x40);
  }
}

TEST(DwarfCfi, FourByteAddressesWrapPcRelative) {
  Builder b;
  b.address_size = 4;
  b.addr = 0x1000;
  CieSpec c = x86_cie();
  c.aug_data = {0x1b};
  auto cm = b.cie(c);
  b.fde(F(cm.rec, 0xfffff000, 0x100));  // below 0 from the section
  CieSpec abs = x86_cie();
  abs.aug_data = {0x00};  // absptr: 4 bytes with 4-byte addresses
  auto ca = b.cie(abs);
  b.fde(F(ca.rec, 0x8000, 0x10).encoding(0x00));
  Result r = parse(b);
  ASSERT_TRUE(r.ok) << r.err.name << ": " << r.err.detail;
  ASSERT_EQ(r.fdes.size(), 2u);
  EXPECT_EQ(r.fdes[0].start, 0xfffff000u);
  EXPECT_EQ(r.fdes[0].end, 0xfffff100u);
  EXPECT_EQ(r.fdes[1].start, 0x8000u);
  EXPECT_EQ(r.fdes[1].end, 0x8010u);
}

// ---- Layouts: byte orders, lengths, sections, versions ----

// The same function described in every layout must give the same rows.
void expect_layout(Builder b, uint8_t version) {
  SCOPED_TRACE(testing::Message() << (b.eh ? ".eh_frame" : ".debug_frame")
                                  << (b.big ? " BE" : " LE") << (b.dwarf64 ? " 64" : " 32")
                                  << " v" << int(version));
  b.b.big = b.big;
  CieSpec c;
  c.version = version;
  c.aug = b.eh ? "zR" : "";
  c.aug_data = b.eh ? std::vector<uint8_t>{0x1b} : std::vector<uint8_t>{};
  c.ra = version == 1 ? 14 : 200;  // s390x r14; 200 needs the ULEB of version 3+
  c.daf = -8;
  c.insns = Ops(b.big).def_cfa(15, 160).v;
  auto cm = b.cie(c);
  Ops ops(b.big);
  ops.adv4(6).offset(14, 2).offset(15, 3).def_cfa_offset(320).adv2(0x20).def_cfa_register(11);
  b.fde(F(cm.rec, kStart, kLen).has_z(b.eh).ops(ops.v));
  b.fde(F(cm.rec, kEnd, 8).has_z(b.eh));
  Result r = parse(b);
  ASSERT_TRUE(r.ok) << r.err.name << " at " << r.err.offset << ": " << r.err.detail;
  ASSERT_EQ(r.fdes.size(), 2u);
  EXPECT_EQ(r.fdes[0].ra_reg, c.ra);
  const auto &rows = r.fdes[0].rows;
  ASSERT_EQ(rows.size(), 3u);
  Regs saved = {{14, at(-16)}, {15, at(-24)}};
  expect_row(rows[0], kStart, kStart + 6, cfa(15, 160), {});
  expect_row(rows[1], kStart + 6, kStart + 0x26, cfa(15, 320), saved);
  expect_row(rows[2], kStart + 0x26, kEnd, cfa(11, 320), saved);
  ASSERT_EQ(r.fdes[1].rows.size(), 1u);
  expect_row(r.fdes[1].rows[0], kEnd, kEnd + 8, cfa(15, 160), {});
}

TEST(DwarfCfi, EveryLayoutGivesTheSameRows) {
  for (bool eh : {true, false})
    for (bool big : {false, true})
      for (bool dwarf64 : {false, true})
        for (uint8_t version : {1, 3, 4}) {
          if (eh && version == 4) continue;  // .eh_frame has no version 4
          expect_layout(Builder(eh, big, dwarf64, big ? kEmS390 : kEmX86_64), version);
        }
}

TEST(DwarfCfi, DebugFrameVersion4AddressSize) {
  Builder b(false, true, false, kEmS390);
  CieSpec c;
  c.version = 4;
  c.aug = "";
  c.aug_data.clear();
  c.v4_address_size = 4;
  c.ra = 14;
  c.insns = Ops(true).def_cfa(15, 96).v;
  auto cm = b.cie(c);
  b.address_size = 4;  // FDE addresses as the CIE says, in a 64-bit section
  b.fde(F(cm.rec, 0x10000, 0x20).has_z(false).ops(
      Ops(true).set_loc(0x10008, 4).def_cfa_offset(192).v));
  b.address_size = 8;
  Result r = parse(b);
  ASSERT_TRUE(r.ok) << r.err.name << ": " << r.err.detail;
  ASSERT_EQ(r.fdes.at(0).rows.size(), 2u);
  expect_row(r.fdes[0].rows[0], 0x10000, 0x10008, cfa(15, 96), {});
  expect_row(r.fdes[0].rows[1], 0x10008, 0x10020, cfa(15, 192), {});
}

TEST(DwarfCfi, SectionWalk) {
  // .eh_frame: a terminator in the middle is skipped; FDEs share CIEs; order is kept.
  Builder b;
  auto c1 = b.cie(x86_cie());
  b.fde(F(c1.rec, 0x401000, 0x10));
  b.terminator();
  CieSpec s = x86_cie();
  s.aug = "zRS";
  auto c2 = b.cie(s);
  b.fde(F(c2.rec, 0x402000, 0x10));
  b.fde(F(c1.rec, 0x400000, 0x10));
  b.terminator();
  Result r = parse(b);
  ASSERT_TRUE(r.ok) << r.err.name << ": " << r.err.detail;
  ASSERT_EQ(r.fdes.size(), 3u);
  EXPECT_EQ(r.fdes[0].start, 0x401000u);
  EXPECT_EQ(r.fdes[1].start, 0x402000u);
  EXPECT_TRUE(r.fdes[1].signal_frame);
  EXPECT_EQ(r.fdes[2].start, 0x400000u);
  EXPECT_FALSE(r.fdes[2].signal_frame);

  // An empty section has no FDEs.
  Section empty;
  Result e = parse(empty);
  EXPECT_TRUE(e.ok);
  EXPECT_TRUE(e.fdes.empty());
}

TEST(DwarfCfi, DebugFrameForwardCieAndTombstones) {
  Builder b(false, false, false);
  // An FDE whose CIE comes after it: .debug_frame pointers are plain offsets.
  size_t fde_at = b.b.size();
  b.fde(F(0, 0x1000, 0x10).has_z(false));
  // lld writes all ones for a discarded function's start: left out, not an error.
  b.fde(F(0, ~uint64_t(0), 0x10).has_z(false));
  CieSpec c = x86_cie();
  c.aug = "";
  c.aug_data.clear();
  auto cm = b.cie(c);
  b.b.patch(fde_at + 4, cm.rec, 4);
  b.b.patch(fde_at + 4 + 24, cm.rec, 4);  // the second FDE: 4 + 4 + 8 + 8 bytes later
  Result r = parse(b);
  ASSERT_TRUE(r.ok) << r.err.name << " at " << r.err.offset << ": " << r.err.detail;
  ASSERT_EQ(r.fdes.size(), 1u);
  EXPECT_EQ(r.fdes[0].start, 0x1000u);
  ASSERT_EQ(r.fdes[0].rows.size(), 1u);
  expect_row(r.fdes[0].rows[0], 0x1000, 0x1010, cfa(7, 8), kRa);
}

// ---- Errors ----

struct ErrorCase {
  std::string label;
  Section section;
  std::vector<uint8_t> keep;  // the bytes `section` points into
  std::string name;
  uint64_t offset;
};

// Builds cases; each owns its bytes.
struct ErrorCases {
  std::vector<ErrorCase> cases;

  void add(std::string label, const Builder &b, std::string name, uint64_t offset) {
    ErrorCase c{std::move(label), b.section(), b.b.v, std::move(name), offset};
    cases.push_back(std::move(c));
  }
};

// An x86 section with the GCC CIE and one FDE running `ops`; `m` gets the FDE's marks.
Builder with_ops(const Ops &ops, FdeMarks *m = nullptr, uint16_t machine = kEmX86_64) {
  Builder b(true, false, false, machine);
  auto cm = b.cie(x86_cie());
  auto fm = b.fde(F(cm.rec, kStart, kLen).ops(ops.v));
  if (m) *m = fm;
  return b;
}

ErrorCases error_cases() {
  ErrorCases e;
  FdeMarks m;
  {
    Builder b;
    b.cie(x86_cie());
    b.b.v.resize(b.b.v.size() - 1);
    e.add("record passes the section end", b, "truncated", 0);
  }
  {
    Builder b = with_ops(Ops().op(0x0c), &m);  // def_cfa without operands
    e.add("operand passes the record end", b, "truncated", m.insns + 1);
  }
  {
    Builder b;
    b.cie(x86_cie());
    b.b.u8(0).u8(0);
    e.add("two bytes after the last record", b, "truncated", b.b.size() - 2);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.aug_data = {0x1b};
    auto cm = b.cie(c);
    b.b.patch(cm.aug_data - 1, 100, 1);  // augmentation data longer than the record
    e.add("augmentation data passes the record end", b, "truncated", cm.aug_data - 1);
  }
  {
    Builder b;
    b.b.un(0xfffffff0, 4).un(0, 4);
    e.add("reserved length", b, "bad-length", 0);
  }
  {
    Builder b;
    b.cie(x86_cie());
    size_t at = b.b.size();
    b.b.un(2, 4).un(0, 2);
    e.add("too short for an id", b, "bad-length", at);
  }
  {
    Builder b;
    auto cm = b.cie(x86_cie());
    auto fm = b.fde(F(cm.rec + 4, kStart, kLen));
    e.add("CIE pointer into a CIE", b, "bad-cie-pointer", fm.id);
  }
  {
    Builder b;
    b.cie(x86_cie());
    size_t fde_at = b.b.size();
    auto fm = b.fde(F(0, kStart, kLen));
    b.b.patch(fm.id, fm.id + 100, 4);  // before the section
    e.add("CIE pointer before the section", b, "bad-cie-pointer", fde_at + 4);
  }
  {
    Builder b(false, false, false);
    CieSpec c = x86_cie();
    c.aug = "";
    auto cm = b.cie(c);
    auto fm = b.fde(F(cm.rec + 1000, kStart, kLen).has_z(false));
    e.add(".debug_frame CIE pointer past the end", b, "bad-cie-pointer", fm.id);
  }
  {
    Builder b;
    auto cm = b.cie(x86_cie());
    auto f1 = b.fde(F(cm.rec, kStart, kLen));
    auto f2 = b.fde(F(f1.rec, kEnd, kLen));
    e.add("CIE pointer to an FDE", b, "cie-is-fde", f2.id);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.version = 2;
    auto cm = b.cie(c);
    e.add("version 2", b, "bad-cie-version", cm.version);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.version = 4;
    auto cm = b.cie(c);
    e.add("version 4 in .eh_frame", b, "bad-cie-version", cm.version);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.aug = "eh";
    auto cm = b.cie(c);
    e.add("augmentation without z", b, "bad-augmentation", cm.aug);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.aug_data = {0x07};  // no such value format
    auto cm = b.cie(c);
    e.add("R with format 7", b, "bad-pointer-encoding", cm.aug_data);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.aug_data = {0x9b};  // FDE addresses cannot be indirect
    auto cm = b.cie(c);
    e.add("R indirect", b, "bad-pointer-encoding", cm.aug_data);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.aug_data = {0x53};  // aligned needs the absptr format
    auto cm = b.cie(c);
    e.add("R aligned udata4", b, "bad-pointer-encoding", cm.aug_data);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.aug = "zPR";
    c.aug_data = {0x6b, 0, 0, 0, 0, 0x1b};  // application 0x60 does not exist
    auto cm = b.cie(c);
    e.add("P application 0x60", b, "bad-pointer-encoding", cm.aug_data);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.aug = "zLR";
    c.aug_data = {0x08, 0x1b};  // "signed" alone is no format
    auto cm = b.cie(c);
    e.add("L signed alone", b, "bad-pointer-encoding", cm.aug_data);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.aug_data = {0x3b};  // datarel: the GOT address is not known here
    auto cm = b.cie(c);
    auto fm = b.fde(F(cm.rec, kStart, kLen).encoding(0x0b));
    e.add("datarel FDE start", b, "unsupported-pointer-base", fm.start);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.aug_data = {0x23};  // textrel
    auto cm = b.cie(c);
    auto fm = b.fde(F(cm.rec, kStart, kLen).encoding(0x03));
    e.add("textrel FDE start", b, "unsupported-pointer-base", fm.start);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.aug_data = {0x43};  // funcrel: an FDE's own start cannot be relative to itself
    auto cm = b.cie(c);
    auto fm = b.fde(F(cm.rec, kStart, kLen).encoding(0x03));
    e.add("funcrel FDE start", b, "unsupported-pointer-base", fm.start);
  }
  {
    Builder b(false, false, false);
    CieSpec c = x86_cie();
    c.version = 4;
    c.aug = "";
    c.v4_address_size = 2;
    auto cm = b.cie(c);
    e.add("version 4 address size 2", b, "bad-address-size", cm.aug + 1);
  }
  {
    Builder b(false, false, false);
    CieSpec c = x86_cie();
    c.version = 4;
    c.aug = "";
    c.v4_segment_size = 2;
    auto cm = b.cie(c);
    e.add("version 4 segment selector size 2", b, "bad-address-size", cm.aug + 2);
  }
  {
    Builder b;
    b.cie(x86_cie());
    b.address_size = 2;
    e.add("section address size 2", b, "bad-address-size", 0);
  }
  {
    Builder b = with_ops(Ops().adv(1).op(0x17), &m);
    e.add("opcode 0x17", b, "unknown-cfa-opcode", m.insns + 1);
  }
  {
    Builder b = with_ops(Ops().adv(1).negate_ra(), &m);
    e.add("0x2d on x86_64", b, "unknown-cfa-opcode", m.insns + 1);
  }
  {
    Builder b = with_ops(Ops().negate_ra(), &m, kEmS390);
    e.add("0x2d on s390x", b, "unknown-cfa-opcode", m.insns);
  }
  {
    Builder b = with_ops(Ops().remember().restore_state().restore_state(), &m);
    e.add("restore_state with nothing remembered", b, "restore-state-empty", m.insns + 2);
  }
  {
    Ops ops;
    for (unsigned i = 0; i <= kMaxStateDepth; i++) ops.remember();
    Builder b = with_ops(ops, &m);
    e.add("remember_state too deep", b, "remember-state-too-deep", m.insns + kMaxStateDepth);
  }
  {
    Builder b = with_ops(Ops().adv1(0xff).adv(2), &m);
    e.add("advance past the FDE end", b, "advance-out-of-range", m.insns + 2);
  }
  {
    Builder b = with_ops(Ops().adv(8).set_loc(0, 4), &m);
    uint64_t field = m.insns + 2;  // set_loc to kStart + 4: backwards
    b.b.patch(field, kStart + 4 - (b.addr + field), 4);
    e.add("set_loc backwards", b, "advance-out-of-range", m.insns + 1);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.insns = Ops().def_cfa(7, 8).adv(1).v;
    auto cm = b.cie(c);
    e.add("advance in a CIE", b, "advance-out-of-range", cm.insns + 3);
  }
  {
    Builder b = with_ops(Ops().adv4(0xffffffff), &m);
    e.add("advance4 far past the end", b, "advance-out-of-range", m.insns);
  }
  {
    Ops ops;
    ops.op(0x0e).raw({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00});
    Builder b = with_ops(ops, &m);
    e.add("eleven-byte ULEB", b, "leb128-too-long", m.insns + 1);
  }
  {
    Ops ops;
    ops.op(0x13).raw({0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02});
    Builder b = with_ops(ops, &m);
    e.add("SLEB wider than 64 bits", b, "leb128-too-long", m.insns + 1);
  }
  {
    Builder b = with_ops(Ops().adv(1).offset_ext(5000, 1), &m);
    e.add("register 5000", b, "bad-register", m.insns + 2);
  }
  {
    Builder b = with_ops(Ops().reg(16, kRegisterLimit), &m);
    e.add("source register at the limit", b, "bad-register", m.insns + 2);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.version = 3;
    c.ra = 4096;
    auto cm = b.cie(c);
    e.add("return address column 4096", b, "bad-register", cm.aug + 3 + 1 + 1);
  }
  {
    Builder b = with_ops(Ops().def_cfa(7, uint64_t(1) << 63), &m);
    e.add("def_cfa offset 2^63", b, "offset-overflow", m.insns + 2);
  }
  {
    Builder b = with_ops(Ops().offset(3, uint64_t(1) << 61), &m);  // times -8 overflows
    e.add("factored offset overflows", b, "offset-overflow", m.insns + 1);
  }
  {
    Ops ops;
    ops.adv(1).op(0x0f).uleb(100).raw({0x77, 0x08});
    Builder b = with_ops(ops, &m);
    e.add("CFA expression longer than the FDE", b, "expression-out-of-bounds", m.insns + 2);
  }
  {
    Ops ops;
    ops.op(0x16).uleb(3).uleb(3).raw({0x77, 0x08});
    Builder b = with_ops(ops, &m);
    e.add("val_expression one byte short", b, "expression-out-of-bounds", m.insns + 2);
  }
  {
    Builder b;
    CieSpec c = x86_cie();
    c.aug_data = {0x04};  // udata8, absolute
    auto cm = b.cie(c);
    auto fm = b.fde(F(cm.rec, 0xffffffffffff0000, 0x20000).encoding(0x04));
    e.add("start + length wraps", b, "fde-range-overflow", fm.rec);
  }
  {
    Builder b(false, true, true, kEmS390);
    CieSpec c = x86_cie();
    c.aug = "";
    auto cm = b.cie(c);
    b.address_size = 4;  // also in a CIE that says nothing: the section's 4-byte addresses
    auto fm = b.fde(F(cm.rec, 0xfffffff0, 0x20).has_z(false));
    e.add("4-byte start + length wraps", b, "fde-range-overflow", fm.rec);
  }
  {
    // DW_CFA_remember_state copies the rules: remembered and restored over and over without a
    // single row, a long expression spends the work budget (2^24 + 8 per section byte). The
    // FDE's start (a copy of the CIE's rules) and each remember cost 1 + 1 + 8000 / 8; the check
    // before the next instruction (that remember's restore_state) refuses. Unbounded, a 4 MB
    // section of this shape once took 1.6 GB and half a minute.
    Builder b;
    CieSpec c = x86_cie();
    c.insns = Ops().def_cfa(7, 8).expr(16, std::vector<uint8_t>(8000, 0x96)).v;
    auto cm = b.cie(c);
    Ops ops;
    constexpr unsigned kPairs = 18000;
    for (unsigned i = 0; i < kPairs; i++) ops.remember().restore_state();
    auto fm = b.fde(F(cm.rec, kStart, 0x10).ops(ops.v));
    uint64_t budget = (uint64_t(1) << kWorkBaseLog2) + kWorkPerByte * b.b.size(), copy = 1 + 1 + 8000 / 8;
    uint64_t k = budget / copy;  // the remember that passes it: (k + 1) * copy > budget
    EXPECT_LE(k, kPairs);
    e.add("remembered states past the work budget", b, "too-many-rules", fm.insns + 2 * (k - 1) + 1);
  }
  return e;
}

TEST(DwarfCfi, EveryErrorNameAtItsOffset) {
  ErrorCases e = error_cases();
  std::set<std::string> produced;
  for (ErrorCase &c : e.cases) {
    SCOPED_TRACE(c.label);
    c.section.bytes = c.keep.data();
    std::vector<Fde> fdes;
    Error err;
    ASSERT_FALSE(read_cfi(c.section, fdes, err));
    EXPECT_EQ(err.name, c.name) << err.detail;
    EXPECT_EQ(err.offset, c.offset) << err.name << ": " << err.detail;
    EXPECT_FALSE(err.detail.empty());
    produced.insert(err.name);
  }
  for (const char *name : kErrorNames) EXPECT_TRUE(produced.count(name)) << name << " never produced";
}

// ---- Budgets against hostile CFI ----

// A CIE giving `rules` registers a rule (DW_CFA_offset_extended) besides the CFA and the RA, then
// `fdes` FDEs of 4 KiB running `ops` (none: one row each).
Builder fat_cie(unsigned rules, unsigned fdes, const Ops &ops = Ops(), uint16_t machine = kEmX86_64) {
  Builder b(true, false, false, machine);
  CieSpec c = x86_cie();
  Ops insns = Ops().def_cfa(7, 8).offset(16, 1);
  for (unsigned r = 0; r < rules; r++) insns.offset_ext(17 + r, 2);
  c.insns = insns.v;
  auto cm = b.cie(c);
  for (unsigned i = 0; i < fdes; i++) b.fde(F(cm.rec, kStart + 0x1000 * i, 0x1000).ops(ops.v));
  return b;
}

TEST(DwarfCfi, RowsShareTheirRules) {
  // The review's shape: a CIE with 96 rules and tiny FDEs, each one row. Each row used to be a
  // copy of the 96 rules (400 bytes of memory per byte of CFI, 1.6 GB for 4 MB); now every row
  // shares the one set, and an FDE costs its record and its row, whatever its CIE holds.
  constexpr unsigned kRules = 95, kFdes = 2000;
  Builder b = fat_cie(kRules, kFdes);
  Section s = b.section();
  std::vector<Fde> fdes;
  Error err;
  Usage u;
  ASSERT_TRUE(read_cfi(s, fdes, err, &u)) << err.name << ": " << err.detail;
  ASSERT_EQ(fdes.size(), kFdes);
  const RuleMap *shared = &fdes[0].rows[0].regs.map();
  EXPECT_EQ(shared->size(), kRules + 1);
  for (const Fde &f : fdes) {
    ASSERT_EQ(f.rows.size(), 1u);
    EXPECT_EQ(&f.rows[0].regs.map(), shared);
  }
  // Counted: the CIE and its rules, the one set and its rules, and per FDE its record and row.
  EXPECT_EQ(u.memory_peak, kCieBytes + 2 * (kRules + 1) * kRuleBytes + kSetBytes + kFdes * (sizeof(Fde) + sizeof(Row)));
  // Work: per FDE the copy of the CIE's rules, and its one row's rules hashed (the first: and
  // copied) and compared with the kept set.
  EXPECT_EQ(u.work, kFdes * (1 + 3 * (kRules + 1)));
  EXPECT_LT(u.memory_peak, 48 * s.size);
}

TEST(DwarfCfi, TheDensestRowsFitTheBudget) {
  // A new row every 2 bytes (AArch64: advance_loc 1, negate_ra_state), the most a byte of CFI
  // can ask for: under kMemoryPerByte per byte, so only a section far past real CFI's 12 to 23
  // bytes per byte is refused. And the rules copied stay under 2 per byte.
  Ops ops;
  for (unsigned i = 0; i < 2000; i++) ops.adv(1).negate_ra();
  Builder b(true, false, false, kEmAarch64);
  CieSpec c = x86_cie();
  c.insns = Ops().def_cfa(31, 0).v;
  auto cm = b.cie(c);
  for (unsigned i = 0; i < 200; i++) b.fde(F(cm.rec, kStart + 0x1000 * i, 2001).ops(ops.v));
  Section s = b.section();
  std::vector<Fde> fdes;
  Error err;
  Usage u;
  ASSERT_TRUE(read_cfi(s, fdes, err, &u)) << err.name << ": " << err.detail;
  ASSERT_EQ(fdes.size(), 200u);
  EXPECT_EQ(fdes[0].rows.size(), 2001u);
  EXPECT_EQ(fdes[0].rows.capacity(), 2001u);  // shrunk to fit when the FDE ended
  EXPECT_GT(u.memory_peak, 40 * s.size);
  EXPECT_LT(u.memory_peak, kMemoryPerByte * s.size);
  EXPECT_LT(u.work, 2 * s.size);
  EXPECT_EQ(u.memory_limit, kMemoryBase + kMemoryPerByte * s.size);
  EXPECT_EQ(u.work_limit, (uint64_t(1) << kWorkBaseLog2) + kWorkPerByte * s.size);
  // Kept with its events (Breakpad's reading), the budget is kEventMemoryPerByte per byte larger:
  // an instruction that sets a rule, 2 bytes, is an event of sizeof(RuleEvent) too. A row per 4
  // bytes, each with its rule's event, fits it.
  s.keep_events = true;
  ASSERT_TRUE(read_cfi(s, fdes, err, &u)) << err.name << ": " << err.detail;
  EXPECT_EQ(u.memory_limit, kMemoryBase + (kMemoryPerByte + kEventMemoryPerByte) * s.size);
  Ops events;
  for (unsigned i = 0; i < 1000; i++) events.adv(1).def_cfa_offset(i % 2 ? 8 : 16).adv(1).offset(3, 2);
  Builder e(true, false, false, kEmX86_64);
  auto em = e.cie(x86_cie());
  for (unsigned i = 0; i < 100; i++) e.fde(F(em.rec, kStart + 0x1000 * i, 2001).ops(events.v));
  Section es = e.section();
  es.keep_events = true;
  ASSERT_TRUE(read_cfi(es, fdes, err, &u)) << err.name << ": " << err.detail;
  EXPECT_GT(u.memory_peak, kMemoryPerByte * es.size);
  EXPECT_LT(u.memory_peak, (kMemoryPerByte + kEventMemoryPerByte) * es.size);
}

TEST(DwarfCfi, BudgetsAreExactLimits) {
  // Whatever the shape, a read given exactly what it counted passes, and one unit less is
  // refused by name: too-many-rules, saying which budget. The shapes: rows that change the CFA,
  // rows that toggle a register's rule, remembered states, a fat CIE's tiny FDEs, events
  // (Breakpad's reading), and a row per 2 bytes.
  Ops cfa_rows, reg_rows, remembers, ra_rows;
  for (unsigned i = 0; i < 300; i++) {
    cfa_rows.adv(1).def_cfa_offset(i % 2 ? 8 : 16);
    reg_rows.adv(1).offset(3, 2).adv(1).restore(3);
    remembers.offset_ext(40 + i % 20, 1).remember().restore_state();
    ra_rows.adv(1).negate_ra();
  }
  struct Shape {
    const char *label;
    Builder b;
    bool events;
  };
  std::vector<Shape> shapes = {
      {"cfa rows", fat_cie(10, 5, cfa_rows), false},
      {"register rows", fat_cie(10, 5, reg_rows), false},
      {"remembered states", fat_cie(10, 5, remembers), false},
      {"tiny FDEs", fat_cie(95, 300), false},
      {"events", fat_cie(10, 5, reg_rows), true},
      {"a row per 2 bytes", fat_cie(0, 5, ra_rows, kEmAarch64), false},
  };
  for (Shape &sh : shapes) {
    SCOPED_TRACE(sh.label);
    Section s = sh.b.section();
    s.keep_events = sh.events;
    std::vector<Fde> fdes;
    Error err;
    Usage u;
    ASSERT_TRUE(read_cfi(s, fdes, err, &u)) << err.name << ": " << err.detail;
    ASSERT_GT(u.memory_peak, 0u);
    ASSERT_GT(u.work, 0u);
    Section m = s;
    m.memory_budget = u.memory_peak;
    EXPECT_TRUE(read_cfi(m, fdes, err)) << err.detail;
    m.memory_budget = u.memory_peak - 1;
    EXPECT_FALSE(read_cfi(m, fdes, err));
    EXPECT_EQ(err.name, "too-many-rules");
    EXPECT_EQ(err.detail, "the rows and rules read so far would hold " + std::to_string(u.memory_peak) +
                              " bytes, past the budget of " + std::to_string(u.memory_peak - 1) + " (given)");
    Section w = s;
    w.work_budget = u.work;
    EXPECT_TRUE(read_cfi(w, fdes, err)) << err.detail;
    w.work_budget = u.work - 1;
    EXPECT_FALSE(read_cfi(w, fdes, err));
    EXPECT_EQ(err.name, "too-many-rules");
    EXPECT_EQ(err.detail, "the rules copied and compared so far pass the budget of " + std::to_string(u.work - 1) +
                              " (given)");
  }
}

TEST(DwarfCfi, ErrorNamesAreDistinctKebabCase) {
  std::set<std::string> seen;
  for (const char *name : kErrorNames) {
    std::string s(name);
    EXPECT_TRUE(seen.insert(s).second) << s;
    EXPECT_FALSE(s.empty());
    for (char ch : s) EXPECT_TRUE((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-') << s;
  }
  EXPECT_STREQ(error_name(ErrorCode::kTruncated), "truncated");
  EXPECT_STREQ(error_name(ErrorCode::kFdeRangeOverflow), "fde-range-overflow");
}

TEST(DwarfCfi, FdesBeforeAnErrorAreKept) {
  Builder b;
  auto cm = b.cie(x86_cie());
  b.fde(F(cm.rec, kStart, kLen));
  b.fde(F(cm.rec, kEnd, kLen).ops(Ops().restore_state().v));
  Result r = parse(b);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.err.name, "restore-state-empty");
  ASSERT_EQ(r.fdes.size(), 1u);
  EXPECT_EQ(r.fdes[0].start, kStart);
}

// ---- Damaged input ----

// A section using most of the reader: two CIEs (one zPLR), FDEs with every kind of opcode.
Builder rich_section(bool eh, bool big, bool dwarf64, uint16_t machine) {
  Builder b(eh, big, dwarf64, machine);
  CieSpec c1;
  c1.aug = eh ? "zPLR" : "";
  c1.aug_data = eh ? std::vector<uint8_t>{0x9b, 1, 2, 3, 4, 0x1b, 0x1b} : std::vector<uint8_t>{};
  c1.insns = Ops(big).def_cfa(7, 8).offset(16, 1).same_value(3).v;
  auto m1 = b.cie(c1);
  CieSpec c2;
  c2.version = 3;
  c2.aug = eh ? "zRS" : "";
  c2.aug_data = eh ? std::vector<uint8_t>{0x03} : std::vector<uint8_t>{};
  c2.caf = 4;
  c2.insns = Ops(big).def_cfa_sf(31, 0).v;
  auto m2 = b.cie(c2);
  Ops a(big);
  a.adv(1).def_cfa_offset(16).offset(6, 2).adv1(3).def_cfa_register(6).remember()
      .adv2(4).def_cfa(7, 8).restore(6).restore_state().adv4(2).offset_ext(20, 3)
      .offset_ext_sf(21, -2).val_offset(22, 1).val_offset_sf(23, -1).neg_offset_ext(24, 2)
      .undefined(25).same_value(26).reg(27, 28).restore_ext(27).args_size(32).nop();
  std::vector<uint8_t> lsda = eh ? std::vector<uint8_t>{1, 2, 3, 4} : std::vector<uint8_t>{};
  b.fde(F(m1.rec, 0x401000, 0x80).encoding(0x1b).has_z(eh).augmentation(lsda).ops(a.v));
  Ops x(big);
  x.adv(1).def_cfa_expr({0x77, 0x08, 0x06}).expr(16, {0x77, 0x00}).val_expr(3, {0x92, 0x07, 0x10})
      .adv(1).def_cfa(31, 16).def_cfa_offset_sf(-3).negate_ra().remember().negate_ra().adv(1)
      .restore_state();
  b.fde(F(m2.rec, 0x402000, 0x40).encoding(0x03).has_z(eh).ops(x.v));
  if (eh) b.terminator();
  return b;
}

void check_damaged(const Builder &base) {
  Section s = base.section();
  Result whole = parse(s);
  ASSERT_TRUE(whole.ok) << whole.err.name << " at " << whole.err.offset << ": " << whole.err.detail;
  ASSERT_EQ(whole.fdes.size(), 2u);
  const std::set<std::string> names(std::begin(kErrorNames), std::end(kErrorNames));
  auto check = [&](const std::vector<uint8_t> &bytes, const char *what, size_t i) {
    // An exactly-sized heap copy: ASan sees any read past the end.
    std::unique_ptr<uint8_t[]> copy(new uint8_t[bytes.size() ? bytes.size() : 1]);
    if (!bytes.empty()) std::memcpy(copy.get(), bytes.data(), bytes.size());
    Section d = s;
    d.bytes = copy.get();
    d.size = bytes.size();
    std::vector<Fde> fdes;
    Error err;
    if (read_cfi(d, fdes, err)) {
      for (const Fde &f : fdes) {  // rows still cover [start, end) without gaps
        uint64_t at = f.start;
        for (const Row &r : f.rows) {
          ASSERT_EQ(r.start, at) << what << " " << i;
          ASSERT_LT(r.start, r.end) << what << " " << i;
          at = r.end;
        }
        if (!f.rows.empty()) {
          ASSERT_EQ(at, f.end) << what << " " << i;
        }
      }
      return;
    }
    ASSERT_TRUE(names.count(err.name)) << what << " " << i << ": '" << err.name << "'";
    ASSERT_LE(err.offset, bytes.size()) << what << " " << i << ": " << err.name;
  };
  const std::vector<uint8_t> &v = base.b.v;
  for (size_t n = 0; n < v.size(); n++) check(std::vector<uint8_t>(v.begin(), v.begin() + n), "cut at", n);
  for (size_t i = 0; i < v.size(); i++) {
    for (uint8_t flip : {0xff, 0x01, 0x80, 0x40}) {
      std::vector<uint8_t> d = v;
      d[i] ^= flip;
      check(d, "flipped byte", i);
    }
  }
}

TEST(DwarfCfi, DamagedSectionsGiveRowsOrANamedError) {
  check_damaged(rich_section(true, false, false, kEmAarch64));
  check_damaged(rich_section(true, true, true, kEmAarch64));
  check_damaged(rich_section(false, true, false, kEmAarch64));
  check_damaged(rich_section(false, false, true, kEmAarch64));
}

// ---- simple_expression ----

TEST(DwarfCfi, SimpleExpression) {
  uint32_t reg;
  int64_t off;
  bool deref;
  ASSERT_TRUE(simple_expression({0x77, 0x08}, reg, off, deref));  // DW_OP_breg7 8
  EXPECT_EQ(reg, 7u);
  EXPECT_EQ(off, 8);
  EXPECT_FALSE(deref);
  ASSERT_TRUE(simple_expression({0x8f, 0x70, 0x06}, reg, off, deref));  // breg31 -16; deref
  EXPECT_EQ(reg, 31u);
  EXPECT_EQ(off, -16);
  EXPECT_TRUE(deref);
  ASSERT_TRUE(simple_expression({0x70, 0x00}, reg, off, deref));
  EXPECT_EQ(reg, 0u);
  ASSERT_TRUE(simple_expression({0x92, 0x90, 0x01, 0x7f, 0x06}, reg, off, deref));  // bregx 144 -1
  EXPECT_EQ(reg, 144u);
  EXPECT_EQ(off, -1);
  EXPECT_TRUE(deref);

  std::vector<std::vector<uint8_t>> refused = {
      {},                        // nothing
      {0x77},                    // no offset
      {0x77, 0x80},              // offset cut short
      {0x77, 0x08, 0x06, 0x06},  // two derefs
      {0x77, 0x08, 0x23, 0x08},  // plus_uconst after
      {0x91, 0x08},              // fbreg
      {0x6f, 0x08},              // reg31, not breg
      {0x90, 0x08},              // regx
      {0x06},                    // deref alone
      {0x92, 0x88, 0x40, 0x00},  // bregx 8200: no such register
      {0x92},                    // bregx without operands
  };
  for (const auto &e : refused) EXPECT_FALSE(simple_expression(e, reg, off, deref)) << e.size();
}

}  // namespace
