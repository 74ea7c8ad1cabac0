// Breakpad module identification (tools/breakpad/module_id.h): the MODULE id, the INFO CODE_ID
// and the architecture names dump_syms writes, checked against lines Breakpad's own dump_syms
// printed (recorded below with their inputs), and on hand-built images for where the build-id is
// looked for (a note section, else PT_NOTE segments, else a hash of .text) in both byte orders.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "tools/breakpad/module_id.h"
#include "tools/elf/elf_file.h"

namespace sfu::tools::breakpad {
namespace {

std::vector<uint8_t> bytes_of(const std::string &hex) {
  std::vector<uint8_t> out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(uint8_t(std::stoul(hex.substr(i, 2), nullptr, 16)));
  return out;
}

// `dump_syms -i` on QEMU test kernels (build/qemu/x86_64/demo.elf and arm64/demo.elf of one
// build): the build-id readelf printed, and the MODULE id and CODE_ID Breakpad derived from it.
TEST(BreakpadModuleId, EqualsDumpSymsOnQemuKernels) {
  struct Case {
    const char *build_id, *module_id, *code_id;
  } cases[] = {
      {"9938d42db189291b83f2ab5f49a05c354fbf1b8d", "2DD4389989B11B2983F2AB5F49A05C350",
       "9938D42DB189291B83F2AB5F49A05C354FBF1B8D"},
      {"b4d0d262164fc87effb4bed73187bfcc18d57cf0", "62D2D0B44F167EC8FFB4BED73187BFCC0",
       "B4D0D262164FC87EFFB4BED73187BFCC18D57CF0"},
  };
  for (const Case &c : cases) {
    EXPECT_EQ(module_id_text(bytes_of(c.build_id)), c.module_id);
    EXPECT_EQ(code_id_text(bytes_of(c.build_id)), c.code_id);
  }
  // A build-id shorter than a GUID is zero-padded for the id, printed whole for the code id.
  EXPECT_EQ(module_id_text(bytes_of("0102030405")), "04030201000500000000000000000000" "0");
  EXPECT_EQ(code_id_text(bytes_of("0102030405")), "0102030405");
}

TEST(BreakpadModuleId, ArchitectureNames) {
  EXPECT_STREQ(architecture_name(kEmX86_64), "x86_64");
  EXPECT_STREQ(architecture_name(kEmAarch64), "arm64");
  EXPECT_STREQ(architecture_name(kEmS390), "s390");  // Breakpad has no "s390x"
  EXPECT_EQ(architecture_name(0x1234), nullptr);
}

// A small ELF64 image: .text, optionally a build-id note (as a section, or only in a PT_NOTE
// segment), a PT_LOAD, and a .dynamic with a DT_SONAME.
struct Spec {
  bool big = false;
  enum { kNone, kSection, kSegmentOnly } note = kSection;
  std::vector<uint8_t> build_id = bytes_of("00112233445566778899aabbccddeeff0123");
  size_t text_size = 40;
  std::string soname;
};

std::vector<uint8_t> build(const Spec &s) {
  std::vector<uint8_t> f(64, 0);
  auto put = [&](size_t at, uint64_t v, int n) {
    for (int i = 0; i < n; i++) f[at + (s.big ? n - 1 - i : i)] = uint8_t(v >> (8 * i));
  };
  auto append = [&](const std::vector<uint8_t> &b) {
    size_t at = f.size();
    f.insert(f.end(), b.begin(), b.end());
    return at;
  };
  std::memcpy(f.data(), "\x7f" "ELF\x02", 5);
  f[5] = s.big ? 2 : 1;
  f[6] = 1;
  put(16, kEtExec, 2);
  put(18, s.big ? kEmS390 : kEmX86_64, 2);
  std::vector<uint8_t> text(s.text_size);
  for (size_t i = 0; i < text.size(); i++) text[i] = uint8_t(i * 7 + 1);
  size_t text_at = append(text);
  // Bytes after .text: the hash of a last partial block reads into them.
  append({0xa5, 0x5a, 0xa5, 0x5a, 0xa5, 0x5a, 0xa5, 0x5a, 0xa5, 0x5a, 0xa5, 0x5a, 0xa5, 0x5a, 0xa5, 0x5a});
  size_t note_at = f.size();
  f.resize(f.size() + 16, 0);
  put(note_at, 4, 4);
  put(note_at + 4, s.build_id.size(), 4);
  put(note_at + 8, 3, 4);  // NT_GNU_BUILD_ID
  std::memcpy(f.data() + note_at + 12, "GNU", 4);
  append(s.build_id);
  size_t note_size = f.size() - note_at;
  f.resize((f.size() + 7) & ~size_t(7), 0);
  size_t dynstr_at = f.size(), dyn_at = 0;
  if (!s.soname.empty()) {
    append({0});
    append(std::vector<uint8_t>(s.soname.begin(), s.soname.end()));
    append({0});
    f.resize((f.size() + 7) & ~size_t(7), 0);
    dyn_at = f.size();
    f.resize(f.size() + 48, 0);
    put(dyn_at, 1, 8);  // DT_NEEDED first: the SONAME entry need not be first
    put(dyn_at + 8, 0, 8);
    put(dyn_at + 16, 14, 8);  // DT_SONAME
    put(dyn_at + 24, 1, 8);
  }
  std::string names = std::string("\0.text\0.note.gnu.build-id\0.shstrtab\0.dynamic\0.dynstr\0", 53);
  size_t names_at = append(std::vector<uint8_t>(names.begin(), names.end()));
  f.resize((f.size() + 7) & ~size_t(7), 0);
  // Program headers: a PT_LOAD at 0x400000, and the note as PT_NOTE.
  size_t phoff = f.size();
  f.resize(f.size() + 2 * 56, 0);
  put(phoff, kPtLoad, 4);
  put(phoff + 16, 0x400000, 8);
  put(phoff + 32, 0x1000, 8);
  put(phoff + 40, 0x1000, 8);
  put(phoff + 56, s.note == Spec::kNone ? 6 : kPtNote, 4);  // PT_PHDR stands in for no note
  put(phoff + 56 + 8, note_at, 8);
  put(phoff + 56 + 32, note_size, 8);
  struct S {
    uint32_t name, type;
    uint64_t off, size;
  };
  std::vector<S> secs = {{0, 0, 0, 0}, {1, kShtProgbits, text_at, text.size()}};
  if (s.note == Spec::kSection) secs.push_back({7, 7, note_at, note_size});
  if (!s.soname.empty()) {
    secs.push_back({36, 6, dyn_at, 48});
    secs.push_back({45, 3, dynstr_at, 2 + s.soname.size()});
  }
  secs.push_back({26, 3, names_at, names.size()});
  size_t shoff = f.size();
  for (const S &sec : secs) {
    size_t at = f.size();
    f.resize(at + 64, 0);
    put(at, sec.name, 4);
    put(at + 4, sec.type, 4);
    put(at + 24, sec.off, 8);
    put(at + 32, sec.size, 8);
  }
  put(32, phoff, 8);
  put(40, shoff, 8);
  put(54, 56, 2);
  put(56, 2, 2);
  put(58, 64, 2);
  put(60, secs.size(), 2);
  put(62, secs.size() - 1, 2);
  return f;
}

ModuleIdentity identify(const Spec &s) {
  ElfImage img;
  std::string error;
  EXPECT_TRUE(elf_parse(build(s), img, error)) << error;
  ModuleIdentity id;
  EXPECT_TRUE(module_identity(img, id, error)) << error;
  return id;
}

TEST(BreakpadModuleId, BuildIdFromSectionOrSegmentInEitherByteOrder) {
  for (bool big : {false, true}) {
    Spec s;
    s.big = big;
    for (auto where : {Spec::kSection, Spec::kSegmentOnly}) {
      s.note = where;
      ModuleIdentity id = identify(s);
      EXPECT_TRUE(id.from_build_id);
      EXPECT_EQ(id.identifier, s.build_id);
      EXPECT_EQ(id.id, "33221100554477668899AABBCCDDEEFF0");
      EXPECT_EQ(id.code_id, "00112233445566778899AABBCCDDEEFF0123");
    }
  }
}

// Without a build-id: the first page of .text, 16 bytes at a time, XOR-ed; a last partial block
// reads on past the section's end, as Breakpad's loop does.
TEST(BreakpadModuleId, TextHashWithoutBuildId) {
  Spec s;
  s.note = Spec::kNone;
  std::vector<uint8_t> want(16, 0);
  std::vector<uint8_t> file = build(s);
  for (size_t i = 0; i < 48; i++) want[i % 16] ^= file[64 + i];  // 40 bytes of .text, 8 after
  ModuleIdentity id = identify(s);
  EXPECT_FALSE(id.from_build_id);
  EXPECT_EQ(id.identifier, want);
  EXPECT_EQ(id.code_id, code_id_text(want));
  EXPECT_EQ(id.code_id.size(), 32u);

  // More than a page: only the first 4096 bytes count.
  s.text_size = 5000;
  std::vector<uint8_t> big = build(s);
  std::vector<uint8_t> page(16, 0);
  for (size_t i = 0; i < 4096; i++) page[i % 16] ^= big[64 + i];
  EXPECT_EQ(identify(s).identifier, page);
}

// The recorded dump_syms lines of tests/unit/data/dwarf_small_x86_64.elf, which has no build-id.
TEST(BreakpadModuleId, TextHashEqualsDumpSyms) {
  std::vector<uint8_t> bytes;
  std::string error;
  ASSERT_TRUE(read_file(std::string(SFU_SOURCE_DIR) + "/tests/unit/data/dwarf_small_x86_64.elf", bytes, error));
  ElfImage img;
  ASSERT_TRUE(elf_parse(bytes, img, error)) << error;
  ModuleIdentity id;
  ASSERT_TRUE(module_identity(img, id, error)) << error;
  EXPECT_EQ(id.id, "CE3DB3F83F3BBA878BBB0A45DFD8D2210");
  EXPECT_EQ(id.code_id, "F8B33DCE3B3F87BA8BBB0A45DFD8D221");
  EXPECT_EQ(module_name(img, "tests/unit/data/dwarf_small_x86_64.elf"), "dwarf_small_x86_64.elf");
  std::vector<ElfSegment> segs;
  ASSERT_TRUE(read_segments(img, segs, error)) << error;
  EXPECT_EQ(load_address(segs), 0x400000u);
}

TEST(BreakpadModuleId, NameAndLoadAddress) {
  Spec s;
  ElfImage img;
  std::string error;
  ASSERT_TRUE(elf_parse(build(s), img, error)) << error;
  EXPECT_EQ(module_name(img, "/some/dir/kernel.elf"), "kernel.elf");
  EXPECT_EQ(module_name(img, "kernel.elf"), "kernel.elf");
  std::vector<ElfSegment> segs;
  ASSERT_TRUE(read_segments(img, segs, error)) << error;
  EXPECT_EQ(load_address(segs), 0x400000u);
  for (bool big : {false, true}) {
    s.big = big;
    s.soname = "libfirmware.so.1";
    ASSERT_TRUE(elf_parse(build(s), img, error)) << error;
    EXPECT_EQ(module_name(img, "/lib/x.so"), "libfirmware.so.1");
  }
}

TEST(BreakpadModuleId, Refusals) {
  Spec s;
  s.note = Spec::kNone;
  s.text_size = 0;
  ElfImage img;
  std::string error;
  ASSERT_TRUE(elf_parse(build(s), img, error)) << error;
  ModuleIdentity id;
  EXPECT_FALSE(module_identity(img, id, error));
  EXPECT_EQ(error, "no GNU build-id and no .text to identify the module by");

  // Program headers past the end of the file.
  std::vector<uint8_t> f = build(Spec{});
  f[32] = 0xf0;
  f[33] = 0xff;
  ASSERT_TRUE(elf_parse(f, img, error)) << error;
  std::vector<ElfSegment> segs;
  EXPECT_FALSE(read_segments(img, segs, error));
  EXPECT_EQ(error, "truncated ELF file (program headers)");
}

}  // namespace
}  // namespace sfu::tools::breakpad
