// sfu symbolize: name+0xoffset for addresses, from the image's symbol table.
#include "tools/commands/commands.h"

namespace sfu::tools::cli {
namespace {

int run_symbolize(const Command &self, const Args &args) {
  if (args.size() < 2) return usage_error(self, "give an image and at least one address");
  ElfImage image;
  std::string error;
  if (!load_image(args[0], image, error)) return refused(self, args[0], error);
  for (size_t i = 1; i < args.size(); i++) {
    uint64_t addr;
    if (!parse_address(args[i], addr)) return usage_error(self, "not an address: " + args[i]);
    printf("%s %s\n", hex(addr).c_str(), symbolize(image, addr).c_str());
  }
  return kExitOk;
}

}  // namespace

const Command kSymbolizeCommand = {"symbolize", "ELF ADDR...",
                                   "print name+0xoffset for each address, from the image's symbol table",
                                   run_symbolize};

}  // namespace sfu::tools::cli
