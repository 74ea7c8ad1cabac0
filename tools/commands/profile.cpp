// sfu profile: the profiles a device printed (docs/profile-format.md) in a log, summed and named
// from the images, as a table of functions, folded stacks, pprof or an SVG flame graph.
#include <cerrno>
#include <cstring>

#include "tools/commands/commands.h"
#include "tools/commands/images.h"
#include "tools/profile/output.h"
#include "tools/profile/read.h"

namespace sfu::tools::cli {
namespace {

int run_profile(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {}, {"--image", "--format", "-o"}, o)) return kExitUsage;
  if (o.files.size() != 1) return usage_error(self, "give one log");
  const std::string &log = o.files[0];
  std::string format = o.values.count("--format") ? o.value("--format") : "top";
  if (format != "top" && format != "folded" && format != "pprof" && format != "svg")
    return usage_error(self, "--format is top, folded, pprof or svg, not " + format);
  const std::string output = o.value("-o");
  // pprof is binary: to a file, never to a terminal by default.
  if (format == "pprof" && output.empty()) return usage_error(self, "--format pprof writes a file: give -o FILE");

  std::vector<crash::CrashImage> images;
  int status = kExitOk;
  if (!load_crash_images(self, o, true, images, status)) return status;
  std::vector<uint8_t> bytes;
  std::string error;
  if (!read_file(log, bytes, error)) return refused(self, log, error);
  std::vector<profile::PrintedProfile> profiles;
  profile::ReadError read_error;
  if (!profile::read_profiles(std::string(bytes.begin(), bytes.end()), profiles, read_error))
    return refused(self, log, read_error.text());
  profile::Summed summed;
  profile::SumError sum_error;
  if (!profile::sum_profiles(profiles, images, summed, sum_error)) {
    if (!sum_error.image.empty()) return refused(self, sum_error.image, sum_error.name + " (" + sum_error.detail + ")");
    return refused(self, log, profile::ReadError{sum_error.name, sum_error.line, sum_error.detail}.text());
  }

  std::vector<uint8_t> out;
  if (format == "pprof") {
    out = profile::pprof_bytes(summed, images);
  } else {
    std::string text = format == "top"      ? profile::top_text(summed)
                       : format == "folded" ? profile::folded_text(summed)
                                            : profile::flame_svg(summed, "sfu profile: " + log);
    out.assign(text.begin(), text.end());
  }
  if (!output.empty()) {
    if (!write_file(output, out, error)) return refused(self, output, error);
  } else if (fwrite(out.data(), 1, out.size(), stdout) != out.size() || fflush(stdout) != 0) {
    return refused(self, "(stdout)", std::string("cannot write: ") + std::strerror(errno));
  }
  return kExitOk;
}

}  // namespace

const Command kProfileCommand = {
    "profile", "LOG --image ELF[@ADDRESS] [--image ...] [--format top|folded|pprof|svg] [-o OUT]",
    "sampling profiles printed by the device: a table of functions, folded stacks, pprof, an SVG flame graph",
    run_profile};

}  // namespace sfu::tools::cli
