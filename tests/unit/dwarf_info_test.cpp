// The debug-info readers on hand-built sections: every attribute form (DWARF 4 and 5, both byte
// orders), line programs (standard, extended and special opcodes; version 4 and 5 headers),
// range lists of both kinds, and every named error at its exact offset.
#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "tools/dwarf/debug_info.h"
#include "tools/dwarf/reader.h"
#include "tools/dwarf/line_table.h"
#include "tools/dwarf/ranges.h"
#include "tools/dwarf/source_index.h"

namespace sfu::tools::dwarf {
namespace {

// Bytes in a section's byte order.
struct Buf {
  bool big = false;
  std::vector<uint8_t> b;
  Buf &n(uint64_t v, unsigned size) {
    for (unsigned i = 0; i < size; i++) b.push_back(uint8_t(v >> (8 * (big ? size - 1 - i : i))));
    return *this;
  }
  Buf &u8(uint64_t v) { return n(v, 1); }
  Buf &u16(uint64_t v) { return n(v, 2); }
  Buf &u32(uint64_t v) { return n(v, 4); }
  Buf &u64(uint64_t v) { return n(v, 8); }
  Buf &uleb(uint64_t v) {
    do {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      b.push_back(byte | (v ? 0x80 : 0));
    } while (v);
    return *this;
  }
  Buf &sleb(int64_t v) {
    for (;;) {
      uint8_t byte = v & 0x7f;
      v >>= 7;
      bool done = (v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40));
      b.push_back(byte | (done ? 0 : 0x80));
      if (done) return *this;
    }
  }
  Buf &str(const std::string &s) {
    b.insert(b.end(), s.begin(), s.end());
    b.push_back(0);
    return *this;
  }
  size_t size() const { return b.size(); }
  // Writes the 4-byte length of a unit that starts at `at` and ends here.
  void close_length(size_t at) {
    uint64_t len = b.size() - at - 4;
    for (unsigned i = 0; i < 4; i++) b[at + i] = uint8_t(len >> (8 * (big ? 3 - i : i)));
  }
};

Section view(const Buf &buf, const char *name) { return Section{buf.b.data(), buf.b.size(), name}; }

constexpr uint64_t kTagVariable = 0x34;

// The sections of a DWARF 5 unit whose second DIE holds one attribute of every form.
struct AllForms {
  Buf info, abbrev, str, line_str, str_offsets, addr, rnglists, loclists;
  size_t die2 = 0;  // offset of the DIE with every form
  Sections sections() const {
    Sections s;
    s.big_endian = info.big;
    s.info = view(info, ".debug_info");
    s.abbrev = view(abbrev, ".debug_abbrev");
    s.str = view(str, ".debug_str");
    s.line_str = view(line_str, ".debug_line_str");
    s.str_offsets = view(str_offsets, ".debug_str_offsets");
    s.addr = view(addr, ".debug_addr");
    s.rnglists = view(rnglists, ".debug_rnglists");
    return s;
  }
};

// Forms in the order the DIE holds them; the attribute of form i is 0x2000 + i.
const uint64_t kForms[] = {
    kFormAddr,   kFormData1,  kFormData2,   kFormData4,   kFormData8,   kFormData16,  kFormUdata,
    kFormSdata,  kFormImplicitConst, kFormFlag, kFormFlagPresent, kFormBlock1, kFormBlock2, kFormBlock4,
    kFormBlock,  kFormExprloc, kFormString, kFormStrp,    kFormLineStrp, kFormStrx,   kFormStrx1,
    kFormStrx2,  kFormStrx3,  kFormStrx4,   kFormAddrx,   kFormAddrx1,  kFormAddrx2,  kFormAddrx3,
    kFormAddrx4, kFormRef1,   kFormRef2,    kFormRef4,    kFormRef8,    kFormRefUdata, kFormRefAddr,
    kFormSecOffset, kFormRnglistx, kFormLoclistx, kFormRefSig8, kFormIndirect};

AllForms all_forms(bool big, unsigned version) {
  AllForms f;
  for (Buf *b : {&f.info, &f.abbrev, &f.str, &f.line_str, &f.str_offsets, &f.addr, &f.rnglists, &f.loclists})
    b->big = big;
  f.str.str("zero").str("strp-text");            // "strp-text" at 5
  f.line_str.str("x").str("line-strp-text");     // at 2
  // .debug_str_offsets (DWARF 5 header: length, version, padding), entries 0..4 -> "strp-text".
  f.str_offsets.u32(4 + 5 * 4).u16(5).u16(0);
  for (int i = 0; i < 5; i++) f.str_offsets.u32(5);
  f.addr.u32(4 + 5 * 8).u16(5).u8(8).u8(0);
  for (int i = 0; i < 5; i++) f.addr.u64(0x1000 + 0x100 * i);
  // .debug_rnglists: header, one offset, an empty list, then the list at offset 5 from the base (12).
  f.rnglists.u32(0).u16(5).u8(8).u8(0).u32(1).u32(5);
  f.rnglists.u8(kRleEndOfList);
  f.rnglists.u8(kRleStartLength).u64(0x4000).uleb(0x10).u8(kRleEndOfList);
  f.rnglists.close_length(0);

  f.abbrev.uleb(1).uleb(kTagCompileUnit).u8(1);
  f.abbrev.uleb(kAtStrOffsetsBase).uleb(kFormSecOffset).uleb(kAtAddrBase).uleb(kFormSecOffset);
  f.abbrev.uleb(kAtRnglistsBase).uleb(kFormSecOffset).uleb(0).uleb(0);
  f.abbrev.uleb(2).uleb(kTagVariable).u8(0);
  for (size_t i = 0; i < std::size(kForms); i++) {
    f.abbrev.uleb(0x2000 + i).uleb(kForms[i]);
    if (kForms[i] == kFormImplicitConst) f.abbrev.sleb(-42);
  }
  f.abbrev.uleb(0).uleb(0).uleb(0);

  f.info.u32(0);
  if (version >= 5)
    f.info.u16(5).u8(kUtCompile).u8(8).u32(0);
  else
    f.info.u16(uint16_t(version)).u32(0).u8(8);
  f.info.uleb(1).u32(8).u32(8).u32(12);
  f.die2 = f.info.size();
  f.info.uleb(2);
  f.info.u64(0x401000);                                 // addr
  f.info.u8(0x11).u16(0x2222).u32(0x33333333).u64(0x4444444444444444ull);
  for (int i = 0; i < 16; i++) f.info.u8(i);            // data16
  f.info.uleb(300).sleb(-300);                          // udata, sdata (implicit_const: nothing)
  f.info.u8(1);                                         // flag (flag_present: nothing)
  f.info.u8(2).u8(0xaa).u8(0xbb);                       // block1
  f.info.u16(1).u8(0xcc).u32(1).u8(0xdd).uleb(1).u8(0xee).uleb(2).u8(0x9c).u8(0x06);  // block2/4/block/exprloc
  f.info.str("inline-string").u32(5).u32(2);            // string, strp, line_strp
  f.info.uleb(1).u8(2).u16(3).n(4, 3).u32(0);           // strx, strx1..4
  f.info.uleb(0).u8(1).u16(2).n(3, 3).u32(4);           // addrx, addrx1..4
  f.info.u8(0x0c).u16(0x0c).u32(0x0c).u64(0x0c).uleb(0x0c);  // refs to the unit DIE
  f.info.u32(f.die2);                                   // ref_addr (32-bit DWARF from version 3)
  f.info.u32(0x77);                                     // sec_offset
  f.info.uleb(0);                                       // rnglistx 0
  f.info.uleb(3);                                       // loclistx
  f.info.u64(0x1122334455667788ull);                    // ref_sig8
  f.info.uleb(kFormStrx1).u8(4);                        // indirect -> strx1
  f.info.u8(0);
  f.info.close_length(0);
  return f;
}

class FormsTest : public ::testing::TestWithParam<std::tuple<bool, unsigned>> {};

TEST_P(FormsTest, EveryFormDecodedAndResolved) {
  auto [big, version] = GetParam();
  AllForms f = all_forms(big, version);
  Sections s = f.sections();
  DebugInfoReader reader(s);
  std::vector<Unit> units;
  DebugError err;
  ASSERT_TRUE(reader.read_units(units, err)) << err.message();
  ASSERT_EQ(units.size(), 1u);
  EXPECT_EQ(units[0].version, version);
  EXPECT_TRUE(units[0].has_str_offsets_base);
  EXPECT_EQ(units[0].addr_base, 8u);
  Die die;
  uint64_t next;
  ASSERT_TRUE(reader.read_die(units[0], f.die2, die, next, err)) << err.message();
  ASSERT_EQ(die.tag, kTagVariable);
  ASSERT_EQ(die.attrs.size(), std::size(kForms));
  auto at = [&](uint64_t form) -> const AttrValue & {
    for (size_t i = 0; i < std::size(kForms); i++)
      if (kForms[i] == form) return die.attrs[i];
    static AttrValue none;
    return none;
  };
  EXPECT_EQ(at(kFormAddr).u, 0x401000u);
  EXPECT_EQ(at(kFormData1).u, 0x11u);
  EXPECT_EQ(at(kFormData2).u, 0x2222u);
  EXPECT_EQ(at(kFormData4).u, 0x33333333u);
  EXPECT_EQ(at(kFormData8).u, 0x4444444444444444ull);
  EXPECT_EQ(at(kFormData16).cls, AttrValue::kBlock);
  EXPECT_EQ(at(kFormData16).block_size, 16u);
  EXPECT_EQ(s.info.data[at(kFormData16).block_offset + 15], 15);
  EXPECT_EQ(at(kFormUdata).u, 300u);
  EXPECT_EQ(at(kFormSdata).s, -300);
  EXPECT_EQ(at(kFormImplicitConst).s, -42);
  EXPECT_EQ(at(kFormFlag).u, 1u);
  EXPECT_EQ(at(kFormFlagPresent).u, 1u);
  EXPECT_EQ(at(kFormBlock1).block_size, 2u);
  EXPECT_EQ(s.info.data[at(kFormBlock1).block_offset], 0xaa);
  EXPECT_EQ(s.info.data[at(kFormBlock2).block_offset], 0xcc);
  EXPECT_EQ(s.info.data[at(kFormBlock4).block_offset], 0xdd);
  EXPECT_EQ(s.info.data[at(kFormBlock).block_offset], 0xee);
  EXPECT_EQ(at(kFormExprloc).block_size, 2u);
  EXPECT_STREQ(at(kFormString).str, "inline-string");
  EXPECT_STREQ(at(kFormStrp).str, "strp-text");
  EXPECT_STREQ(at(kFormLineStrp).str, "line-strp-text");
  for (uint64_t form : {kFormStrx, kFormStrx1, kFormStrx2, kFormStrx3, kFormStrx4})
    EXPECT_STREQ(at(form).str, "strp-text") << "form " << form;
  EXPECT_EQ(at(kFormAddrx).u, 0x1000u);
  EXPECT_EQ(at(kFormAddrx1).u, 0x1100u);
  EXPECT_EQ(at(kFormAddrx2).u, 0x1200u);
  EXPECT_EQ(at(kFormAddrx3).u, 0x1300u);
  EXPECT_EQ(at(kFormAddrx4).u, 0x1400u);
  for (uint64_t form : {kFormRef1, kFormRef2, kFormRef4, kFormRef8, kFormRefUdata}) {
    EXPECT_EQ(at(form).cls, AttrValue::kReference);
    EXPECT_EQ(at(form).u, 0x0cu) << "unit-relative reference made absolute, form " << form;
  }
  EXPECT_EQ(at(kFormRefAddr).u, f.die2);
  EXPECT_EQ(at(kFormSecOffset).cls, AttrValue::kSecOffset);
  EXPECT_EQ(at(kFormSecOffset).u, 0x77u);
  EXPECT_EQ(at(kFormRnglistx).cls, AttrValue::kRangeList);
  EXPECT_EQ(at(kFormRnglistx).u, 17u) << "rnglists_base 12 + offset 5";
  EXPECT_EQ(at(kFormLoclistx).u, 3u);
  EXPECT_EQ(at(kFormIndirect).form, kFormStrx1);
  EXPECT_STREQ(at(kFormIndirect).str, "strp-text");
  EXPECT_EQ(next, f.info.size() - 1);
  // The list the rnglistx names.
  std::vector<AddressRange> ranges;
  Unit u5 = units[0];
  u5.version = 5;
  ASSERT_TRUE(read_range_list(reader, u5, at(kFormRnglistx).u, 0, ranges, err)) << err.message();
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges[0], (AddressRange{0x4000, 0x4010}));
}

