// The source lookup (tools/dwarf/source.h) and addr2line's answers (tools/dwarf/addr2line.h) on
// small real images built from tests/unit/data/dwarf_small.c (gcc, DWARF 5 and 4, x86_64 and
// big-endian s390x, and one without DWARF); the demangler; and every byte of the real debug
// sections changed or cut: a named refusal or lookups that stay in bounds (ASan, UBSan).
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "tools/dwarf/addr2line.h"
#include "tools/dwarf/source.h"
#include "tools/elf/elf_file.h"
#include "tools/elf/symbol_table.h"

namespace sfu::tools::dwarf {
namespace {

const std::string kData = std::string(SFU_SOURCE_DIR) + "/tests/unit/data/";
const std::string kSource = "/work/main/tests/unit/data/dwarf_small.c";  // as the images record it

ElfImage load_elf(const std::string &name) {
  std::vector<uint8_t> bytes;
  std::string error;
  EXPECT_TRUE(read_file(kData + name, bytes, error)) << error;
  ElfImage image;
  EXPECT_TRUE(elf_parse(bytes, image, error)) << error;
  return image;
}

uint64_t symbol(const ElfImage &image, const std::string &name) {
  for (const ElfSymbol &s : image.symbols)
    if (s.name == name) return s.value;
  ADD_FAILURE() << "no symbol " << name;
  return 0;
}

struct Image {
  ElfImage elf;
  SourceImage src;
};

Image load(const std::string &name) {
  Image i;
  i.elf = load_elf(name);
  std::string error;
  EXPECT_TRUE(i.src.load(i.elf, error)) << error;
  return i;
}

// The first address of `fn` whose innermost frame is the inlined `add`.
uint64_t inlined_add(const Image &i, const std::string &fn, uint64_t size) {
  uint64_t start = symbol(i.elf, fn);
  for (uint64_t a = start; a < start + size; a++) {
    auto frames = i.src.frames_at(a);
    if (!frames.empty() && frames[0].function == "add") return a;
  }
  ADD_FAILURE() << "no inlined add in " << fn;
  return 0;
}

// An image, the line of compute's first instruction, and the file addr2line gives the assembly
// label (from the STT_FILE symbol before it, which binutils takes for a global symbol only when
// no other symbol comes between: not so in the s390x image).
struct Small {
  const char *name;
  uint32_t entry_line;
  const char *label_file;
};

class SmallImageTest : public ::testing::TestWithParam<Small> {};

TEST_P(SmallImageTest, InlineChainInnermostFirst) {
  Image i = load(GetParam().name);
  ASSERT_TRUE(i.src.has_debug_info());
  uint64_t a = inlined_add(i, "compute", 0x20);
  auto frames = i.src.frames_at(a);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].function, "add");
  EXPECT_EQ(frames[0].file, kSource);
  EXPECT_EQ(frames[0].line, 4u);
  EXPECT_TRUE(frames[0].inlined);
  EXPECT_EQ(frames[1].function, "compute");
  EXPECT_EQ(frames[1].file, kSource);
  EXPECT_EQ(frames[1].line, 9u) << "the line of the inlined call";
  EXPECT_FALSE(frames[1].inlined);
  // compute's first instruction: one frame, the line of its opening brace.
  frames = i.src.frames_at(symbol(i.elf, "compute"));
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].function, "compute");
  EXPECT_EQ(frames[0].line, GetParam().entry_line);
  // An assembly label without DWARF for it, and an address in no section.
  EXPECT_TRUE(i.src.frames_at(symbol(i.elf, "asm_label")).empty());
  EXPECT_TRUE(i.src.frames_at(0x10).empty());
}

TEST_P(SmallImageTest, Addr2lineAnswers) {
  Image i = load(GetParam().name);
  Addr2line a2l(i.src);
  uint64_t a = inlined_add(i, "compute", 0x20);
  EXPECT_EQ(a2l.lookup(a, false), "add\n" + kSource + ":4\ncompute\n" + kSource + ":9\n");
  EXPECT_EQ(a2l.lookup(symbol(i.elf, "compute"), true),
            "compute\n" + kSource + ":" + std::to_string(GetParam().entry_line) + "\n");
  // No DWARF for the label: the symbol, and the file of the STT_FILE symbol before it.
  EXPECT_EQ(a2l.lookup(symbol(i.elf, "asm_label") + 1, false),
            std::string("asm_label\n") + GetParam().label_file + ":?\n");
  EXPECT_EQ(a2l.lookup(0x10, false), "??\n??:0\n");
}

INSTANTIATE_TEST_SUITE_P(Dwarf, SmallImageTest,
                         ::testing::Values(Small{"dwarf_small_x86_64.elf", 7, "dwarf_small.c"},
                                           Small{"dwarf_small_dwarf4.elf", 7, "dwarf_small.c"},
                                           Small{"dwarf_small_s390x.elf", 8, "??"}));

TEST(DwarfSourceTest, ImageWithoutDwarf) {
  Image i = load("dwarf_small_nodebug.elf");
  EXPECT_FALSE(i.src.has_debug_info());
  EXPECT_TRUE(i.src.frames_at(symbol(i.elf, "compute")).empty());
  Addr2line a2l(i.src);
  EXPECT_EQ(a2l.lookup(symbol(i.elf, "compute") + 4, false), "compute\n??:?\n");
  EXPECT_EQ(a2l.lookup(symbol(i.elf, "asm_label"), false), "asm_label\n??:?\n");
}

