// `sfu crash`'s decoding of a record (tools/crash/report.h) for an image that ran away from its
// link address: the module placed by its recorded text range or by the address the user gives,
// names and the host's walk at link addresses, and each way placing it is refused.
#include <gtest/gtest.h>

#include "support/crash_machines.h"
#include "tools/crash/report.h"
#include "tools/elf/functions.h"

using namespace sfu::test;
using sfu::tools::ElfSectionHeader;
using sfu::tools::ElfSymbol;
using sfu::tools::crash::CrashImage;
using sfu::tools::crash::FoundRecord;
using sfu::tools::crash::RecordReport;
using sfu::tools::crash::ReportOptions;

namespace {

constexpr uint64_t kLinkText = 0x100000;

// What `sfu crash` loads from an ELF for the machine's kernel linked at kLinkText: .text holding
// [_stext, _etext), the three functions, its table at its link address, the build-id, no DWARF.
CrashImage kernel_image(uint8_t abi) {
  CrashImage img;
  img.path = "kernel.elf";
  img.abi = abi;
  img.build_id = kCrashBuildId;
  ElfSectionHeader text;
  text.name = ".text";
  text.addr = kLinkText;
  text.size = kCrashTextSize;
  text.flags = sfu::tools::kShfAlloc | sfu::tools::kShfExecinstr;
  img.elf.sections = {ElfSectionHeader{}, text};
  for (auto [name, value] : {std::pair{"_stext", kLinkText}, {"_etext", kLinkText + kCrashTextSize}}) {
    ElfSymbol s;
    s.name = name;
    s.value = value;
    s.shndx = 1;
    img.elf.symbols.push_back(s);
  }
  img.elf.functions = {{"outer", kLinkText, 0x40}, {"mid", kLinkText + 0x100, 0x40}, {"leaf", kLinkText + 0x300, 0x20}};
  CrashModuleOptions at_link;
  CrashMachine m = crash_machine(abi, at_link);
  img.table = {build_section(m.spec), m.spec.section_addr};
  img.has_table = true;
  img.table_from = ".sframe";
  return img;
}

// A record of the machine whose text ran at `run`.
FoundRecord record_at(uint8_t abi, uint64_t run) {
  CrashModuleOptions options;
  options.text = run;
  CrashMachine m = crash_machine(abi, options);
  Area area(8192);
  sfu_walk_config config = m.config();
  EXPECT_EQ(sfu_crash_capture(area.data(), area.size(), nullptr, &m.start, &config), SFU_OK);
  FoundRecord found;
  found.where = "record.bin";
  found.bytes.assign(area.data(), area.data() + area.size());
  return found;
}

RecordReport report(const FoundRecord &found, const std::vector<CrashImage> &images) {
  ReportOptions options;
  options.lines = false;  // the made-up image has no DWARF
  RecordReport out;
  sfu::tools::crash::report_record(found, images, options, out);
  return out;
}

bool has(const std::string &text, const std::string &part) { return text.find(part) != std::string::npos; }

TEST(CrashReport, AModuleMovedUpDownOrFarIsNamedAndWalkedAtItsLinkAddress) {
  struct Move {
    uint64_t run;
    const char *bias;
  } moves[] = {{kLinkText, nullptr}, {kLinkText + 0x60000000, "+0x60000000"}, {0x7f0000000000, "+0x7efffff00000"}};
  for (uint8_t abi : kCrashAbis)
    for (const Move &move : moves) {
      SCOPED_TRACE(std::to_string(abi) + " at " + std::to_string(move.run));
      std::vector<CrashImage> images;
      images.push_back(kernel_image(abi));
      RecordReport r = report(record_at(abi, move.run), images);
      EXPECT_EQ(r.error, "");
      EXPECT_FALSE(r.differs) << r.text;
      EXPECT_EQ(has(r.text, "moved "), move.bias != nullptr) << r.text;
      if (move.bias) {
        EXPECT_TRUE(has(r.text, std::string("  moved ") + move.bias + " from its link address: [_stext, _etext) "
                                "(link address 0x100000) ran at ")) << r.text;
      }
      EXPECT_TRUE(has(r.text, "kernel  leaf+0x")) << r.text;
      EXPECT_TRUE(has(r.text, "kernel  mid+0x")) << r.text;
      EXPECT_TRUE(has(r.text, "kernel  outer+0x")) << r.text;
      EXPECT_TRUE(has(r.text, "every frame the host could walk equals the device's")) << r.text;
    }
}

TEST(CrashReport, AModuleMovedDown) {
  // Linked 2 GiB up, run at the machine's usual place: a negative bias.
  std::vector<CrashImage> images;
  images.push_back(kernel_image(SFU_ABI_AARCH64_LE));
  CrashImage &img = images[0];
  const uint64_t up = 0x80000000;
  for (ElfSectionHeader &s : img.elf.sections) s.addr += s.size ? up : 0;
  for (ElfSymbol &s : img.elf.symbols) s.value += up;
  for (sfu::tools::ImageFunction &f : img.elf.functions) f.start += up;
  CrashModuleOptions linked;
  linked.text = kLinkText + up;
  CrashMachine m = crash_machine(SFU_ABI_AARCH64_LE, linked);
  img.table = {build_section(m.spec), m.spec.section_addr};
  m = CrashMachine{};
  RecordReport r = report(record_at(SFU_ABI_AARCH64_LE, kLinkText), images);
  EXPECT_EQ(r.error, "");
  EXPECT_TRUE(has(r.text, "  moved -0x80000000 from its link address")) << r.text;
  EXPECT_TRUE(has(r.text, "kernel  mid+0x14")) << r.text;
  EXPECT_FALSE(r.differs) << r.text;
}

TEST(CrashReport, WhereItRanCannotBeTold) {
  // No pair of symbols 0x1000 apart, and executable sections of another length.
  std::vector<CrashImage> images;
  images.push_back(kernel_image(SFU_ABI_AMD64_LE));
  images[0].elf.symbols.clear();
  images[0].elf.sections[1].size = 0x2000;
  RecordReport r = report(record_at(SFU_ABI_AMD64_LE, 0x40100000), images);
  EXPECT_EQ(r.error,
            "kernel.elf: cannot tell where module 0 (kernel) ran: its text range 0x40100000-0x40101000 is 0x1000 "
            "bytes: no two symbols of the image are that far apart around code (as the kernel's [_stext, _etext) "
            "would be), and its executable sections span 0x2000; give the image as --image kernel.elf@ADDRESS, "
            "ADDRESS the run-time address of its first loaded byte");
  EXPECT_EQ(r.text, "");  // nothing decoded with a guess
}

TEST(CrashReport, AGivenAddressNeedsTheImagesSegments) {
  // kernel.elf@ADDRESS places the first PT_LOAD; this made-up image has no program headers.
  // (tests/crash/moved.sh gives real images wrong addresses.)
  std::vector<CrashImage> images;
  images.push_back(kernel_image(SFU_ABI_AMD64_LE));
  images[0].placed = true;
  images[0].placed_at = 0x40000000;
  RecordReport r = report(record_at(SFU_ABI_AMD64_LE, 0x40100000), images);
  EXPECT_EQ(r.error, "kernel.elf@0x40000000: truncated ELF file (header)");
}

}  // namespace