INSTANTIATE_TEST_SUITE_P(Dwarf, FormsTest,
                         ::testing::Values(std::tuple{false, 5u}, std::tuple{true, 5u}, std::tuple{false, 4u},
                                           std::tuple{true, 4u}));

// --- line programs ----------------------------------------------------------------------------

struct LineSections {
  Buf line, line_str, info;
  Sections sections() const {
    Sections s;
    s.big_endian = line.big;
    s.line = view(line, ".debug_line");
    s.line_str = view(line_str, ".debug_line_str");
    return s;
  }
};

constexpr uint8_t kOpcodeBase = 13;
constexpr int kLineBase = -5, kLineRange = 14;

uint8_t special(unsigned addr_advance, int line_advance) {
  return uint8_t((line_advance - kLineBase) + kLineRange * addr_advance + kOpcodeBase);
}

// A header of `version` (4 or 5) with files "a.c" (dir 0 / 1) and "/abs/b.h", then `program`.
LineSections line_program(unsigned version, bool big, const std::vector<uint8_t> &program) {
  LineSections l;
  l.line.big = l.line_str.big = big;
  l.line_str.str("/comp").str("a.c");  // "/comp" at 0, "a.c" at 6
  Buf &b = l.line;
  b.u32(0).u16(uint16_t(version));
  if (version >= 5) b.u8(8).u8(0);
  size_t header_length_at = b.size();
  b.u32(0);
  size_t header_start = b.size();
  b.u8(1);  // minimum instruction length
  if (version >= 4) b.u8(1);
  b.u8(1).u8(uint8_t(int8_t(kLineBase))).u8(kLineRange).u8(kOpcodeBase);
  for (uint8_t n : {0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1}) b.u8(n);
  if (version >= 5) {
    b.u8(1).uleb(kLnctPath).uleb(kFormLineStrp);  // directories: one format
    b.uleb(2).u32(0).u32(0);                          // dir 0 "/comp", dir 1 "/comp" again
    b.u8(3).uleb(kLnctPath).uleb(kFormString).uleb(kLnctDirectoryIndex).uleb(kFormUdata);
    b.uleb(kLnctMd5).uleb(kFormData16);
    b.uleb(3);
    for (const char *name : {"a.c", "a.c", "/abs/b.h"}) {
      b.str(name).uleb(0);
      for (int i = 0; i < 16; i++) b.u8(0);
    }
  } else {
    b.str("sub").u8(0);                            // include_directories: 1 "sub"
    b.str("a.c").uleb(0).uleb(0).uleb(0);          // file 1, no directory
    b.str("/abs/b.h").uleb(1).uleb(0).uleb(0);     // file 2
    b.u8(0);
  }
  uint64_t header_length = b.size() - header_start;
  for (unsigned i = 0; i < 4; i++) b.b[header_length_at + i] = uint8_t(header_length >> (8 * (big ? 3 - i : i)));
  b.b.insert(b.b.end(), program.begin(), program.end());
  b.close_length(0);
  return l;
}

