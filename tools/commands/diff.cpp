// sfu diff: the .sframe rows of two images of the same code, compared address by address.
#include "tools/commands/commands.h"
#include "tools/sframe/diff.h"
#include "tools/sframe/rows.h"

namespace sfu::tools::cli {
namespace {

int run_diff(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {"-v"}, {}, o)) return kExitUsage;
  if (o.files.size() != 2) return usage_error(self, "give two images");
  ElfImage images[2];
  std::vector<SframeFunction> fns[2];
  for (int i = 0; i < 2; i++) {
    std::string error;
    uint8_t abi = 0;
    if (!load_image(o.files[i], images[i], error) || !read_image_sframe(images[i], abi, fns[i], error))
      return refused(self, o.files[i], error);
  }
  DiffReport report;
  diff_tables(fns[0], fns[1], report);
  if (o.has("-v")) {
    for (const RowDifference &d : report.differences)
      printf("differs at %s (%s): %s; %s\n", symbolize(images[0], d.address).c_str(), hex(d.address).c_str(),
             d.first.c_str(), d.second.c_str());
    for (int i = 0; i < 2; i++)
      for (uint64_t start : i ? report.only_second : report.only_first)
        printf("only in %s: %s (%s)\n", o.files[i].c_str(), symbolize(images[i], start).c_str(), hex(start).c_str());
    for (uint64_t start : report.skipped)
      printf("skipped: %s (%s), a PLT-like (PCMASK) function\n", symbolize(images[0], start).c_str(), hex(start).c_str());
  }
  printf("diff: %zu functions, %zu ranges, %zu differences, %zu only in %s, %zu only in %s\n", report.functions,
         report.ranges, report.differences.size(), report.only_first.size(), o.files[0].c_str(),
         report.only_second.size(), o.files[1].c_str());
  return report.differences.empty() ? kExitOk : kExitFailed;
}

}  // namespace

const Command kDiffCommand = {"diff", "A.elf B.elf [-v]", "compare the .sframe rows of two images of the same code",
                              run_diff};

}  // namespace sfu::tools::cli
