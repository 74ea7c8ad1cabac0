// Where an image ran (tools/elf/load_bias.h): the load bias from the text range a device reported,
// for images moved up, down, by more than their own size, not at all, and the ranges it cannot
// place, each refused with the reason.
#include <gtest/gtest.h>

#include "tools/elf/load_bias.h"

using sfu::tools::bias_text;
using sfu::tools::ElfImage;
using sfu::tools::ElfSectionHeader;
using sfu::tools::ElfSymbol;
using sfu::tools::find_load_bias;
using sfu::tools::holds_code;
using sfu::tools::LoadBias;

namespace {

constexpr uint64_t kCode = sfu::tools::kShfAlloc | sfu::tools::kShfExecinstr;

ElfSectionHeader section(const char *name, uint64_t addr, uint64_t size, uint64_t flags) {
  ElfSectionHeader s;
  s.name = name;
  s.addr = addr;
  s.size = size;
  s.flags = flags;
  return s;
}

ElfSymbol symbol(const char *name, uint64_t value, uint8_t type = sfu::tools::kSymNotype) {
  ElfSymbol s;
  s.name = name;
  s.value = value;
  s.type = type;
  s.shndx = 1;
  return s;
}

// A kernel linked at `link`: a boot section, then .text [_stext, _etext) of 0x3000 bytes with two
// functions, then .rodata.
ElfImage kernel(uint64_t link) {
  ElfImage img;
  img.sections = {section("", 0, 0, 0), section(".head.text", link, 0x100, kCode),
                  section(".text", link + 0x1000, 0x3000, kCode), section(".rodata", link + 0x4000, 0x800, 2)};
  img.symbols = {symbol("_start", link, sfu::tools::kSymFunc), symbol("_stext", link + 0x1000),
                 symbol("kernel_main", link + 0x1000, sfu::tools::kSymFunc),
                 symbol("panic", link + 0x2000, sfu::tools::kSymFunc), symbol("_etext", link + 0x4000),
                 symbol("kernel.c", 0, sfu::tools::kSymFile)};
  return img;
}

LoadBias found(const ElfImage &img, uint64_t start, uint64_t end) {
  LoadBias b;
  std::string error;
  EXPECT_TRUE(find_load_bias(img, start, end, b, error)) << error;
  return b;
}

std::string refused(const ElfImage &img, uint64_t start, uint64_t end) {
  LoadBias b;
  std::string error;
  EXPECT_FALSE(find_load_bias(img, start, end, b, error)) << b.how;
  return error;
}

TEST(LoadBias, AtItsLinkAddress) {
  LoadBias b = found(kernel(0x100000), 0x101000, 0x104000);
  EXPECT_EQ(b.bias, 0u);
  EXPECT_EQ(b.how, "[_stext, _etext) (link address 0x101000) ran at 0x101000");
}

TEST(LoadBias, MovedUpDownAndFarther_thanItsOwnSize) {
  const ElfImage img = kernel(0x100000);
  // Firmware relocated to the top of RAM, 1.5 GiB up.
  EXPECT_EQ(found(img, 0x60101000, 0x60104000).bias, 0x60000000u);
  // Linked at 2 GiB and moved down: a negative bias, modulo 2^64.
  EXPECT_EQ(found(kernel(0x80000000), 0x1000, 0x4000).bias, uint64_t(-0x80000000ll));
  EXPECT_EQ(bias_text(uint64_t(-0x80000000ll)), "-0x80000000");
  // A higher-half kernel run in low memory: 2^64 - 0x7ffff000 below is 0xc0080000 above.
  uint64_t wrapped = found(kernel(0xffffffff80000000), 0x40081000, 0x40084000).bias;
  EXPECT_EQ(wrapped, 0xc0080000u);
  EXPECT_EQ(wrapped + 0xffffffff80001000u, 0x40081000u);
  // Moved by a page, so that the run-time range overlaps the link-time one.
  EXPECT_EQ(found(img, 0x102000, 0x105000).bias, 0x1000u);
  EXPECT_EQ(bias_text(0x1000), "+0x1000");
  EXPECT_EQ(bias_text(0), "0");
}

TEST(LoadBias, ThePairTheKernelRegisteredWhateverItsNames) {
  // [__executable_start, etext) as a host program registers it: from the first loaded byte.
  ElfImage img = kernel(0x400000);
  img.symbols.push_back(symbol("__executable_start", 0x400000));
  img.symbols.push_back(symbol("etext", 0x404000));
  LoadBias b = found(img, 0x7f0000000000, 0x7f0000004000);
  EXPECT_EQ(b.bias, 0x7f0000000000u - 0x400000u);
  EXPECT_EQ(b.how, "[__executable_start, _etext/etext) (link address 0x400000) ran at 0x7f0000000000");
}

TEST(LoadBias, NeitherLocalLabelsNorMappingSymbols) {
  // aarch64's $x/$d and .L labels mark places, not ranges a kernel registers: no pair of theirs
  // counts, and they are not named.
  ElfImage img = kernel(0x40080000);
  img.machine = sfu::tools::kEmAarch64;
  img.symbols.push_back(symbol("$x", 0x40081000));
  img.symbols.push_back(symbol("$x", 0x40083000));
  img.symbols.push_back(symbol("$d", 0x40083800));
  img.symbols.push_back(symbol(".Lloop", 0x40083100));
  img.symbols.push_back(symbol(".Lend", 0x40083900));
  EXPECT_EQ(found(img, 0x43c2c000, 0x43c2f000).how, "[_stext, _etext) (link address 0x40081000) ran at 0x43c2c000");
  EXPECT_EQ(refused(img, 0x43c2c000, 0x43c2c800).substr(0, 45), "its text range 0x43c2c000-0x43c2c800 is 0x800");
}

TEST(LoadBias, OfSeveralPairsTheUnmovedOneThen_stext) {
  // Two symbol pairs 0x3000 apart around code: [_stext, _etext) and [_start, mid), mid at 0x103000.
  ElfImage img = kernel(0x100000);
  img.symbols.push_back(symbol("mid", 0x103000));
  EXPECT_EQ(found(img, 0x100000, 0x103000).bias, 0u);  // the range is one pair's own: not moved
  EXPECT_EQ(found(img, 0x80101000, 0x80104000).bias, 0x80000000u);  // moved: _stext decides
  // Without _stext, the one pair of labels: _start is a function.
  std::erase_if(img.symbols, [](const ElfSymbol &s) { return s.name == "_stext"; });
  img.symbols.push_back(symbol("text_begin", 0x101000));
  EXPECT_EQ(found(img, 0x80101000, 0x80104000).how, "[text_begin, _etext) (link address 0x101000) ran at 0x80101000");
  // Two pairs of labels: refused, both named.
  img.symbols.push_back(symbol("image_begin", 0x100000));
  EXPECT_EQ(refused(img, 0x80101000, 0x80104000),
            "its text range 0x80101000-0x80104000 (0x3000 bytes) fits 2 places of the image: [image_begin, mid) at "
            "0x100000, [text_begin, _etext) at 0x101000");
}

TEST(LoadBias, APairOfLabelsOverAFunctionAndAnObjectThatFarApart) {
  // A program's [__executable_start, etext), and by chance a function and a switch table in
  // .rodata as far apart: the labels are the range it registered.
  ElfImage img = kernel(0x400000);
  img.symbols.push_back(symbol("__executable_start", 0x400000));
  img.symbols.push_back(symbol("etext", 0x404000));
  img.symbols.push_back(symbol("cold", 0x400400, sfu::tools::kSymFunc));
  img.symbols.push_back(symbol("CSWTCH.33", 0x404400, sfu::tools::kSymObject));
  EXPECT_EQ(found(img, 0x55e9bb938000, 0x55e9bb93c000).how,
            "[__executable_start, _etext/etext) (link address 0x400000) ran at 0x55e9bb938000");
}

TEST(LoadBias, WithoutAPairTheExecutableSectionsWhole) {
  ElfImage img = kernel(0x100000);
  img.symbols.clear();  // stripped
  LoadBias b = found(img, 0x40100000, 0x40104000);
  EXPECT_EQ(b.bias, 0x40000000u);
  EXPECT_EQ(b.how, "the executable sections (link address 0x100000) ran at 0x40100000");
  EXPECT_EQ(refused(img, 0x40100000, 0x40102000),
            "its text range 0x40100000-0x40102000 is 0x2000 bytes: no two symbols of the image are that far "
            "apart around code (as the kernel's [_stext, _etext) would be), and its executable sections span 0x4000");
}

TEST(LoadBias, RangesItCannotPlace) {
  const ElfImage img = kernel(0x100000);
  EXPECT_EQ(refused(img, 0x5000, 0x5000), "its text range 0x5000-0x5000 is empty");
  EXPECT_EQ(refused(img, 0x6000, 0x5000), "its text range 0x6000-0x5000 is empty");
  // Symbols that far apart exist, but not around code: .rodata's own pair does not count.
  ElfImage data = kernel(0x100000);
  data.symbols = {symbol("__rodata_start", 0x104000), symbol("__rodata_mid", 0x104400)};
  EXPECT_EQ(refused(data, 0x40000000, 0x40000400),
            "its text range 0x40000000-0x40000400 is 0x400 bytes: no two symbols of the image are that far apart "
            "around code (as the kernel's [_stext, _etext) would be), and its executable sections span 0x4000");
  ElfImage none;
  EXPECT_EQ(refused(none, 0x1000, 0x2000),
            "its text range 0x1000-0x2000 is 0x1000 bytes: no two symbols of the image are that far apart around "
            "code (as the kernel's [_stext, _etext) would be), and it has no executable section");
}

TEST(LoadBias, HoldsCode) {
  const ElfImage img = kernel(0x100000);
  EXPECT_TRUE(holds_code(img, 0x100000, 0x100001));
  EXPECT_TRUE(holds_code(img, 0x103fff, 0x105000));
  EXPECT_FALSE(holds_code(img, 0x100100, 0x101000));  // between .head.text and .text
  EXPECT_FALSE(holds_code(img, 0x104000, 0x104800));  // .rodata
}

}  // namespace