std::vector<uint8_t> set_address(uint64_t a) {
  std::vector<uint8_t> v{0, 9, kLneSetAddress};
  for (int i = 0; i < 8; i++) v.push_back(uint8_t(a >> (8 * i)));
  return v;
}

std::vector<uint8_t> cat(std::initializer_list<std::vector<uint8_t>> parts) {
  std::vector<uint8_t> out;
  for (const auto &p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

// Reads the line table at offset 0 of `l`.
bool read_table(const LineSections &l, LineTable &t, DebugError &err) {
  Sections s = l.sections();
  DebugInfoReader reader(s);
  Unit unit;
  return read_line_table(reader, unit, 0, t, err);
}

TEST(DwarfLineTest, EveryOpcodeVersion4) {
  std::vector<uint8_t> program = cat({
      set_address(0x1000),
      {kLnsAdvanceLine, 9},                      // line 10
      {kLnsCopy},                                // row 0x1000 line 10
      {kLnsAdvancePc, 4, kLnsSetColumn, 7},      // 0x1004, column 7
      {0, 2, kLneSetDiscriminator, 3},           // discriminator 3
      {special(2, 1)},                           // row 0x1006 line 11 disc 3
      {kLnsSetFile, 2, kLnsNegateStmt, kLnsSetBasicBlock, kLnsSetPrologueEnd, kLnsSetEpilogueBegin},
      {kLnsSetIsa, 5},
      {kLnsConstAddPc},                          // + (255-13)/14 = 17 -> 0x1017
      {kLnsFixedAdvancePc, 0x10, 0x00},          // + 16 -> 0x1027
      {special(0, -2)},                          // row 0x1027 line 9 file 2, not a statement
      {0, 8, kLneDefineFile, 'c', '.', 'c', 0, 0, 0, 0},  // file 3 "c.c"
      {0, 3, 0x80, 0xaa, 0xbb},                  // an unknown extended opcode, stepped over
      {kLnsAdvancePc, 2},
      {0, 1, kLneEndSequence},                   // end 0x1029
  });
  LineTable t;
  DebugError err;
  ASSERT_TRUE(read_table(line_program(4, false, program), t, err)) << err.message();
  ASSERT_EQ(t.rows.size(), 4u);
  EXPECT_EQ(t.rows[0].address, 0x1000u);
  EXPECT_EQ(t.rows[0].line, 10u);
  EXPECT_EQ(t.rows[1].address, 0x1006u);
  EXPECT_EQ(t.rows[1].line, 11u);
  EXPECT_EQ(t.rows[1].column, 7u);
  EXPECT_EQ(t.rows[1].discriminator, 3u);
  EXPECT_EQ(t.rows[2].address, 0x1027u);
  EXPECT_EQ(t.rows[2].line, 9u);
  EXPECT_EQ(t.rows[2].file, 2u);
  EXPECT_TRUE(t.rows[2].file_set);
  EXPECT_FALSE(t.rows[2].is_stmt);
  EXPECT_EQ(t.rows[2].discriminator, 0u) << "reset after each row";
  EXPECT_TRUE(t.rows[3].end_sequence);
  EXPECT_EQ(t.rows[3].address, 0x1029u);
  EXPECT_TRUE(t.skipped_extended);
  ASSERT_EQ(t.files.size(), 4u) << "placeholder, a.c, b.h, and the defined c.c";
  EXPECT_EQ(t.files[3].name, "c.c");
  std::string path;
  EXPECT_TRUE(line_file_path(t, 1, "/comp", path));
  EXPECT_EQ(path, "/comp/a.c");
  EXPECT_TRUE(line_file_path(t, 2, "/comp", path));
  EXPECT_EQ(path, "/abs/b.h");
  EXPECT_FALSE(line_file_path(t, 0, "/comp", path)) << "file 0 is no file before DWARF 5";
  EXPECT_FALSE(line_file_path(t, 9, "/comp", path));
  LineLookup lookup;
  lookup.build(t);
  EXPECT_EQ(lookup.find(0xfff), nullptr);
  EXPECT_EQ(lookup.find(0x1005)->line, 10u);
  EXPECT_EQ(lookup.find(0x1026)->line, 11u);
  EXPECT_EQ(lookup.find(0x1028)->line, 9u);
  EXPECT_EQ(lookup.find(0x1029), nullptr) << "the end of the sequence is outside it";
}

TEST(DwarfLineTest, Version5HeaderBigEndianAndSameAddressRows) {
  std::vector<uint8_t> program = cat({
      set_address(0x2000),
      {kLnsCopy},                // line 1 at 0x2000
      {special(0, 4)},           // line 5 at 0x2000: the later row at one address wins
      {special(8, 1)},           // line 6 at 0x2008
      {kLnsAdvancePc, 8},
      {0, 1, kLneEndSequence},   // end 0x2010
      set_address(0x1000),       // a second sequence, lower
      {kLnsSetFile, 2, kLnsAdvanceLine, 40, kLnsCopy},  // line 41, file 2
      {kLnsAdvancePc, 4},
      {0, 1, kLneEndSequence},
  });
  // set_address writes little-endian; redo its operands big-endian.
  for (size_t i = 0; i + 11 <= program.size(); i++)
    if (program[i] == 0 && program[i + 1] == 9 && program[i + 2] == kLneSetAddress)
      std::reverse(program.begin() + i + 3, program.begin() + i + 11);
  LineTable t;
  DebugError err;
  ASSERT_TRUE(read_table(line_program(5, true, program), t, err)) << err.message();
  EXPECT_EQ(t.version, 5u);
  ASSERT_EQ(t.dirs.size(), 2u);
  EXPECT_EQ(t.dirs[0], "/comp");
  ASSERT_EQ(t.files.size(), 3u);
  std::string path;
  ASSERT_TRUE(line_file_path(t, 0, "/elsewhere", path));
  EXPECT_EQ(path, "/comp/a.c") << "an absolute directory is not joined to the unit's";
  LineLookup lookup;
  lookup.build(t);
  ASSERT_NE(lookup.find(0x2004), nullptr);
  EXPECT_EQ(lookup.find(0x2004)->line, 5u);
  EXPECT_EQ(lookup.find(0x200f)->line, 6u);
  EXPECT_EQ(lookup.find(0x1002)->line, 41u);
  EXPECT_EQ(lookup.find(0x1002)->file, 2u);
  EXPECT_EQ(lookup.find(0x1800), nullptr);
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  lookup.ranges(ranges);
  ASSERT_EQ(ranges.size(), 2u);
  EXPECT_EQ(ranges[0], (std::pair<uint64_t, uint64_t>{0x1000, 0x1004}));
  EXPECT_EQ(ranges[1], (std::pair<uint64_t, uint64_t>{0x2000, 0x2010}));
}

// --- range lists -------------------------------------------------------------------------------

TEST(DwarfRangesTest, Version4BaseSelection) {
  Buf r;
  r.u64(0x10).u64(0x20);                          // base 0x1000 (the unit's) + [0x10, 0x20)
  r.u64(~0ull).u64(0x5000);                       // base address selection
  r.u64(0x0).u64(0x8);                            // [0x5000, 0x5008)
  r.u64(0).u64(0);
  Sections s;
  s.ranges = view(r, ".debug_ranges");
  DebugInfoReader reader(s);
  Unit unit;
  unit.version = 4;
  std::vector<AddressRange> out;
  DebugError err;
  ASSERT_TRUE(read_range_list(reader, unit, 0, 0x1000, out, err)) << err.message();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0], (AddressRange{0x1010, 0x1020}));
  EXPECT_EQ(out[1], (AddressRange{0x5000, 0x5008}));
}

