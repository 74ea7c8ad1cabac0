// The SFrame writer (tools/sframe_encode): exact bytes for small tables, round trips through the
// decoder for every version and ABI (hand-picked rows, random rows, rows decoded from random
// tables), and every refusal. Hermetic: no objdump, no assembler.
#include <gtest/gtest.h>

#include <stdint.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "sfu/sframe.h"
#include "sfu_autoconf.h"
#include "sframe/table.h"
#include "tools/sframe/encode.h"
#include "support/random_tables.h"
#include "support/sframe_builder.h"

using sfu::tools::encode_refusal;
using sfu::tools::encode_sframe;
using sfu::tools::EncodeFunction;
using sfu::tools::EncodeOptions;

// Exact comparison and printing for gtest (found by ADL: sfu_rule is a global C struct).
static bool operator==(const sfu_rule &a, const sfu_rule &b) {
  return a.kind == b.kind && a.reg == b.reg && a.offset == b.offset;
}
static std::ostream &operator<<(std::ostream &os, const sfu_rule &r) {
  return os << "{kind " << int(r.kind) << " reg " << int(r.reg) << " off " << r.offset << "}";
}

namespace {

// ---- Rows in the decoder's terms -------------------------------------------------------------

sfu_rule rule(sfu_rule_kind kind, uint8_t reg = 0, int32_t offset = 0) {
  sfu_rule r{};
  r.kind = uint8_t(kind);
  r.reg = reg;
  r.offset = offset;
  return r;
}
sfu_rule unchanged() { return rule(SFU_RULE_UNCHANGED); }
sfu_rule undefined() { return rule(SFU_RULE_UNDEFINED); }
sfu_rule at_cfa(int32_t off) { return rule(SFU_RULE_AT_CFA, 0, off); }
sfu_rule cfa_plus(int32_t off) { return rule(SFU_RULE_CFA_PLUS, 0, off); }
sfu_rule reg(uint8_t r, int32_t off) { return rule(SFU_RULE_REGISTER, r, off); }
sfu_rule at_reg(uint8_t r, int32_t off) { return rule(SFU_RULE_AT_REGISTER, r, off); }

sfu_row row(uint32_t start, sfu_rule cfa, sfu_rule ra, sfu_rule fp, uint32_t flags = 0) {
  sfu_row r{};
  r.row_start = start;
  r.cfa = cfa;
  r.ra = ra;
  r.fp = fp;
  r.flags = flags;
  return r;
}
sfu_row outermost(uint32_t start) {
  return row(start, undefined(), undefined(), unchanged(), SFU_ROW_OUTERMOST);
}

EncodeOptions options(uint8_t version, uint8_t abi, uint64_t section_addr = 0x400000) {
  EncodeOptions o;
  o.version = version;
  o.abi = abi;
  o.section_addr = section_addr;
  return o;
}

EncodeFunction function(uint64_t start, uint32_t size, std::vector<sfu_row> rows) {
  EncodeFunction f;
  f.start = start;
  f.size = size;
  f.rows = std::move(rows);
  return f;
}

uint8_t sp(uint8_t abi) { return sfu::sframe::abi_sp_reg(abi); }
uint8_t fpr(uint8_t abi) { return sfu::sframe::abi_fp_reg(abi); }

struct Combo {
  uint8_t version, abi;
};
// Every version and ABI the format has (V1 has no s390x).
const Combo kCombos[] = {
    {1, SFU_ABI_AMD64_LE}, {1, SFU_ABI_AARCH64_LE}, {1, SFU_ABI_AARCH64_BE},
    {2, SFU_ABI_AMD64_LE}, {2, SFU_ABI_AARCH64_LE}, {2, SFU_ABI_AARCH64_BE}, {2, SFU_ABI_S390X_BE},
    {3, SFU_ABI_AMD64_LE}, {3, SFU_ABI_AARCH64_LE}, {3, SFU_ABI_AARCH64_BE}, {3, SFU_ABI_S390X_BE},
};
std::string name(const Combo &c) { return "V" + std::to_string(c.version) + " abi " + std::to_string(c.abi); }

std::vector<uint8_t> hex(const char *s) {
  std::vector<uint8_t> out;
  for (const char *p = s; *p;) {
    if (*p == ' ' || *p == '\n') {
      p++;
      continue;
    }
    out.push_back(uint8_t(std::stoul(std::string(p, 2), nullptr, 16)));
    p += 2;
  }
  return out;
}

std::vector<uint8_t> encode_ok(const EncodeOptions &opt, const std::vector<EncodeFunction> &fns) {
  std::vector<uint8_t> out;
  std::string error;
  EXPECT_TRUE(encode_sframe(opt, fns, out, error)) << error;
  return out;
}

// ---- Reading back ----------------------------------------------------------------------------

// What the decoder reports for a rule: reg only for the register kinds, no offset for
// UNCHANGED/UNDEFINED.
sfu_rule canonical(sfu_rule r) {
  if (r.kind != SFU_RULE_REGISTER && r.kind != SFU_RULE_AT_REGISTER) r.reg = 0;
  if (r.kind == SFU_RULE_UNCHANGED || r.kind == SFU_RULE_UNDEFINED) r.offset = 0;
  return r;
}

// What a round trip saw, so a test can tell its rows reached every corner of the format.
struct Seen {
  std::set<uint8_t> fre_types, word_sizes;
  size_t flex_fdes = 0, default_fdes = 0, outermost = 0, signed_ra = 0, key_b = 0, signal = 0;
  size_t v2_s390x_registers = 0, padded = 0, ra_at_cfa_zero = 0, rows = 0;
};

int size_code(int32_t v) { return v >= -128 && v <= 127 ? 0 : v >= -32768 && v <= 32767 ? 1 : 2; }

// Whether the default form of AMD64 or AArch64 can say a row the writer accepts, from the
// format alone: the outermost row, or CFA = SP or FP + offset with RA and FP each unchanged or
// at CFA+offset. AMD64 has no RA word (the header fixes it at CFA-8). AArch64 has no RA padding
// word: word 2 is always the RA (CFA+0 included), so FP saved with the RA unchanged cannot be
// said (1 or 3 words, the specification says; 2 is RA without FP).
bool default_form_says(uint8_t abi, const sfu_row &r) {
  if (r.flags & SFU_ROW_OUTERMOST) return true;
  if (r.cfa.kind != SFU_RULE_REGISTER || (r.cfa.reg != sp(abi) && r.cfa.reg != fpr(abi))) return false;
  bool ra_at_cfa = r.ra.kind == SFU_RULE_AT_CFA;
  bool fp = r.fp.kind == SFU_RULE_UNCHANGED || r.fp.kind == SFU_RULE_AT_CFA;
  bool ra = abi == SFU_ABI_AMD64_LE ? ra_at_cfa && r.ra.offset == -8
                                    : ra_at_cfa || (r.ra.kind == SFU_RULE_UNCHANGED && r.fp.kind == SFU_RULE_UNCHANGED);
  return ra && fp;
}

// Walks the raw encoding with the decoder's own readers: the FRE type and word sizes are the
// smallest that hold the values, flex rows write base bit 0, outermost rows info byte 0, and
// (AMD64/AArch64, where V2 and V3 default forms agree) V3 uses flex exactly when needed.
void check_encoding(const sfu_table &t, const EncodeOptions &opt, const std::vector<EncodeFunction> &fns,
                    Seen &seen) {
  using namespace sfu::sframe;
  std::vector<const EncodeFunction *> sorted;
  for (const EncodeFunction &f : fns) sorted.push_back(&f);
  std::sort(sorted.begin(), sorted.end(), [](auto *a, auto *b) { return a->start < b->start; });
  ASSERT_EQ(t.num_fdes, sorted.size());
  EXPECT_EQ(t.flags, SFU_F_FDE_SORTED | (opt.version >= 2 ? SFU_F_FDE_FUNC_START_PCREL : 0));
  EXPECT_EQ(t.fixed_ra_offset, opt.abi == SFU_ABI_AMD64_LE ? -8 : 0);
  EXPECT_EQ(t.fixed_fp_offset, 0);
  for (uint32_t i = 0; i < t.num_fdes; i++) {
    const EncodeFunction &f = *sorted[i];
    Fde fde;
    ASSERT_EQ(read_fde(t, i, fde), SFU_OK);
    EXPECT_EQ(fde.start, f.start);
    EXPECT_EQ(fde.size, f.size);
    EXPECT_EQ(fde.num_fres, f.rows.size());
    EXPECT_FALSE(fde.pcmask());
    EXPECT_EQ(fde.rep_size, 0);
    uint32_t max_start = 0;
    for (const sfu_row &r : f.rows) max_start = std::max(max_start, r.row_start);
    EXPECT_EQ(fde.fre_type(), max_start <= 0xff ? 0 : max_start <= 0xffff ? 1 : 2);
    seen.fre_types.insert(fde.fre_type());
    (fde.flex() ? seen.flex_fdes : seen.default_fdes)++;
    if (fde_pauth_key_b(fde.info)) seen.key_b++;
    if (opt.version == 3 && fde_signal(fde.info)) seen.signal++;
    if (opt.version == 3 && opt.abi != SFU_ABI_S390X_BE) {
      bool needs_flex = false;
      for (const sfu_row &r : f.rows) needs_flex |= !default_form_says(opt.abi, r);
      EXPECT_EQ(fde.flex(), needs_flex) << std::hex << f.start;
    }
    uint32_t at = fde.fres_at;
    for (const sfu_row &r : f.rows) {
      Fre fre;
      ASSERT_EQ(read_fre(t, fde, at, fre), SFU_OK);
      at = fre.end;
      EXPECT_EQ(fre.start, r.row_start);
      if (r.flags & SFU_ROW_OUTERMOST) {
        EXPECT_EQ(fre.info, (r.flags & SFU_ROW_RA_SIGNED) ? 0x80 : 0);
        seen.outermost++;
        continue;
      }
      int code = 0;
      for (uint32_t k = 0; k < fre.count; k++) code = std::max(code, size_code(fre.word(k)));
      EXPECT_EQ(fre.word_size, 1 << code) << std::hex << f.start << " row " << r.row_start;
      seen.word_sizes.insert(fre.word_size);
      if (fde.flex()) {
        EXPECT_FALSE(fre_base_sp(fre.info));
      }
      if (fre_ra_signed(fre.info)) seen.signed_ra++;
      bool padded =
          fde.flex() ? fre.count % 2 == 1 : opt.abi == SFU_ABI_S390X_BE && fre.count == 3 && fre.raw[1] == 0;
      if (padded) seen.padded++;
      // A default-form RA word 0 on AArch64 is RA at CFA+0, never padding: the row said so.
      if (!fde.flex() && sfu::sframe::abi_aarch64(opt.abi) && fre.count >= 2 && fre.raw[1] == 0) {
        EXPECT_EQ(r.ra.kind, SFU_RULE_AT_CFA) << std::hex << f.start << " row " << r.row_start;
        EXPECT_EQ(r.ra.offset, 0);
        seen.ra_at_cfa_zero++;
      }
      if (!fde.flex() && opt.abi == SFU_ABI_S390X_BE && opt.version == 2)
        for (uint32_t k = 1; k < fre.count; k++) seen.v2_s390x_registers += fre.word(k) & 1;
    }
  }
}

// Encodes fns, opens and validates the table, then asks for the row at every row start and at
// the last byte each row covers: the same rules and flags must come back.
Seen round_trip(const EncodeOptions &opt, const std::vector<EncodeFunction> &fns) {
  Seen seen;
  std::vector<uint8_t> bytes;
  std::string error;
  EXPECT_TRUE(encode_sframe(opt, fns, bytes, error)) << error;
  if (bytes.empty()) return seen;
  sfu_table_desc d{};
  d.section = bytes.data();
  d.size = bytes.size();
  d.section_addr = opt.section_addr;
  sfu_table t;
  EXPECT_EQ(sfu_table_init(&t, &d), SFU_OK);
  EXPECT_EQ(sfu_table_validate(&t), SFU_OK);
  if (t.ready != 2) return seen;
  check_encoding(t, opt, fns, seen);

  bool aarch64 = sfu::sframe::abi_aarch64(opt.abi);
  for (const EncodeFunction &f : fns) {
    if (f.rows.empty() && f.size > 0) {
      sfu_row r;
      EXPECT_EQ(sfu_table_find(&t, f.start, &r), SFU_E_NO_ROW);
    }
    for (size_t i = 0; i < f.rows.size(); i++) {
      const sfu_row &want = f.rows[i];
      uint32_t end = i + 1 < f.rows.size() ? f.rows[i + 1].row_start : f.size;
      for (uint64_t pc : {f.start + want.row_start, f.start + end - 1}) {
        sfu_row got{};
        EXPECT_EQ(sfu_table_find(&t, pc, &got), SFU_OK) << std::hex << pc;
        seen.rows++;
        EXPECT_EQ(got.func_start, f.start);
        EXPECT_EQ(got.func_size, f.size);
        EXPECT_EQ(got.row_start, want.row_start) << std::hex << pc;
        EXPECT_EQ(got.cfa, canonical(want.cfa)) << std::hex << pc;
        EXPECT_EQ(got.ra, canonical(want.ra)) << std::hex << pc;
        EXPECT_EQ(got.fp, canonical(want.fp)) << std::hex << pc;
        uint32_t mine = SFU_ROW_RA_SIGNED | SFU_ROW_OUTERMOST;
        EXPECT_EQ(got.flags & mine, want.flags & mine) << std::hex << pc;
        EXPECT_EQ(bool(got.flags & SFU_ROW_SIGNAL_FRAME), f.signal) << std::hex << pc;
        EXPECT_EQ(bool(got.flags & SFU_ROW_PAUTH_KEY_B), aarch64 && f.pauth_key_b) << std::hex << pc;
        EXPECT_FALSE(got.flags & SFU_ROW_PCMASK);
      }
    }
  }
  return seen;
}

// ---- Exact bytes -----------------------------------------------------------------------------

TEST(Encode, V3FlexMatchesTheCheckedExample) {
  // x86_64, from the reference: data `39 10 00 02 f0` = CFA rsp+16, RA padding, FP loaded from
  // CFA-16. That row alone fits the default form; the second row (CFA from r10) makes the
  // function flexible, so the first is written as in the example.
  auto f =
      function(0x401000, 0x20,
               {row(0, reg(7, 16), at_cfa(-8), at_cfa(-16)), row(4, reg(10, 8), at_cfa(-8), unchanged())});
  std::vector<uint8_t> want =
      hex("e2de 03 05 03 00 f8 00"  // magic, V3, sorted|pcrel, AMD64, fixed FP 0, fixed RA -8, no aux
          "01000000 02000000 10000000 00000000 10000000"  // 1 FDE, 2 FREs, 16 bytes, fdeoff 0, freoff 16
          "e40f000000000000 20000000 00000000"            // 0x401000 - (0x400000 + 28); size; chain at 0
          "0200 00 01 00"                                 // 2 rows, ADDR1, flex, rep_size 0
          "00 0a 39 10 00 02 f0"                          // row 0: 5 one-byte words, base bit 0
          "04 04 51 08");                                 // row 1: r10 (10 << 3 | 1) + 8
  EXPECT_EQ(encode_ok(options(3, SFU_ABI_AMD64_LE, 0x400000), {f}), want);
}

TEST(Encode, V2Amd64BytesFromTheSpec) {
  // Two functions given out of order. A: push %rbp; mov %rsp,%rbp. B: 0x300 bytes, a 2-byte
  // CFA offset, a row past 0xff (ADDR2 starts).
  auto a = function(0x1000, 0x10,
                    {row(0, reg(7, 8), at_cfa(-8), unchanged()), row(1, reg(7, 16), at_cfa(-8), at_cfa(-16)),
                     row(4, reg(6, 16), at_cfa(-8), at_cfa(-16))});
  auto b = function(
      0x1100, 0x300,
      {row(0, reg(7, 200), at_cfa(-8), unchanged()), row(0x120, reg(7, 8), at_cfa(-8), unchanged())});
  std::vector<uint8_t> want =
      hex("e2de 02 05 03 00 f8 00"
          "02000000 05000000 14000000 00000000 28000000"  // 2 FDEs, 5 FREs, 20 bytes, FREs at 40
          // A: 0x1000 - (0x800 + 28), size 0x10, chain 0, 3 rows, ADDR1, rep 0, padding
          "e4070000 10000000 00000000 03000000 00 00 0000"
          // B: 0x1100 - (0x800 + 48), size 0x300, chain 11, 2 rows, ADDR2
          "d0080000 00030000 0b000000 02000000 01 00 0000"
          "00 03 08"      // CFA = rsp + 8 (base SP, 1 word)
          "01 05 10 f0"   // CFA = rsp + 16, FP at CFA-16
          "04 04 10 f0"   // CFA = rbp + 16 (base bit 0)
          "0000 23 c800"  // 2-byte word: size code 1
          "2001 03 08");
  EXPECT_EQ(encode_ok(options(2, SFU_ABI_AMD64_LE, 0x800), {b, a}), want);
}

TEST(Encode, V2S390xIsBigEndianWithScaledCfaAndRegisterWords) {
  // CFA = r15 + 160 (word 0), RA in f8 (DWARF 24: word 24 << 1 | 1), FP at CFA-72.
  auto f = function(0x2000, 0x100, {row(0, reg(15, 160), reg(24, 0), at_cfa(-72))});
  std::vector<uint8_t> want =
      hex("dee2 02 05 04 00 00 00"
          "00000001 00000001 00000005 00000000 00000014"
          "00000fe4 00000100 00000000 00000001 00 00 0000"
          "00 07 00 31 b8");
  EXPECT_EQ(encode_ok(options(2, SFU_ABI_S390X_BE, 0x1000), {f}), want);
}

TEST(Encode, V1Aarch64CountsStartsFromTheSectionAndMarksTheBKey) {
  auto f = function(0x10000, 0x40,
                    {row(0, reg(31, 0), unchanged(), unchanged(), SFU_ROW_RA_SIGNED),
                     row(4, reg(31, 16), at_cfa(-8), at_cfa(-16), SFU_ROW_RA_SIGNED)});
  f.pauth_key_b = true;
  std::vector<uint8_t> want =
      hex("e2de 01 01 02 00 00 00"  // V1: sorted only
          "01000000 02000000 08000000 00000000 11000000"
          "00800000 40000000 00000000 02000000 20"  // 0x10000 - 0x8000; info: B key
          "00 83 00"                                // signed, SP, 1 word
          "04 87 10 f8 f0");
  EXPECT_EQ(encode_ok(options(1, SFU_ABI_AARCH64_LE, 0x8000), {f}), want);
}

TEST(Encode, V3SignalOutermostAndFpWithoutRaOnAarch64BigEndian) {
  // FP saved, RA still in x30: AArch64's default form has no RA padding word (a 0 there is RA
  // at CFA+0), so the function is flexible: [x29 ctl, 16, RA padding 0, FP ctl (CFA, load), -16].
  // The control word 29 << 3 | 1 = 0xe9 needs 2-byte words to stay positive when sign-extended.
  auto f = function(0x3000, 0x10, {row(0, reg(29, 16), unchanged(), at_cfa(-16)), outermost(8)});
  f.signal = true;
  std::vector<uint8_t> want =
      hex("dee2 03 05 01 00 00 00"
          "00000001 00000002 00000013 00000000 00000010"
          "0000000000000fe4 00000010 00000000"
          "0002 80 01 00"                   // 2 rows, signal bit, flex FDE
          "00 2a 00e9 0010 0000 0002 fff0"  // base bit 0, 5 two-byte words
          "08 00");                         // outermost: info 0, no words
  EXPECT_EQ(encode_ok(options(3, SFU_ABI_AARCH64_BE, 0x2000), {f}), want);
}

TEST(Encode, Aarch64RaAtCfaZeroIsAWordNotPadding) {
  // V1 and V2 AArch64 read a 0 RA word as RA at CFA+0, so the default form says that rule.
  auto f = function(0x10000, 0x10, {row(0, reg(31, 16), at_cfa(0), at_cfa(-16))});
  std::vector<uint8_t> want =
      hex("e2de 01 01 02 00 00 00"
          "01000000 01000000 05000000 00000000 11000000"
          "00800000 10000000 00000000 01000000 00"
          "00 07 10 00 f0");  // SP, 3 words: CFA 16, RA at CFA+0, FP at CFA-16
  EXPECT_EQ(encode_ok(options(1, SFU_ABI_AARCH64_LE, 0x8000), {f}), want);
  round_trip(options(1, SFU_ABI_AARCH64_LE, 0x8000), {f});
}

TEST(Encode, S390xPaddingIsTheDefaultFormForFpWithoutRa) {
  // s390x alone defines the 0 RA word as "RA not saved": [cfa, 0, fp] in V2 and V3 alike.
  auto f = function(0x2000, 0x100, {row(0, reg(15, 160), unchanged(), at_cfa(-72))});
  for (uint8_t v : {2, 3}) {
    std::vector<uint8_t> bytes = encode_ok(options(v, SFU_ABI_S390X_BE, 0x1000), {f});
    std::vector<uint8_t> tail(bytes.end() - 5, bytes.end());
    EXPECT_EQ(tail, hex("00 07 00 00 b8")) << int(v);  // SP, 3 words: CFA 160, padding, FP -72
    round_trip(options(v, SFU_ABI_S390X_BE, 0x1000), {f});
  }
}

// The test builder's sample tables (written by hand from the spec) decoded, re-encoded: the same
// bytes, for every version and ABI. V2 with the PCREL flag, as this writer always sets it.
TEST(Encode, SampleTablesRebuildByteForByte) {
  for (const Combo &c : kCombos) {
    sfu::test::TableSpec spec = sfu::test::sample_table(c.version, c.abi);
    spec.flags = c.version == 1 ? 0x1 : 0x5;
    std::vector<uint8_t> bytes = sfu::test::build_section(spec);
    sfu_table_desc d{};
    d.section = bytes.data();
    d.size = bytes.size();
    d.section_addr = spec.section_addr;
    sfu_table t;
    ASSERT_EQ(sfu_table_init(&t, &d), SFU_OK) << name(c);
    std::vector<EncodeFunction> fns;
    for (const sfu::test::FdeSpec &fs : spec.fdes) {
      EncodeFunction f = function(fs.start, fs.size, {});
      for (const sfu::test::FreSpec &r : fs.fres) {
        sfu_row got;
        ASSERT_EQ(sfu_table_find(&t, fs.start + r.start, &got), SFU_OK);
        f.rows.push_back(got);
      }
      fns.push_back(f);
    }
    EXPECT_EQ(encode_ok(options(c.version, c.abi, spec.section_addr), fns), bytes) << name(c);
  }
}

// Row starts and words at the edges of each width: round_trip checks the smallest is chosen.
TEST(Encode, SmallestFreTypeAndWordSizeAtTheEdges) {
  for (const Combo &c : kCombos) {
    SCOPED_TRACE(name(c));
    EncodeOptions opt = options(c.version, c.abi);
    uint8_t s = sp(c.abi);
    bool s390x = c.abi == SFU_ABI_S390X_BE;
    auto cfa = [&](int32_t word) { return reg(s, s390x ? word * 8 + 160 : word); };
    sfu_rule ra = c.abi == SFU_ABI_AMD64_LE ? at_cfa(-8) : unchanged();
    std::vector<EncodeFunction> fns;
    uint64_t at = 0x401000;
    for (uint32_t last : {0xffu, 0x100u, 0xffffu, 0x10000u}) {
      fns.push_back(
          function(at, last + 1, {row(0, cfa(0), ra, unchanged()), row(last, cfa(1), ra, unchanged())}));
      at += last + 1;
    }
    std::vector<sfu_row> rows;
    uint32_t start = 0;
    for (int32_t word :
         {127, 128, -128, -129, 32767, 32768, -32768, -32769, INT32_MAX / 8 - 20, INT32_MIN / 8 + 20})
      rows.push_back(row(start++, cfa(word), ra, unchanged()));
    fns.push_back(function(at, start, rows));
    Seen seen = round_trip(opt, fns);
    EXPECT_EQ(seen.fre_types, (std::set<uint8_t>{0, 1, 2}));
    EXPECT_EQ(seen.word_sizes, (std::set<uint8_t>{1, 2, 4}));
  }
}

TEST(Encode, EmptyTableAndEmptyFunction) {
  for (const Combo &c : kCombos) {
    std::vector<uint8_t> bytes = encode_ok(options(c.version, c.abi), {});
    EXPECT_EQ(bytes.size(), 28u);
    round_trip(options(c.version, c.abi), {function(0x401000, 0x10, {})});
  }
}

TEST(Encode, V3UsesFlexOnlyForFunctionsThatNeedIt) {
  auto plain = function(0x401000, 0x10, {row(0, reg(7, 8), at_cfa(-8), unchanged())});
  auto flex =
      function(0x401010, 0x10,
               {row(0, reg(7, 8), at_cfa(-8), unchanged()), row(2, at_reg(7, 0), at_cfa(-8), unchanged())});
  std::vector<uint8_t> bytes = encode_ok(options(3, SFU_ABI_AMD64_LE), {plain, flex});
  sfu_table_desc d{};
  d.section = bytes.data();
  d.size = bytes.size();
  d.section_addr = 0x400000;
  sfu_table t;
  ASSERT_EQ(sfu_table_init(&t, &d), SFU_OK);
  sfu_row r;
  ASSERT_EQ(sfu_table_find(&t, 0x401000, &r), SFU_OK);
  EXPECT_FALSE(r.flags & SFU_ROW_FLEX);
  ASSERT_EQ(sfu_table_find(&t, 0x401010, &r), SFU_OK);
  EXPECT_TRUE(r.flags & SFU_ROW_FLEX);
  EXPECT_TRUE(r.cfa == reg(7, 8));
  ASSERT_EQ(sfu_table_find(&t, 0x401012, &r), SFU_OK);
  EXPECT_TRUE(r.cfa == at_reg(7, 0));
}

// ---- Round trips over every rule kind --------------------------------------------------------

// Candidate rows for an ABI: every rule kind, offsets needing 1, 2 and 4 bytes (also after the
// s390x scaling), registers that are and are not SP/FP, signed and unsigned. Those the version
// refuses are dropped; the rest are packed into functions with rows 1, 0x30 and 0x12000 bytes
// apart (ADDR1, ADDR2, ADDR4 starts).
std::vector<sfu_row> candidate_rows(const EncodeOptions &opt) {
  uint8_t s = sp(opt.abi), f = fpr(opt.abi);
  std::vector<sfu_rule> cfas = {reg(s, 16),        reg(s, 8),      reg(f, 16),       reg(s, 160),
                                reg(s, 0),         reg(s, 4000),   reg(s, 0x100000), reg(s, -8),
                                reg(s, 1760),      reg(f, -40000), reg(10, 32),      at_reg(6, 16),
                                at_reg(s, 0x7ff8), reg(s, 12),     unchanged()};
  std::vector<sfu_rule> ras = {unchanged(),      at_cfa(-8),     at_cfa(-16), at_cfa(0),
                               at_cfa(-0x30000), at_cfa(-7),     reg(30, 0),  reg(24, 0),
                               reg(200, 8),      at_reg(29, -8), cfa_plus(8)};
  std::vector<sfu_rule> fps = {unchanged(), at_cfa(-16), at_cfa(0),     at_cfa(-300),   at_cfa(-9),
                               reg(17, 0),  reg(3, 4),   cfa_plus(-16), at_reg(7, -24), at_cfa(0x12345678)};
  std::vector<sfu_row> out;
  for (const sfu_rule &c : cfas)
    for (const sfu_rule &ra : ras)
      for (const sfu_rule &fp : fps)
        for (uint32_t flags : {0u, unsigned(SFU_ROW_RA_SIGNED)}) {
          sfu_row r = row(0, c, ra, fp, flags);
          if (!encode_refusal(opt, r, false)) out.push_back(r);
        }
  for (uint32_t flags : {0u, unsigned(SFU_ROW_RA_SIGNED)}) {
    sfu_row o = outermost(0);
    o.flags |= flags;
    if (!encode_refusal(opt, o, false)) out.push_back(o);
  }
  return out;
}

// Packs rows into functions of up to 7 rows (an outermost row tucked into every fifth),
// alternating row spacings, B key and signal bits where the version and ABI have them.
std::vector<EncodeFunction> pack(const EncodeOptions &opt, const std::vector<sfu_row> &rows, uint64_t &at) {
  static const uint32_t spacing[] = {1, 0x30, 0x12000};
  std::vector<EncodeFunction> fns;
  for (size_t i = 0, n = 0; i < rows.size(); n++) {
    uint32_t step = spacing[n % 3];
    EncodeFunction f = function(at, 0, {});
    f.pauth_key_b = sfu::sframe::abi_aarch64(opt.abi) && n % 2 == 1;
    f.signal = opt.version == 3 && n % 4 == 3;
    for (size_t k = 0; k < 7 && i < rows.size(); k++, i++) {
      sfu_row r = rows[i];
      r.row_start = uint32_t(f.rows.size()) * step;
      f.rows.push_back(r);
    }
    if (opt.version >= 2 && n % 5 == 0) {
      f.rows.push_back(outermost(uint32_t(f.rows.size()) * step));
    }
    f.size = uint32_t(f.rows.size()) * step + 3;
    at += f.size + (n % 2) * 8;
    fns.push_back(f);
  }
  return fns;
}

TEST(Encode, RoundTripEveryRuleKindEveryVersionAndAbi) {
  for (const Combo &c : kCombos) {
    SCOPED_TRACE(name(c));
    EncodeOptions opt = options(c.version, c.abi, 0x7f0000);
    std::vector<sfu_row> rows = candidate_rows(opt);
    // V3: rows the default form has in functions of their own, so both FDE types turn up.
    std::vector<sfu_row> plain, flex;
    for (const sfu_row &r : rows) {
      bool needs_flex = c.version == 3 && (encode_refusal(options(2, c.abi), r, false) ||
                                           r.ra.kind == SFU_RULE_REGISTER || r.fp.kind == SFU_RULE_REGISTER);
      (needs_flex ? flex : plain).push_back(r);
    }
    uint64_t at = 0x800000;
    std::vector<EncodeFunction> fns = pack(opt, plain, at);
    std::vector<EncodeFunction> more = pack(opt, flex, at);
    fns.insert(fns.end(), more.begin(), more.end());
    std::reverse(fns.begin(), fns.end());  // the writer sorts
    Seen seen = round_trip(opt, fns);

    bool aarch64 = c.abi == SFU_ABI_AARCH64_LE || c.abi == SFU_ABI_AARCH64_BE;
    EXPECT_EQ(seen.fre_types, (std::set<uint8_t>{0, 1, 2}));
    EXPECT_EQ(seen.word_sizes, (std::set<uint8_t>{1, 2, 4}));
    EXPECT_GT(seen.default_fdes, 0u);
    EXPECT_EQ(seen.flex_fdes > 0, c.version == 3);
    EXPECT_EQ(seen.outermost > 0, c.version >= 2);
    EXPECT_EQ(seen.signed_ra > 0, aarch64);
    EXPECT_EQ(seen.key_b > 0, aarch64);
    EXPECT_EQ(seen.signal > 0, c.version == 3);
    // Padding: s390x's default form, and V3 flex rows (FP saved, RA implied) on every ABI.
    EXPECT_EQ(seen.padded > 0, c.abi == SFU_ABI_S390X_BE || c.version == 3);
    EXPECT_EQ(seen.ra_at_cfa_zero > 0, aarch64);
    EXPECT_EQ(seen.v2_s390x_registers > 0, c.abi == SFU_ABI_S390X_BE && c.version == 2);
  }
}

// ---- Random round trips ----------------------------------------------------------------------

int32_t random_offset(sfu::test::Rng &rng) {
  switch (rng.below(5)) {
    case 0:
      return 0;
    case 1:
      return int32_t(rng.range(-128, 127));
    case 2:
      return int32_t(rng.range(-40000, 40000));
    case 3:
      return int32_t(rng.range(INT32_MIN, INT32_MAX));
    default:
      return int32_t(8 * rng.range(-300, 300));
  }
}

sfu_rule random_rule(sfu::test::Rng &rng, uint8_t abi, bool cfa) {
  uint8_t r = rng.one_in(3) ? sp(abi) : rng.one_in(2) ? fpr(abi) : uint8_t(rng.below(256));
  int32_t off = random_offset(rng);
  if (cfa && abi == SFU_ABI_S390X_BE && !rng.one_in(10)) off = int32_t(off & ~7);
  if (cfa && !rng.one_in(12)) return rng.one_in(4) ? at_reg(r, off) : reg(r, off);
  switch (rng.below(12)) {
    case 0:
    case 1:
    case 2:
      return unchanged();
    case 3:
    case 4:
    case 5:
      return at_cfa(off);
    case 6:
      return cfa_plus(off);
    case 7:
      return reg(r, rng.one_in(2) ? 0 : off);
    case 8:
      return at_reg(r, off);
    case 9:
      return undefined();
    case 10:
      return rule(sfu_rule_kind(rng.below(7)), r, off);  // sometimes not a kind at all
    default:
      return abi == SFU_ABI_AMD64_LE ? at_cfa(-8) : unchanged();
  }
}

sfu_row random_row(sfu::test::Rng &rng, uint8_t abi) {
  sfu_row r = rng.one_in(15) ? outermost(0)
                             : row(0, random_rule(rng, abi, true), random_rule(rng, abi, false),
                                   random_rule(rng, abi, false));
  if (rng.one_in(4)) r.flags |= SFU_ROW_RA_SIGNED;
  if (rng.one_in(30)) r.flags |= SFU_ROW_OUTERMOST;  // usually malformed: refused
  return r;
}

TEST(Encode, RandomRoundTrip) {
  sfu::test::Rng rng(0x5f3a11e5);
  size_t functions = 0, rows = 0, refused = 0;
  for (const Combo &c : kCombos) {
    SCOPED_TRACE(name(c));
    EncodeOptions opt = options(c.version, c.abi, 0x10000000 + rng.below(0x1000) * 4);
    bool aarch64 = c.abi == SFU_ABI_AARCH64_LE || c.abi == SFU_ABI_AARCH64_BE;
    std::vector<EncodeFunction> fns;
    uint64_t at = opt.section_addr - 0x100000 + rng.below(0x1000);
    for (int n = 0; n < 300; n++) {
      EncodeFunction f = function(at, 0, {});
      f.signal = c.version == 3 && rng.one_in(6);
      f.pauth_key_b = aarch64 && rng.one_in(3);
      size_t nrows = rng.one_in(20) ? 0 : 1 + rng.below(12);
      uint64_t spread = rng.one_in(3) ? 4 : rng.one_in(2) ? 400 : 70000;
      uint32_t start = 0;
      while (f.rows.size() < nrows) {
        sfu_row r = random_row(rng, c.abi);
        if (const char *why = encode_refusal(opt, r, f.signal)) {
          // A refused row makes the whole table refused, naming the reason.
          refused++;
          std::vector<uint8_t> out;
          std::string error;
          EncodeFunction alone = function(0x10000000, 16, {r});
          alone.signal = f.signal;
          EXPECT_FALSE(encode_sframe(opt, {alone}, out, error));
          EXPECT_NE(error.find(why), std::string::npos) << error;
          continue;
        }
        r.row_start = start;
        f.rows.push_back(r);
        start += uint32_t(1 + rng.below(spread));
      }
      f.size = start + uint32_t(rng.below(3));
      if (f.rows.empty() && rng.one_in(2)) f.size = 0;
      at += f.size + (rng.one_in(2) ? 0 : rng.below(64)) + (f.size == 0);
      rows += f.rows.size();
      fns.push_back(f);
    }
    // Any order in, sorted out.
    for (size_t i = fns.size(); i > 1; i--) std::swap(fns[i - 1], fns[rng.below(i)]);
    functions += fns.size();
    round_trip(opt, fns);
  }
  EXPECT_EQ(functions, 3300u);
  EXPECT_GT(rows, 15000u);
  EXPECT_GT(refused, 1000u);
}

// Every row the decoder reads out of a random valid table (tests/support/random_tables), written
// again in the same version and ABI: the writer must accept it and the decoder give it back.
TEST(Encode, RowsDecodedFromRandomTablesAreWrittenAgain) {
  size_t functions = 0, flex = 0;
  for (uint64_t seed = 1; seed <= 600; seed++) {
    sfu::test::Rng rng(seed);
    sfu::test::GenTable g = sfu::test::generate(rng);
    std::vector<uint8_t> bytes = sfu::test::encode(g, rng);
    sfu_table_desc d{};
    d.section = bytes.data();
    d.size = bytes.size();
    d.section_addr = g.sec_addr;
    sfu_table t;
    ASSERT_EQ(sfu_table_init(&t, &d), SFU_OK) << seed;
    EncodeOptions opt = options(g.version, g.abi, g.sec_addr + 0x40);
    std::vector<EncodeFunction> fns;
    for (const sfu::test::GenFunc &gf : g.funcs) {
      // Only what this writer makes: no PCMASK, rows starting at 0 and inside the function.
      bool usable = !gf.pcmask && (gf.rows.empty() || gf.rows[0].start == 0);
      for (const sfu::test::GenRow &r : gf.rows) usable &= r.start < gf.size;
      if (!usable) continue;
      EncodeFunction f = function(gf.start, gf.size, {});
      f.signal = gf.signal;
      f.pauth_key_b = gf.key_b;
      bool fixed_fp_only = false;
      for (const sfu::test::GenRow &r : gf.rows) {
        sfu_row got;
        ASSERT_EQ(sfu_table_find(&t, gf.start + r.start, &got), SFU_OK) << seed;
        got.flags &= SFU_ROW_RA_SIGNED | SFU_ROW_OUTERMOST;
        // V1/V2 AArch64 rows have FP saved with the RA in x30 only through the header's fixed
        // FP offset, which this writer never sets; without it they have no form (no padding).
        if (sfu::sframe::abi_aarch64(g.abi) && g.version < 3 && got.ra.kind == SFU_RULE_UNCHANGED &&
            got.fp.kind != SFU_RULE_UNCHANGED) {
          EXPECT_NE(t.fixed_fp_offset, 0) << seed;
          EXPECT_STREQ(encode_refusal(opt, got, f.signal), "FP saved without RA needs V3 on AArch64");
          fixed_fp_only = true;
          break;
        }
        const char *why = encode_refusal(opt, got, f.signal);
        EXPECT_EQ(why, nullptr) << "seed " << seed << ": " << (why ? why : "");
        f.rows.push_back(got);
      }
      if (fixed_fp_only) continue;
      flex += gf.flex;
      fns.push_back(f);
    }
    functions += fns.size();
    SCOPED_TRACE("seed " + std::to_string(seed));
    round_trip(opt, fns);
  }
  EXPECT_GT(functions, 1500u);
  EXPECT_GT(flex, 100u);
}

// ---- Refusals --------------------------------------------------------------------------------

struct Refusal {
  uint8_t version, abi;
  sfu_row row;
  bool signal;
  const char *phrase;
};

// One case per phrase encode_refusal has; each must also stop encode_sframe.
TEST(Encode, EveryRowRefusalIsNamed) {
  const uint8_t A = SFU_ABI_AMD64_LE, R = SFU_ABI_AARCH64_LE, S = SFU_ABI_S390X_BE;
  sfu_rule x86_ra = at_cfa(-8), sp7 = reg(7, 8), sp31 = reg(31, 16), sp15 = reg(15, 160);
  sfu_row bad_kind = row(0, sp7, x86_ra, unchanged());
  bad_kind.fp.kind = 9;
  sfu_row signed_outermost = outermost(0);
  signed_outermost.flags |= SFU_ROW_RA_SIGNED;
  const Refusal cases[] = {
      {0, A, row(0, sp7, x86_ra, unchanged()), false, "version must be 1, 2 or 3"},
      {4, A, row(0, sp7, x86_ra, unchanged()), false, "version must be 1, 2 or 3"},
      {2, 5, row(0, sp7, x86_ra, unchanged()), false, "unknown ABI"},
      {2, 0, row(0, sp7, x86_ra, unchanged()), false, "unknown ABI"},
      {1, S, row(0, sp15, unchanged(), unchanged()), false, "s390x needs V2 or V3"},
      {2, A, row(0, sp7, x86_ra, unchanged()), true, "signal frame needs V3"},
      {1, A, outermost(0), false, "outermost row needs V2"},
      {2, A, row(0, undefined(), x86_ra, unchanged(), SFU_ROW_OUTERMOST), false,
       "outermost row must have RA undefined"},
      {3, R, row(0, sp31, undefined(), unchanged(), SFU_ROW_OUTERMOST), false,
       "outermost row needs CFA undefined and FP unchanged"},
      {3, R, row(0, undefined(), undefined(), at_cfa(-16), SFU_ROW_OUTERMOST), false,
       "outermost row needs CFA undefined and FP unchanged"},
      {3, A, signed_outermost, false, "signed RA needs AArch64"},
      {3, A, row(0, sp7, undefined(), unchanged()), false, "RA undefined needs the outermost flag"},
      {3, A, row(0, sp7, x86_ra, unchanged(), SFU_ROW_RA_SIGNED), false, "signed RA needs AArch64"},
      {3, S, row(0, sp15, unchanged(), unchanged(), SFU_ROW_RA_SIGNED), false, "signed RA needs AArch64"},
      {3, A, bad_kind, false, "unknown rule kind"},
      {3, A, row(0, at_cfa(8), x86_ra, unchanged()), false, "CFA must be a register rule"},
      {3, R, row(0, unchanged(), unchanged(), unchanged()), false, "CFA must be a register rule"},
      {3, S, row(0, reg(15, 164), unchanged(), unchanged()), false, "s390x CFA offset not a multiple of 8"},
      {3, S, row(0, at_reg(3, 4), unchanged(), unchanged()), false, "s390x CFA offset not a multiple of 8"},
      {3, R, row(0, sp31, cfa_plus(8), unchanged()), false, "RA as CFA+offset cannot be written"},
      {3, A, row(0, sp7, unchanged(), unchanged()), false, "RA unchanged cannot be written on AMD64"},
      {3, A, row(0, sp7, x86_ra, undefined()), false, "FP undefined cannot be written"},
      {2, A, row(0, reg(10, 8), x86_ra, unchanged()), false, "CFA based on r10 needs V3"},
      {1, R, row(0, reg(255, 8), unchanged(), unchanged()), false, "CFA based on r255 needs V3"},
      {2, S, row(0, reg(14, 160), unchanged(), unchanged()), false, "CFA based on r14 needs V3"},
      {2, R, row(0, at_reg(31, 8), unchanged(), unchanged()), false, "CFA loaded from memory needs V3"},
      {2, A, row(0, sp7, at_cfa(-16), unchanged()), false, "RA on AMD64 must be at CFA-8"},
      {1, A, row(0, sp7, reg(16, 0), unchanged()), false, "RA on AMD64 must be at CFA-8"},
      {1, R, row(0, sp31, unchanged(), at_cfa(-16)), false, "FP saved without RA needs V3 on AArch64"},
      {2, R, row(0, sp31, unchanged(), at_cfa(-16)), false, "FP saved without RA needs V3 on AArch64"},
      {2, S, row(0, sp15, at_cfa(0), at_cfa(-72)), false, "RA at CFA+0 needs V3"},
      {2, S, row(0, sp15, at_cfa(-47), unchanged()), false, "odd RA offset on s390x V2 needs V3"},
      {2, R, row(0, sp31, reg(20, 0), unchanged()), false, "RA in a register needs V3 or s390x V2"},
      {2, S, row(0, sp15, reg(20, 8), unchanged()), false, "RA in a register plus offset needs V3"},
      {1, R, row(0, sp31, at_reg(29, 8), unchanged()), false, "RA loaded through a register needs V3"},
      {2, S, row(0, sp15, unchanged(), at_cfa(-71)), false, "odd FP offset on s390x V2 needs V3"},
      {2, A, row(0, sp7, x86_ra, reg(3, 0)), false, "FP in a register needs V3 or s390x V2"},
      {2, S, row(0, sp15, at_cfa(-48), reg(17, -8)), false, "FP in a register plus offset needs V3"},
      {1, R, row(0, sp31, at_cfa(-8), cfa_plus(-16)), false, "FP as CFA+offset needs V3"},
      {2, A, row(0, sp7, x86_ra, at_reg(6, 0)), false, "FP loaded through a register needs V3"},
  };
  for (const Refusal &c : cases) {
    SCOPED_TRACE(c.phrase);
    EncodeOptions opt = options(c.version, c.abi);
    const char *why = encode_refusal(opt, c.row, c.signal);
    ASSERT_NE(why, nullptr);
    EXPECT_STREQ(why, c.phrase);
    EncodeFunction f = function(0x401000, 0x10, {c.row});
    f.signal = c.signal;
    std::vector<uint8_t> out = {1, 2, 3};
    std::string error;
    EXPECT_FALSE(encode_sframe(opt, {f}, out, error));
    EXPECT_NE(error.find(c.phrase), std::string::npos) << error;
    EXPECT_EQ(out, (std::vector<uint8_t>{1, 2, 3}));  // untouched on failure
  }
}

// The same rows where the next version (or s390x V2) has a way to say them.
TEST(Encode, RefusedRowsFitWhereThePhraseSays) {
  const uint8_t A = SFU_ABI_AMD64_LE, R = SFU_ABI_AARCH64_LE, S = SFU_ABI_S390X_BE;
  struct Case {
    uint8_t version, abi;
    sfu_row row;
    bool signal;
  } cases[] = {
      {3, A, row(0, reg(7, 8), at_cfa(-8), unchanged()), true},
      {2, A, outermost(0), false},
      {3, A, row(0, reg(10, 8), at_cfa(-8), unchanged()), false},
      {3, R, row(0, at_reg(31, 8), unchanged(), unchanged()), false},
      {3, A, row(0, reg(7, 8), at_cfa(-16), unchanged()), false},
      {3, A, row(0, reg(7, 8), reg(16, 0), unchanged()), false},
      {3, R, row(0, reg(31, 16), unchanged(), at_cfa(-16)), false},
      {3, S, row(0, reg(15, 160), at_cfa(0), unchanged()), false},
      {3, S, row(0, reg(15, 160), at_cfa(-47), at_cfa(-71)), false},
      {2, S, row(0, reg(15, 160), reg(20, 0), reg(17, 0)), false},
      {3, S, row(0, reg(15, 160), reg(20, 8), reg(17, -8)), false},
      {3, R, row(0, reg(31, 16), at_reg(29, 8), at_reg(29, 0)), false},
      {3, R, row(0, reg(31, 16), at_cfa(-8), cfa_plus(-16)), false},
      {3, A, row(0, reg(7, 8), at_cfa(-8), reg(3, 0)), false},
  };
  for (const Case &c : cases) {
    EncodeOptions opt = options(c.version, c.abi);
    EXPECT_EQ(encode_refusal(opt, c.row, c.signal), nullptr);
    EncodeFunction f = function(0x401000, 0x10, {c.row});
    f.signal = c.signal;
    round_trip(opt, {f});
  }
}

std::string encode_error(const EncodeOptions &opt, const std::vector<EncodeFunction> &fns) {
  std::vector<uint8_t> out;
  std::string error;
  EXPECT_FALSE(encode_sframe(opt, fns, out, error));
  return error;
}

// Encodes and validates only: a lookup scans a function's rows, too slow for 64 Ki-row functions.
// Whether the encoding is sound: the section opens, validation checks every row (with a row cap
// above the function's, as CONFIG_SFU_MAX_FUNCTION_ROWS permits up to 65535, it accepts; with the
// default cap it must refuse by that name and nothing else), and the 65535th row is found.
bool validates(const EncodeOptions &opt, const std::vector<EncodeFunction> &fns) {
  std::vector<uint8_t> bytes = encode_ok(opt, fns);
  sfu_table_desc d{};
  d.section = bytes.data();
  d.size = bytes.size();
  d.section_addr = opt.section_addr;
  sfu_table t;
  if (sfu_table_open(&t, &d) != SFU_OK) return false;
  sfu_error v = sfu_table_validate(&t);
  if (fns[0].rows.size() > CONFIG_SFU_MAX_FUNCTION_ROWS) return v == SFU_E_TOO_MANY_ROWS;
  if (v != SFU_OK) return false;
  sfu_row r;
  return sfu_table_find(&t, fns[0].start + 65534, &r) == SFU_OK && r.row_start == 65534;
}

TEST(Encode, FunctionRefusals) {
  EncodeOptions v2 = options(2, SFU_ABI_AMD64_LE), v3 = options(3, SFU_ABI_AMD64_LE);
  sfu_row r0 = row(0, reg(7, 8), at_cfa(-8), unchanged());
  auto at = [&](uint32_t start) {
    sfu_row r = r0;
    r.row_start = start;
    return r;
  };
  auto has = [](const std::string &error, const char *phrase) {
    return error.find(phrase) != std::string::npos;
  };

  EXPECT_TRUE(has(encode_error(v2, {function(0x401000, 16, {at(1)})}), "first row not at offset 0"));
  EXPECT_TRUE(
      has(encode_error(v2, {function(0x401000, 16, {at(0), at(4), at(4)})}), "row starts not rising"));
  EXPECT_TRUE(
      has(encode_error(v2, {function(0x401000, 16, {at(0), at(8), at(2)})}), "row starts not rising"));
  EXPECT_TRUE(
      has(encode_error(v2, {function(0x401000, 16, {at(0), at(16)})}), "row starts past the function end"));
  EXPECT_TRUE(has(encode_error(v2, {function(0x401000, 0, {at(0)})}), "row starts past the function end"));
  EXPECT_TRUE(has(encode_error(v2, {function(0x401000, 16, {at(0)}), function(0x40100f, 16, {at(0)})}),
                  "overlaps the function before it"));
  EXPECT_TRUE(has(encode_error(v2, {function(0x401010, 0, {}), function(0x401010, 0, {})}),
                  "starts where another does"));
  EXPECT_TRUE(has(encode_error(v2, {function(0xfffffffffffffff0ull, 0x20, {at(0)})}),
                  "function wraps past the end of memory"));
  EncodeFunction signal = function(0x401000, 16, {});
  signal.signal = true;
  EXPECT_TRUE(has(encode_error(v2, {signal}), "signal frame needs V3"));
  EncodeFunction key_b = function(0x401000, 16, {at(0)});
  key_b.pauth_key_b = true;
  EXPECT_TRUE(has(encode_error(v3, {key_b}), "pauth B key needs AArch64"));
  EXPECT_TRUE(has(encode_error(options(7, SFU_ABI_AMD64_LE), {}), "version must be 1, 2 or 3"));

  // V1/V2 store a signed 32-bit start offset (V1 from the section, V2 from the field at
  // section + 28); V3 a 64-bit one. Each side's last reachable start, then one past it.
  const char *far = "start too far from the section for a 32-bit offset";
  for (auto [v, field] : {std::pair<uint8_t, uint64_t>{1, 0}, {2, 28}}) {
    SCOPED_TRACE(int(v));
    EncodeOptions at_0x1000 = options(v, SFU_ABI_AMD64_LE, 0x1000);
    round_trip(at_0x1000, {function(0x1000 + field + INT32_MAX, 16, {at(0)})});
    EXPECT_TRUE(has(encode_error(at_0x1000, {function(0x1000 + field + INT32_MAX + 1, 16, {at(0)})}), far));
    round_trip(options(v, SFU_ABI_AMD64_LE, 0x80001000 - field), {function(0x1000, 16, {at(0)})});
    EXPECT_TRUE(
        has(encode_error(options(v, SFU_ABI_AMD64_LE, 0x80001001 - field), {function(0x1000, 16, {at(0)})}),
            far));
  }
  round_trip(options(3, SFU_ABI_AMD64_LE, 0x1000), {function(0x7f0000001000, 16, {at(0)})});
  round_trip(options(3, SFU_ABI_AMD64_LE, 0x7f0000001000), {function(0x1000, 16, {at(0)})});

  // V3 counts a function's rows in 16 bits; V1/V2 in 32.
  EncodeFunction big = function(0x401000, 70000, {});
  for (uint32_t i = 0; i < 65536; i++) big.rows.push_back(at(i));
  EXPECT_TRUE(has(encode_error(v3, {big}), "more than 65535 rows in a V3 function"));
  big.rows.pop_back();
  EXPECT_TRUE(validates(v3, {big}));
  big.rows.push_back(at(65535));
  big.rows.push_back(at(65536));
  EXPECT_TRUE(validates(v2, {big}));
}

}  // namespace
