// sfu verify: an image's .sframe rules checked against its DWARF CFI; with --raw, a raw binary
// of it checked for what the device reads at run time (tools/elf/raw_image.h).
#include "tools/commands/commands.h"
#include "tools/dwarf/image_cfi.h"
#include "tools/elf/raw_image.h"
#include "tools/sframe/rows.h"
#include "tools/sframe/verify.h"

namespace sfu::tools::cli {
namespace {

// Warnings from the ELF alone: a piece the device reads that no load puts in its memory.
void warn_placement(const Command &self, const std::string &path, const ElfImage &image) {
  std::vector<ElfSegment> segments;
  std::string ignored;
  if (!read_segments(image, segments, ignored)) return;
  for (const std::string &w : placement_problems(image, segments))
    fprintf(stderr, "sfu %s: %s: warning: %s\n", self.name, path.c_str(), w.c_str());
}

// --raw: the raw image holds the table, the names and the build-id note where objcopy puts them.
int verify_raw(const Command &self, const std::string &path, const ElfImage &image, const std::string &raw_path) {
  std::vector<ElfSegment> segments;
  std::vector<uint8_t> raw;
  std::string error;
  if (!read_segments(image, segments, error)) return refused(self, path, error);
  std::vector<RuntimePiece> pieces = runtime_pieces(image);
  if (pieces.empty() || pieces[0].kind != PieceKind::table)
    return refused(self, path, "no SFrame table (.sframe, or __sfu_sframe_start and __sfu_sframe_end) to look for "
                               "in a raw image");
  if (!read_file(raw_path, raw, error)) return refused(self, raw_path, error);
  RawCheck check;
  if (!check_raw_image(image, segments, raw, check, error)) return refused(self, raw_path, error);
  std::string kept;
  for (const std::string &k : check.kept) kept += (kept.empty() ? "" : ", ") + k;
  printf("raw: %s starts at %s (%s); as in the ELF: %s\n", raw_path.c_str(), hex(check.base).c_str(),
         check.first.c_str(), kept.empty() ? "nothing" : kept.c_str());
  for (const std::string &w : check.warnings)
    fprintf(stderr, "sfu %s: %s: warning: %s\n", self.name, raw_path.c_str(), w.c_str());
  for (const std::string &p : check.problems)
    fprintf(stderr, "sfu %s: %s: %s\n", self.name, raw_path.c_str(), p.c_str());
  return check.problems.empty() ? kExitOk : kExitFailed;
}

int run_verify(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {"-v"}, {"--raw"}, o)) return kExitUsage;
  if (o.files.size() != 1) return usage_error(self, "give one image");
  bool raw = o.values.count("--raw") != 0;
  if (raw && o.has("-v")) return usage_error(self, "--raw checks the raw image, not the rows: -v does not go with it");
  const std::string &path = o.files[0];
  ElfImage image;
  std::string error;
  if (raw) {
    if (!load_image(path, image, error)) return refused(self, path, error);
    warn_placement(self, path, image);
    return verify_raw(self, path, image, o.value("--raw"));
  }
  std::vector<cfi::Fde> fdes;
  std::vector<SframeFunction> fns;
  uint8_t table_abi = 0;
  if (!load_image(path, image, error) || !read_image_cfi(image, fdes, error) ||
      !read_image_sframe(image, table_abi, fns, error))
    return refused(self, path, error);
  uint8_t abi = image_abi(image);
  if (abi == 0) return refused(self, path, "not an x86_64, aarch64 or s390x image");
  // Register numbers and the SP rule are the image's: a table for another ABI cannot agree.
  if (!fns.empty() && table_abi != abi) return refused(self, path, "the .sframe table is for another ABI than the image");
  warn_placement(self, path, image);
  VerifyReport report;
  verify_rows(fdes, fns, abi, report);
  if (o.has("-v")) {
    for (const Mismatch &m : report.mismatches)
      printf("mismatch at %s (%s): sframe %s; cfi %s\n", symbolize(image, m.address).c_str(), hex(m.address).c_str(),
             m.sframe.c_str(), m.cfi.c_str());
    for (uint64_t start : report.not_covered)
      printf("not covered: %s (%s)\n", symbolize(image, start).c_str(), hex(start).c_str());
    if (report.pcmask_addresses)
      printf("PLT-like (PCMASK) functions: %zu addresses compared one by one, the CFI's CFA expression "
             "evaluated at each\n",
             report.pcmask_addresses);
  }
  printf("verify: %zu functions, %zu ranges, %zu mismatches, %zu not covered\n", report.functions, report.ranges,
         report.mismatches.size(), report.not_covered.size());
  return report.mismatches.empty() ? kExitOk : kExitFailed;
}

}  // namespace

const Command kVerifyCommand = {"verify", "ELF [-v]\nELF --raw IMAGE.bin",
                                "check the image's .sframe rules against its DWARF CFI, or that a raw binary of it "
                                "(objcopy -O binary) holds what the device reads",
                                run_verify};

}  // namespace sfu::tools::cli