TEST(DwarfRangesTest, Version5EveryEntryKind) {
  Buf r, a;
  a.u32(4 + 3 * 8).u16(5).u8(8).u8(0).u64(0x7000).u64(0x7100).u64(0x7200);
  r.u32(0).u16(5).u8(8).u8(0).u32(0);
  size_t list = r.size();
  r.u8(kRleOffsetPair).uleb(0x10).uleb(0x20);                 // unit base 0x1000
  r.u8(kRleBaseAddress).u64(0x3000);
  r.u8(kRleOffsetPair).uleb(0).uleb(4);
  r.u8(kRleBaseAddressx).uleb(1);                             // base 0x7100
  r.u8(kRleOffsetPair).uleb(1).uleb(2);
  r.u8(kRleStartxEndx).uleb(0).uleb(2);
  r.u8(kRleStartxLength).uleb(2).uleb(8);
  r.u8(kRleStartEnd).u64(0x9000).u64(0x9010);
  r.u8(kRleStartLength).u64(0xa000).uleb(0x20);
  r.u8(kRleEndOfList);
  r.close_length(0);
  Sections s;
  s.rnglists = view(r, ".debug_rnglists");
  s.addr = view(a, ".debug_addr");
  DebugInfoReader reader(s);
  Unit unit;
  unit.version = 5;
  std::vector<AddressRange> out;
  RangeListKinds kinds;
  DebugError err;
  ASSERT_TRUE(read_range_list(reader, unit, list, 0x1000, out, err, &kinds)) << err.message();
  std::vector<AddressRange> want{{0x1010, 0x1020}, {0x3000, 0x3004}, {0x7101, 0x7102},
                                 {0x7000, 0x7200}, {0x7200, 0x7208}, {0x9000, 0x9010}, {0xa000, 0xa020}};
  EXPECT_EQ(out, want);
  EXPECT_TRUE(kinds.indexed);
  EXPECT_EQ(kinds.before_indexed, 2u) << "binutils reads up to the first .debug_addr entry";
}

