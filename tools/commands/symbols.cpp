// sfu symbols: the .sfu_symbols table `sfu gen` wrote, read back through the core's reader: every
// function, or the name the device would print for given addresses.
#include "tools/commands/commands.h"
#include "tools/symbols/read.h"

namespace sfu::tools::cli {
namespace {

int run_symbols(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {}, {}, o)) return kExitUsage;
  if (o.files.empty()) return usage_error(self, "give an image");
  const std::vector<std::string> &files = o.files;
  std::vector<uint64_t> addrs;
  for (size_t i = 1; i < files.size(); i++) {
    uint64_t a;
    if (!parse_address(files[i], a)) return usage_error(self, "not an address: " + files[i]);
    addrs.push_back(a);
  }
  ElfImage image;
  ElfSection section;
  sfu_symbols view;
  std::string error;
  if (!load_image(files[0], image, error) || !open_symbols(image, section, view, error))
    return refused(self, files[0], error);
  if (!addrs.empty()) {
    for (uint64_t a : addrs) printf("%s %s\n", hex(a).c_str(), symbol_at(view, a, a).c_str());
    return kExitOk;
  }
  SymbolTableStats s = symbol_stats(view);
  printf("symbols: %zu functions, %zu bytes, %zu tokens, names %zu bytes for %zu raw (%.3f), section at %s\n",
         s.functions, s.bytes, s.tokens, s.name_bytes, s.raw_name_bytes,
         s.raw_name_bytes ? double(s.name_bytes) / double(s.raw_name_bytes) : 0.0, hex(section.addr).c_str());
  for (uint32_t i = 0; i < view.num_symbols; i++) {
    sfu_symbol sym;
    if (sfu_symbols_entry(&view, i, &sym) != SFU_OK) return refused(self, files[0], "entry unreadable");
    printf("0x%016llx 0x%-6llx %s\n", (unsigned long long)sym.start, (unsigned long long)sym.size,
           symbol_name(view, sym).c_str());
  }
  return kExitOk;
}

}  // namespace

const Command kSymbolsCommand = {
    "symbols", "ELF [ADDR...]",
    "list the .sfu_symbols table (or name each address as the device would), read by the core's reader",
    run_symbols};

}  // namespace sfu::tools::cli
