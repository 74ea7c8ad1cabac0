// sfu stackwalk: Breakpad's stack walk of a crash record (binary, or inside a serial log) or an
// arm64 microdump, with symbols from Breakpad symbol directories and/or ELF images; -m prints the
// frame lines of Breakpad's stackwalkers' machine-readable output.
#include "tools/breakpad/dump_input.h"
#include "tools/commands/commands.h"
#include "tools/commands/images.h"

namespace sfu::tools::cli {
namespace {

int run_stackwalk(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {"-m"}, {"--image"}, o)) return kExitUsage;
  if (o.files.empty()) return usage_error(self, "give a dump: a crash record, a serial log or a microdump");
  const std::string input = o.files[0];
  const std::vector<std::string> roots(o.files.begin() + 1, o.files.end());

  std::vector<crash::CrashImage> images;
  int status = kExitOk;
  if (!o.all("--image").empty() && !load_crash_images(self, o, true, images, status)) return status;
  std::string error;
  std::vector<uint8_t> bytes;
  if (!read_file(input, bytes, error)) return refused(self, input, error);
  breakpad::DumpInput in;
  if (!breakpad::read_dump_input(bytes, input, images, in, error)) return refused(self, input, error);
  breakpad::WalkSymbols symbols;
  if (!breakpad::find_walk_symbols(in, images, roots, symbols, error)) return refused(self, input, error);
  breakpad::WalkResult walk;
  breakpad::stackwalk(in.dump, symbols.per_module, walk);

  if (o.has("-m")) {
    fputs(breakpad::machine_frames(in.dump, walk).c_str(), stdout);
    return kExitOk;
  }
  const breakpad::CrashDump &d = in.dump;
  printf("%s\n", in.what.c_str());
  printf("crash: %s (signal %u, code %u) at %s", d.crash_reason.c_str(), d.signal, d.signal_code,
         hex(d.crash_address).c_str());
  if (in.from_record) printf("; the record's reason 0x%x, detail 0x%x", d.reason, d.detail);
  printf("\n");
  if (!d.message.empty()) printf("message: %s\n", d.message.c_str());
  for (size_t m = 0; m < d.modules.size(); m++) {
    const breakpad::DumpModule &mod = d.modules[m];
    printf("module %zu: %s %s-%s id %s, symbols: %s\n", m, mod.name.c_str(), hex(mod.base).c_str(),
           hex(mod.base + mod.size).c_str(), mod.debug_id.empty() ? "none" : mod.debug_id.c_str(),
           symbols.source[m].empty() ? "none found" : symbols.source[m].c_str());
  }
  if (!d.stacks.empty())
    printf("stack: %s-%s (%zu bytes)%s\n", hex(d.stacks[0].base).c_str(),
           hex(d.stacks[0].base + d.stacks[0].bytes.size()).c_str(), d.stacks[0].bytes.size(),
           d.stacks.size() > 1 ? " (and more windows Breakpad does not walk)" : "");
  printf("frames:\n%s", breakpad::readable_frames(d, walk).c_str());
  return kExitOk;
}

}  // namespace

const Command kStackwalkCommand = {
    "stackwalk",
    "DUMP [SYMBOL-PATH...] [--image ELF[@ADDRESS]...]     a readable trace of a crash record (binary or in a log) or microdump\n"
    "-m DUMP [SYMBOL-PATH...] [--image ELF[@ADDRESS]...]  Breakpad's frame lines: thread|frame|module|function|file|line|offset",
    "walk a crash record or an arm64 microdump as Breakpad's stackwalkers do, with symbol directories "
    "(NAME/ID/NAME.sym) and/or images",
    run_stackwalk};

}  // namespace sfu::tools::cli