// --- named errors at their offsets ---------------------------------------------------------------

struct Refusal {
  const char *name;
  const char *section;
  uint64_t offset;
};

void expect_units_refused(const AllForms &f, Refusal want) {
  Sections s = f.sections();
  DebugInfoReader reader(s);
  std::vector<Unit> units;
  DebugError err;
  bool ok = reader.read_units(units, err);
  if (ok) {  // the unit reads: the refusal is in its second DIE
    Die die;
    uint64_t next;
    ok = reader.read_die(units[0], f.die2, die, next, err);
  }
  ASSERT_FALSE(ok) << "expected " << want.name;
  EXPECT_EQ(err.error.name, want.name) << err.message();
  EXPECT_EQ(err.section, want.section) << err.message();
  EXPECT_EQ(err.error.offset, want.offset) << err.message();
}

// The .debug_info offset of the value of each form in the DIE with every form.
std::map<uint64_t, size_t> value_offsets(const AllForms &f) {
  std::map<uint64_t, size_t> out;
  Sections s = f.sections();
  DebugInfoReader reader(s);
  std::vector<Unit> units;
  DebugError err;
  Die die;
  uint64_t next;
  EXPECT_TRUE(reader.read_units(units, err) && reader.read_die(units[0], f.die2, die, next, err, false));
  for (size_t i = 0; i < die.attrs.size(); i++) out[kForms[i]] = die.attrs[i].at;
  return out;
}

