// sfu crash: decodes crash records (a binary record, or a serial log holding printed ones) with
// the images of their modules, matched by GNU build-id, and walks each stack again on the host.
#include "tools/commands/commands.h"
#include "tools/commands/images.h"
#include "tools/crash/report.h"

namespace sfu::tools::cli {
namespace {

// Exit status beyond cli.h's: decoded, but the host's walk disagrees with the device's. (A table
// the host refuses, so that it cannot walk, is a refusal: kExitFailed.)
constexpr int kExitDiffers = 3;

int run_crash(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {"--no-lines"}, {"--image", "--save-record"}, o)) return kExitUsage;
  if (o.files.size() != 1) return usage_error(self, "give one input: a record or a serial log");
  const std::string &input = o.files[0];
  std::vector<crash::CrashImage> images;
  int status = kExitOk;
  if (!load_crash_images(self, o, !o.has("--no-lines"), images, status)) return status;
  std::vector<uint8_t> bytes;
  std::vector<crash::FoundRecord> found;
  std::string error;
  if (!read_file(input, bytes, error) || !crash::find_records(bytes, input, found, error))
    return refused(self, input, error);
  // --save-record FILE: the bytes of the record decoded, as captured (one record only).
  const std::string save = o.value("--save-record");
  if (!save.empty() && found.size() != 1)
    return refused(self, input, "holds " + std::to_string(found.size()) + " records: --save-record takes one");

  crash::ReportOptions options;
  options.lines = !o.has("--no-lines");
  std::vector<bool> used(images.size(), false);
  for (size_t i = 0; i < found.size(); i++) {
    crash::RecordReport r;
    crash::report_record(found[i], images, options, r);
    std::string which = found.size() > 1 ? "record " + std::to_string(i + 1) + " of " + std::to_string(found.size()) + ": " : "";
    // Lines inside the record that were skipped (forged or damaged marker lines): said, not fatal.
    for (const std::string &note : found[i].notes)
      fprintf(stderr, "sfu %s: %s: note: %s%s\n", self.name, found[i].where.c_str(), which.c_str(), note.c_str());
    if (!r.text.empty()) {  // decoded, perhaps refused afterwards (a module's table): the trace stands
      if (i > 0) printf("\n");
      fputs(r.text.c_str(), stdout);
      fflush(stdout);
    }
    if (!r.error.empty()) {
      refused(self, found[i].where, which + r.error);
      status = kExitFailed;
      continue;
    }
    if (!save.empty() && !write_file(save, found[i].bytes, error)) return refused(self, save, error);
    for (size_t k = 0; k < used.size(); k++) used[k] = used[k] || r.used[k];
    if (r.differs && status == kExitOk) status = kExitDiffers;
  }
  // An image no decoded record has a module for is the wrong one: say so, never use it silently.
  for (size_t k = 0; k < images.size(); k++)
    if (!used[k] && status != kExitFailed) {
      refused(self, images[k].path, "its build-id " + crash::build_id_text(images[k].build_id) +
                                        " is none of the record's modules: the wrong image?");
      status = kExitFailed;
    }
  return status;
}

}  // namespace

const Command kCrashCommand = {
    "crash", "INPUT --image ELF[@ADDRESS] [--image ...] [--no-lines] [--save-record FILE]",
    "decode crash records (binary, or printed in a serial log) and walk their stacks again", run_crash};

}  // namespace sfu::tools::cli

// The walker's memory hook in this program: the stack windows of the record being walked again.
extern "C" int sfu_hook_read_nofault(void *dst, uint64_t src, size_t len) {
  return sfu::tools::crash::read_window_memory(dst, src, len);
}
