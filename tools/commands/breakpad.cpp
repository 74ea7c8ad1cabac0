// sfu breakpad: the Breakpad symbol file of an ELF image (tools/breakpad/sym_dump.h), on standard
// output, into a file, or into a symbol store laid out as Breakpad's processors look for it.
#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "tools/breakpad/sym_dump.h"
#include "tools/commands/commands.h"

namespace sfu::tools::cli {
namespace {

// mkdir -p.
bool make_dirs(const std::string &path, std::string &error) {
  for (size_t at = 1; at <= path.size(); at++) {
    if (at < path.size() && path[at] != '/') continue;
    std::string dir = path.substr(0, at);
    if (mkdir(dir.c_str(), 0777) != 0 && errno != EEXIST)
      return (error = "cannot create " + dir + ": " + std::strerror(errno), false);
  }
  return true;
}

int run_breakpad(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {"-m"}, {"-o", "--symbol-dir"}, o)) return kExitUsage;
  if (o.files.size() != 1) return usage_error(self, "give one image");
  if (o.values.count("-o") && o.values.count("--symbol-dir")) return usage_error(self, "-o or --symbol-dir, not both");
  const std::string &path = o.files[0];
  ElfImage image;
  breakpad::SymDumpOptions options;
  options.multiple = o.has("-m");
  breakpad::SymDump dump;
  std::string error;
  if (!load_image(path, image, error) || !breakpad::dump_symbols(image, path, options, dump, error))
    return refused(self, path, error);
  std::string out = o.value("-o");
  if (o.values.count("--symbol-dir")) {
    std::string dir = o.value("--symbol-dir") + "/" + dump.name + "/" + dump.id;
    if (!make_dirs(dir, error)) return refused(self, path, error);
    out = dir + "/" + dump.name + ".sym";
  }
  if (out.empty()) {
    fwrite(dump.text.data(), 1, dump.text.size(), stdout);
    return kExitOk;
  }
  if (!write_file(out, std::vector<uint8_t>(dump.text.begin(), dump.text.end()), error))
    return refused(self, out, error);
  printf("breakpad: %zu FUNC, %zu PUBLIC, %zu STACK CFI INIT%s, written to %s\n", dump.functions, dump.publics,
         dump.stack_entries, dump.stack_from.empty() ? "" : (" (from " + dump.stack_from + ")").c_str(), out.c_str());
  return kExitOk;
}

}  // namespace

const Command kBreakpadCommand = {
    "breakpad",
    "[-m] ELF [-o FILE | --symbol-dir DIR]  what `dump_syms -d [-m]` writes, to stdout, FILE, or DIR/NAME/ID/NAME.sym",
    "write the image's Breakpad symbol file (.sym): functions, lines, inlines, publics, STACK CFI",
    run_breakpad};

}  // namespace sfu::tools::cli
