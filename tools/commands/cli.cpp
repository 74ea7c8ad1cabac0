#include "tools/commands/cli.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace sfu::tools::cli {

void print_usage(FILE *to, const Command &c) {
  std::string usage = c.usage;
  const char *lead = "usage: ";
  for (size_t at = 0; at <= usage.size();) {
    size_t nl = usage.find('\n', at);
    if (nl == std::string::npos) nl = usage.size();
    fprintf(to, "%ssfu %s %s\n", lead, c.name, usage.substr(at, nl - at).c_str());
    lead = "       ";
    at = nl + 1;
  }
}

int usage_error(const Command &c, const std::string &why) {
  fprintf(stderr, "sfu %s: %s\n", c.name, why.c_str());
  print_usage(stderr, c);
  return kExitUsage;
}

int refused(const Command &c, const std::string &file, const std::string &why) {
  fprintf(stderr, "sfu %s: %s: %s\n", c.name, file.c_str(), why.c_str());
  return kExitFailed;
}

bool parse_options(const Command &self, const Args &args, const std::set<std::string> &flags,
                   const std::set<std::string> &with_value, Options &o) {
  for (size_t i = 0; i < args.size(); i++) {
    const std::string &a = args[i];
    if (flags.count(a)) {
      o.flags.insert(a);
    } else if (with_value.count(a)) {
      if (i + 1 == args.size()) {
        usage_error(self, a + " needs a value");
        return false;
      }
      o.values[a] = args[++i];
      o.every[a].push_back(o.values[a]);
    } else if (!a.empty() && a[0] == '-') {
      usage_error(self, "unknown option " + a);
      return false;
    } else {
      o.files.push_back(a);
    }
  }
  return true;
}

bool load_image(const std::string &path, ElfImage &image, std::string &error) {
  std::vector<uint8_t> file;
  return read_file(path, file, error) && elf_parse(std::move(file), image, error);
}

bool parse_image_argument(const std::string &arg, ImageArgument &out, std::string &error) {
  out = ImageArgument{arg};
  size_t at = arg.rfind('@');
  if (at == std::string::npos || at + 1 >= arg.size() || !std::isdigit(static_cast<unsigned char>(arg[at + 1])))
    return true;
  if (at == 0 || !parse_address(arg.substr(at + 1), out.address))
    return (error = "--image " + arg + ": not ELF@ADDRESS (ADDRESS: where the image's first loaded byte ran)", false);
  out.path = arg.substr(0, at);
  out.placed = true;
  return true;
}

}  // namespace sfu::tools::cli