TEST(DwarfErrorsTest, UnitHeaderRefusals) {
  AllForms f = all_forms(false, 5);
  auto patch = [&](size_t at, std::vector<uint8_t> bytes) {
    AllForms g = f;
    std::copy(bytes.begin(), bytes.end(), g.info.b.begin() + at);
    return g;
  };
  expect_units_refused(patch(0, {0xf0, 0xff, 0xff, 0xff}), {kErrBadUnitLength, ".debug_info", 0});
  expect_units_refused(patch(0, {0xff, 0xff, 0x00, 0x00}), {kErrBadUnitLength, ".debug_info", 0});
  expect_units_refused(patch(4, {6, 0}), {kErrBadVersion, ".debug_info", 4});
  expect_units_refused(patch(6, {9}), {kErrBadUnitType, ".debug_info", 6});
  expect_units_refused(patch(7, {2}), {kErrBadAddressSize, ".debug_info", 7});
  expect_units_refused(patch(8, {0x00, 0x10}), {kErrBadAbbrevOffset, ".debug_info", 8});
  expect_units_refused(patch(12, {9}), {kErrUnknownAbbrev, ".debug_info", 12});
  AllForms t = f;
  t.info.b.resize(10);
  t.info.close_length(0);
  expect_units_refused(t, {"truncated", ".debug_info", 8});
}

