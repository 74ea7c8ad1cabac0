// sfu gen: an .sframe table built from the image's DWARF CFI, written into a copy of the image.
#include "tools/commands/commands.h"
#include "tools/dwarf/image_cfi.h"
#include "tools/sframe/encode.h"
#include "tools/sframe/gen.h"

namespace sfu::tools::cli {
namespace {

int run_gen(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {"-v", "--print-size"}, {"-o", "--sframe-version"}, o)) return kExitUsage;
  std::string out_path = o.value("-o"), version_text = o.value("--sframe-version");
  if (o.files.size() != 1) return usage_error(self, "give one input image");
  if (out_path.empty() == !o.has("--print-size")) return usage_error(self, "give -o OUT.elf or --print-size");
  EncodeOptions enc;
  if (!version_text.empty()) {
    if (version_text != "1" && version_text != "2" && version_text != "3")
      return usage_error(self, "--sframe-version is 1, 2 or 3");
    enc.version = uint8_t(version_text[0] - '0');
  }
  const std::string &in_path = o.files[0];
  ElfImage image;
  std::string error;
  if (!load_image(in_path, image, error)) return refused(self, in_path, error);
  enc.abi = image_abi(image);
  if (enc.abi == 0) return refused(self, in_path, "not an x86_64, aarch64 or s390x image");
  // Written in place when the image has a .sframe section (its address is the table's base);
  // otherwise appended, not loaded, as if at address 0.
  const ElfSectionHeader *existing = image.section(".sframe");
  enc.section_addr = existing ? existing->addr : 0;

  std::vector<cfi::Fde> fdes;
  if (!read_image_cfi(image, fdes, error)) return refused(self, in_path, error);
  if (fdes.empty()) return refused(self, in_path, "no DWARF CFI (.eh_frame or .debug_frame) to build from");
  Generated gen;
  generate_rows(fdes, enc, gen);
  std::vector<uint8_t> table;
  if (!encode_sframe(enc, gen.functions, table, error)) return refused(self, in_path, error);
  if (o.has("--print-size")) {
    printf("%zu\n", table.size());
    return kExitOk;
  }
  std::vector<uint8_t> out;
  if (!elf_with_section(image, ".sframe", table, out, error)) return refused(self, in_path, error);
  if (!write_file(out_path, out, error)) return refused(self, out_path, error);
  printf("gen: %zu functions, %zu rows, %zu left out, %zu bytes (SFrame V%d, %s)\n", gen.functions.size(),
         gen.rows(), gen.left_out.size(), table.size(), int(enc.version),
         existing ? "written into .sframe" : "appended as .sframe, not loaded");
  if (o.has("-v"))
    for (const LeftOut &l : gen.left_out)
      printf("left out: %s (%s..%s) at %s: %s\n", symbolize(image, l.start).c_str(), hex(l.start).c_str(),
             hex(l.end).c_str(), symbolize(image, l.at).c_str(), l.reason.c_str());
  return kExitOk;
}

}  // namespace

const Command kGenCommand = {
    "gen", "IN.elf -o OUT.elf [--sframe-version 1|2|3] [-v]\nIN.elf --print-size [--sframe-version 1|2|3]",
    "build an .sframe table from the image's DWARF CFI and write it into a copy", run_gen};

}  // namespace sfu::tools::cli
