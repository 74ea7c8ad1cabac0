// sfu verify: an image's .sframe rules checked against its DWARF CFI.
#include "tools/commands/commands.h"
#include "tools/dwarf/image_cfi.h"
#include "tools/sframe/rows.h"
#include "tools/sframe/verify.h"

namespace sfu::tools::cli {
namespace {

int run_verify(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {"-v"}, {}, o)) return kExitUsage;
  if (o.files.size() != 1) return usage_error(self, "give one image");
  const std::string &path = o.files[0];
  ElfImage image;
  std::string error;
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

const Command kVerifyCommand = {"verify", "ELF [-v]", "check the image's .sframe rules against its DWARF CFI",
                                run_verify};

}  // namespace sfu::tools::cli