TEST(DwarfErrorsTest, AttributeRefusals) {
  AllForms f = all_forms(false, 5);
  std::map<uint64_t, size_t> at = value_offsets(f);
  size_t addr = at[kFormAddr], strp = at[kFormStrp], strx1 = at[kFormStrx1], addrx1 = at[kFormAddrx1],
         ref1 = at[kFormRef1], rnglistx = at[kFormRnglistx], indirect = at[kFormIndirect];
  auto with = [&](size_t at, uint8_t v) {
    AllForms g = f;
    g.info.b[at] = v;
    return g;
  };
  expect_units_refused(with(strp, 0x40), {kErrBadStringOffset, ".debug_info", strp});
  expect_units_refused(with(strx1, 9), {kErrBadIndex, ".debug_info", strx1});
  expect_units_refused(with(addrx1, 9), {kErrBadIndex, ".debug_info", addrx1});
  expect_units_refused(with(ref1, 0xf0), {kErrBadReference, ".debug_info", ref1});
  expect_units_refused(with(rnglistx, 5), {kErrBadIndex, ".debug_info", rnglistx});
  expect_units_refused(with(indirect, 0x7f), {kErrUnknownForm, ".debug_info", indirect});
  // A missing string section: the strp field is named.
  AllForms g = f;
  g.str.b.clear();
  {
    Sections s = g.sections();
    s.str = Section{nullptr, 0, ".debug_str"};
    DebugInfoReader reader(s);
    std::vector<Unit> units;
    DebugError err;
    ASSERT_TRUE(reader.read_units(units, err));
    Die die;
    uint64_t next;
    ASSERT_FALSE(reader.read_die(units[0], g.die2, die, next, err));
    EXPECT_EQ(err.error.name, kErrMissingSection);
    EXPECT_EQ(err.error.offset, strp);
  }
  // A string without its NUL at the end of .debug_str: named in .debug_str.
  g = f;
  g.str.b.pop_back();
  expect_units_refused(g, {"truncated", ".debug_str", 5});
  // An attribute form the abbreviation table gives that no DWARF version has.
  g = f;
  for (size_t i = 0; i + 2 < g.abbrev.b.size(); i++)
    if (g.abbrev.b[i] == 0x80 && g.abbrev.b[i + 1] == 0x40 && g.abbrev.b[i + 2] == kFormAddr) g.abbrev.b[i + 2] = 0x7e;
  expect_units_refused(g, {kErrUnknownForm, ".debug_info", addr});
}

TEST(DwarfErrorsTest, AbbrevRefusals) {
  AllForms f = all_forms(false, 5);
  AllForms g = f;
  g.abbrev.b[1] = 0;  // tag 0
  expect_units_refused(g, {kErrBadAbbrev, ".debug_abbrev", 0});
  g = f;
  g.abbrev.b[2] = 2;  // children flag 2
  expect_units_refused(g, {kErrBadAbbrev, ".debug_abbrev", 2});
  g = f;
  g.abbrev.b.resize(g.abbrev.b.size() - 3);  // the table's terminator gone, and part of the last entry
  expect_units_refused(g, {"truncated", ".debug_abbrev", g.abbrev.b.size()});
  g = f;  // code 1 twice
  size_t second = 0;
  for (size_t i = 3; i + 2 < g.abbrev.b.size(); i++)
    if (g.abbrev.b[i] == 0 && g.abbrev.b[i + 1] == 0 && g.abbrev.b[i + 2] == 2) second = i + 2;
  ASSERT_NE(second, 0u);
  g.abbrev.b[second] = 1;
  expect_units_refused(g, {kErrBadAbbrev, ".debug_abbrev", second});
}

TEST(DwarfErrorsTest, LineTableRefusals) {
  std::vector<uint8_t> program = cat({set_address(0x1000), {kLnsCopy}, {0, 1, kLneEndSequence}});
  auto refused = [&](LineSections l, Refusal want) {
    LineTable t;
    DebugError err;
    ASSERT_FALSE(read_table(l, t, err)) << "expected " << want.name;
    EXPECT_EQ(err.error.name, want.name) << err.message();
    EXPECT_EQ(err.section, want.section) << err.message();
    EXPECT_EQ(err.error.offset, want.offset) << err.message();
  };
  LineSections good = line_program(5, false, program);
  LineSections l = good;
  l.line.b[4] = 6;
  refused(l, {kErrBadVersion, ".debug_line", 4});
  l = good;
  l.line.b[6] = 3;
  refused(l, {kErrBadAddressSize, ".debug_line", 6});
  l = good;
  l.line.b[7] = 1;
  refused(l, {kErrBadAddressSize, ".debug_line", 7});
  l = good;
  l.line.b[13] = 0;  // max ops per instruction
  refused(l, {kErrBadLineHeader, ".debug_line", 13});
  l = good;
  l.line.b[16] = 0;  // line range
  refused(l, {kErrBadLineHeader, ".debug_line", 16});
  l = good;
  l.line.b[17] = 0;  // opcode base
  refused(l, {kErrBadLineHeader, ".debug_line", 17});
  l = good;
  l.line.b[0] = 0xff;  // length past the section
  refused(l, {kErrBadUnitLength, ".debug_line", 0});
  l = good;
  l.line_str.b.resize(3);  // "/comp" cut: the directory's string runs past the end
  refused(l, {"truncated", ".debug_line_str", 0});
  l = good;
  l.line.b[32] = 0x7e;  // the directory entries' form: refused at the first entry's value
  refused(l, {kErrUnknownForm, ".debug_line", 34});
  l = good;
  l.line.b[33] = 0x7e;  // more directories than bytes left
  refused(l, {kErrBadLineHeader, ".debug_line", 33});
  LineSections v4 = line_program(4, false, program);
  l = v4;
  size_t set_addr_at = l.line.b.size() - program.size();
  l.line.b[set_addr_at + 1] = 5;  // DW_LNE_set_address of 4 bytes... with 8 following: then 5-1=4 is fine, 3 is not
  l.line.b[set_addr_at + 1] = 4;
  refused(l, {kErrBadAddressSize, ".debug_line", set_addr_at});
  l = v4;
  l.line.b[set_addr_at + 1] = 0x7f;  // runs past the table
  refused(l, {"truncated", ".debug_line", set_addr_at});
}

