// sfu minidump: a crash record (binary, or the one record of a serial log) as a Breakpad
// minidump, or with --microdump as a microdump (arm64). The images give the modules' file names
// and load addresses, as Breakpad's symbol files know them.
#include "tools/breakpad/dump_input.h"
#include "tools/breakpad/microdump.h"
#include "tools/breakpad/minidump.h"
#include "tools/commands/commands.h"
#include "tools/commands/images.h"

namespace sfu::tools::cli {
namespace {

int run_minidump(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {"--microdump"}, {"--image", "-o"}, o)) return kExitUsage;
  if (o.files.size() != 1) return usage_error(self, "give one crash record (binary, or a serial log holding it)");
  const bool micro = o.has("--microdump");
  const std::string out_path = o.value("-o");
  if (out_path.empty() && !micro) return usage_error(self, "give the minidump's file with -o");
  const std::string &input = o.files[0];

  std::vector<crash::CrashImage> images;
  int status = kExitOk;
  if (!load_crash_images(self, o, false, images, status)) return status;
  std::string error;
  std::vector<uint8_t> bytes;
  if (!read_file(input, bytes, error)) return refused(self, input, error);
  breakpad::DumpInput in;
  if (!breakpad::read_dump_input(bytes, input, images, in, error)) return refused(self, input, error);
  if (!in.from_record) return refused(self, input, "a microdump: sfu minidump reads crash records");
  for (size_t m = 0; m < in.dump.modules.size(); m++)
    if (in.holds_frames[m] && in.image[m] < 0)
      return refused(self, input, "module " + std::to_string(m) + " (" + in.dump.modules[m].name +
                                      ") holds frames and no --image has its build-id: its file name and load "
                                      "address, which symbol files go by, are unknown");
  if (micro && in.dump.cpu != breakpad::DumpCpu::kArm64)
    return refused(self, input, std::string("the record is ") + breakpad::dump_cpu_name(in.dump.cpu) +
                                    ": Breakpad defines microdumps for arm, arm64, x86 (32-bit) and mips only; "
                                    "write a minidump instead");

  if (micro) {
    std::string text = breakpad::write_microdump(in.dump);
    if (out_path.empty()) {
      fputs(text.c_str(), stdout);
      return kExitOk;
    }
    if (!write_file(out_path, std::vector<uint8_t>(text.begin(), text.end()), error)) return refused(self, out_path, error);
  } else if (!write_file(out_path, breakpad::write_minidump(in.dump), error)) {
    return refused(self, out_path, error);
  }
  size_t stack = in.dump.stacks.empty() ? 0 : in.dump.stacks[0].bytes.size();
  printf("%s %s: %s, %s at 0x%llx, stack %zu bytes at 0x%llx", micro ? "microdump" : "minidump",
         out_path.c_str(), in.what.c_str(), in.dump.crash_reason.c_str(),
         static_cast<unsigned long long>(in.dump.crash_address), stack,
         static_cast<unsigned long long>(in.dump.stacks.empty() ? 0 : in.dump.stacks[0].base));
  for (const breakpad::DumpModule &m : in.dump.modules)
    printf("; module %s 0x%llx-0x%llx id %s", m.name.c_str(), static_cast<unsigned long long>(m.base),
           static_cast<unsigned long long>(m.base + m.size), m.debug_id.empty() ? "none" : m.debug_id.c_str());
  printf("\n");
  if (in.dump.stacks.size() > 1)
    printf("note: the record has %zu stack windows; Breakpad walks the thread's first (innermost) one only\n",
           in.dump.stacks.size());
  return kExitOk;
}

}  // namespace

const Command kMinidumpCommand = {
    "minidump",
    "RECORD --image ELF[@ADDRESS] [--image ...] -o OUT.dmp            a minidump (x86_64, arm64)\n"
    "RECORD --image ELF[@ADDRESS] [--image ...] --microdump [-o OUT]  a microdump, the text crash logs carry (arm64)",
    "write a crash record (binary, or in a serial log; images matched by build-id) as a Breakpad minidump or "
    "microdump",
    run_minidump};

}  // namespace sfu::tools::cli