TEST(DwarfSourceTest, Demangle) {
  EXPECT_EQ(demangle("_ZN3foo3barEv"), "foo::bar()");
  EXPECT_EQ(demangle("_Z3fooi.constprop.0"), "foo(int) [clone .constprop.0]");
  EXPECT_EQ(demangle("_ZN3foo3barEv@@LIB_1.0"), "foo::bar()@@LIB_1.0");
  EXPECT_EQ(demangle("._Z1fv"), ".f()");
  EXPECT_EQ(demangle("_GLOBAL__I__Z1fv"), "global constructors keyed to f()");
  EXPECT_EQ(demangle("_GLOBAL__sub_I_gtest_all.cc"), "_GLOBAL__sub_I_gtest_all.cc");
  EXPECT_EQ(demangle("main"), "main");
  EXPECT_EQ(demangle("i"), "i") << "types are not demangled, as addr2line does not";
  EXPECT_EQ(demangle("_Z"), "_Z");
  EXPECT_EQ(demangle(""), "");
}

// The ELF file with section `name`'s bytes changed by `edit`, or its size set to `size`.
struct Mutable {
  ElfImage image;
  std::vector<uint8_t> bytes;
  uint64_t shoff = 0;
  explicit Mutable(const std::string &name) : image(load_elf(name)), bytes(image.file) {
    for (int i = 0; i < 8; i++) shoff |= uint64_t(bytes[40 + i]) << (8 * i);  // little-endian image
  }
  const ElfSectionHeader &section(const std::string &name) const { return *image.section(name); }
  std::vector<uint8_t> resized(const ElfSectionHeader &s, uint64_t size) const {
    std::vector<uint8_t> out = bytes;
    for (int i = 0; i < 8; i++) out[shoff + s.index * 64 + 32 + i] = uint8_t(size >> (8 * i));
    return out;
  }
};

// Loads `bytes`: a refusal must be one named message; an accepted image must answer every
// lookup over its code without reading out of bounds (the sanitizers watch).
void load_and_look(const std::vector<uint8_t> &bytes, const std::string &what, size_t &refused) {
  static const std::regex message(R"(^(\.debug_[a-z_]+\+0x[0-9a-f]+: [a-z0-9-]+( \(.*\))?|truncated ELF file .*)$)");
  ElfImage image;
  std::string error;
  ASSERT_TRUE(elf_parse(bytes, image, error)) << what;
  SourceImage src;
  if (!src.load(image, error)) {
    EXPECT_TRUE(std::regex_match(error, message)) << what << ": " << error;
    refused++;
    return;
  }
  Addr2line a2l(src);
  const ElfSectionHeader *text = image.section(".text");
  for (uint64_t a = text->addr - 1; a <= text->addr + text->size; a++) {
    src.frames_at(a);
    a2l.lookup(a, (a & 1) != 0);
  }
}

TEST(DwarfCorruptionTest, EveryByteOfEveryDebugSection) {
  Mutable m("dwarf_small_x86_64.elf");
  size_t changed = 0, refused = 0;
  for (const ElfSectionHeader &s : m.image.sections) {
    if (s.name.rfind(".debug_", 0) != 0) continue;
    for (uint64_t at = s.offset; at < s.offset + s.size; at++) {
      for (uint8_t mutation : {0x00, 0xff, 0x80, 0x7f}) {
        std::vector<uint8_t> bytes = m.bytes;
        if (bytes[at] == mutation) continue;
        bytes[at] = mutation;
        changed++;
        load_and_look(bytes, s.name + " byte " + std::to_string(at - s.offset), refused);
      }
    }
  }
  EXPECT_GT(changed, 3000u);
  EXPECT_GT(refused, 100u) << "some changes must be refused";
}

TEST(DwarfCorruptionTest, EveryTruncationOfEveryDebugSection) {
  Mutable m("dwarf_small_x86_64.elf");
  size_t refused = 0, cut = 0;
  for (const ElfSectionHeader &s : m.image.sections) {
    if (s.name.rfind(".debug_", 0) != 0) continue;
    for (uint64_t size = 0; size < s.size; size++) {
      cut++;
      load_and_look(m.resized(s, size), s.name + " cut to " + std::to_string(size), refused);
    }
  }
  EXPECT_GT(cut, 800u);
  EXPECT_GT(refused, cut / 2);
}

TEST(DwarfCorruptionTest, RefusalNamesSectionAndOffset) {
  Mutable m("dwarf_small_x86_64.elf");
  const ElfSectionHeader &info = m.section(".debug_info");
  std::vector<uint8_t> bytes = m.bytes;
  bytes[info.offset + 4] = 9;  // the first unit's version
  ElfImage image;
  std::string error;
  ASSERT_TRUE(elf_parse(bytes, image, error));
  SourceImage src;
  ASSERT_FALSE(src.load(image, error));
  EXPECT_EQ(error, ".debug_info+0x04: bad-version (version 9)");
  // Cut .debug_line inside the header: named at the field that does not fit.
  ASSERT_TRUE(elf_parse(m.resized(m.section(".debug_line"), 20), image, error));
  ASSERT_FALSE(src.load(image, error));
  EXPECT_EQ(error.rfind(".debug_line+0x", 0), 0u) << error;
}

}  // namespace
}  // namespace sfu::tools::dwarf