TEST(DwarfErrorsTest, RangeListRefusals) {
  Buf r;
  r.u32(0).u16(5).u8(8).u8(0).u32(0);
  r.u8(kRleOffsetPair).uleb(0).uleb(1).u8(9);
  r.close_length(0);
  Sections s;
  s.rnglists = view(r, ".debug_rnglists");
  DebugInfoReader reader(s);
  Unit unit;
  unit.version = 5;
  std::vector<AddressRange> out;
  DebugError err;
  ASSERT_FALSE(read_range_list(reader, unit, 12, 0, out, err));
  EXPECT_EQ(err.error.name, kErrBadRangeEntry);
  EXPECT_EQ(err.error.offset, 15u);
  EXPECT_FALSE(read_range_list(reader, unit, 99, 0, out, err));
  EXPECT_EQ(err.error.name, kErrBadIndex);
  Buf v4;
  v4.u64(1).u64(2);  // no terminating pair
  s.ranges = view(v4, ".debug_ranges");
  DebugInfoReader reader4(s);
  unit.version = 4;
  ASSERT_FALSE(read_range_list(reader4, unit, 0, 0, out, err));
  EXPECT_EQ(err.error.name, kErrUnterminated);
  EXPECT_EQ(err.error.offset, 16u);
  Buf x;  // an address index with no .debug_addr
  x.u32(0).u16(5).u8(8).u8(0).u32(0).u8(kRleStartxLength).uleb(0).uleb(4).u8(0);
  x.close_length(0);
  Sections sx;
  sx.rnglists = view(x, ".debug_rnglists");
  DebugInfoReader readerx(sx);
  unit.version = 5;
  ASSERT_FALSE(read_range_list(readerx, unit, 12, 0, out, err));
  EXPECT_EQ(err.error.name, kErrMissingSection);
  EXPECT_EQ(err.section, ".debug_rnglists");
  EXPECT_EQ(err.error.offset, 12u);
}

TEST(DwarfErrorsTest, OverlongLeb128) {
  AllForms f = all_forms(false, 5);
  size_t udata = value_offsets(f)[kFormUdata];
  AllForms g = f;
  std::vector<uint8_t> wide(10, 0xff);
  wide.back() = 0x7f;
  g.info.b.erase(g.info.b.begin() + udata, g.info.b.begin() + udata + 2);
  g.info.b.insert(g.info.b.begin() + udata, wide.begin(), wide.end());
  g.info.close_length(0);
  expect_units_refused(g, {"leb128-too-long", ".debug_info", udata});
}

// The source model's own refusals: a specification naming itself, and DIE children that run
// to the end of their unit without the null entry that closes them.
TEST(DwarfErrorsTest, ModelRefusals) {
  Buf info, abbrev;
  abbrev.uleb(1).uleb(kTagCompileUnit).u8(1).uleb(0).uleb(0);
  abbrev.uleb(2).uleb(kTagSubprogram).u8(0).uleb(kAtSpecification).uleb(kFormRef4).uleb(0).uleb(0);
  abbrev.uleb(3).uleb(kTagSubprogram).u8(0).uleb(0).uleb(0);
  abbrev.uleb(0);
  info.u32(0).u16(5).u8(kUtCompile).u8(8).u32(0);
  info.uleb(1);
  size_t sub = info.size();
  info.uleb(2).u32(sub).u8(0).u8(0);
  info.close_length(0);
  auto build = [&](const Buf &i, std::string &error) {
    SourceIndex idx;
    idx.sections.info = view(i, ".debug_info");
    idx.sections.abbrev = view(abbrev, ".debug_abbrev");
    return build_source_index_from_sections(idx, error);
  };
  std::string error;
  EXPECT_FALSE(build(info, error));
  EXPECT_EQ(error, ".debug_info+" + cfi::Reader::hex(sub) + ": reference-loop (more than 16 origins in a row)");
  Buf open;  // a unit DIE whose children are never closed
  open.u32(0).u16(5).u8(kUtCompile).u8(8).u32(0).uleb(1).uleb(3).uleb(3);
  open.close_length(0);
  EXPECT_FALSE(build(open, error));
  EXPECT_EQ(error.rfind(".debug_info+0x00: unterminated", 0), 0u) << error;
}

}  // namespace
}  // namespace sfu::tools::dwarf
