// What every `sfu` command shares: its row in the command table, the exit statuses, option
// parsing, and the one-line messages for a usage error and a refused input.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tools/elf/elf_file.h"
#include "tools/elf/functions.h"
#include "tools/text/format.h"

namespace sfu::tools::cli {

using Args = std::vector<std::string>;

// Exit status: 0 done, 1 the input was refused (one line on stderr says why), 2 usage error.
inline constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2;

struct Command {
  const char *name;
  const char *usage;    // argument lines, one per form, each without "sfu NAME"
  const char *summary;  // one line for `sfu help`
  int (*run)(const Command &self, const Args &args);
};

// "usage: sfu dump ELF" and one aligned line per further form.
void print_usage(FILE *to, const Command &c);

// "sfu NAME: WHY" and the usage on stderr; returns kExitUsage.
int usage_error(const Command &c, const std::string &why);

// "sfu NAME: FILE: WHY" on stderr; returns kExitFailed.
int refused(const Command &c, const std::string &file, const std::string &why);

// Parsed arguments: files, flags ("-v") and options with one value each, as a command allows.
struct Options {
  std::vector<std::string> files;
  std::set<std::string> flags;
  std::map<std::string, std::string> values;        // the last value of each option
  std::map<std::string, std::vector<std::string>> every;  // every value, in order (--image A --image B)
  bool has(const std::string &flag) const { return flags.count(flag) != 0; }
  std::string value(const std::string &name) const {
    auto it = values.find(name);
    return it == values.end() ? "" : it->second;
  }
  std::vector<std::string> all(const std::string &name) const {
    auto it = every.find(name);
    return it == every.end() ? std::vector<std::string>() : it->second;
  }
};

// Fills `o` from args; on an option the command does not take, prints the usage error and
// returns false (the command then exits with kExitUsage).
bool parse_options(const Command &self, const Args &args, const std::set<std::string> &flags,
                   const std::set<std::string> &with_value, Options &o);

// Addresses and hex: parse_address and hex of tools/text/format.h (namespace sfu::tools).

// Reads and parses an ELF image.
bool load_image(const std::string &path, ElfImage &image, std::string &error);

// An --image argument: "ELF", or "ELF@ADDRESS" for an image whose first loaded byte ran at
// ADDRESS (tools/elf/load_bias.h), e.g. firmware whose log says where it relocated itself.
struct ImageArgument {
  std::string path;
  bool placed = false;
  uint64_t address = 0;
};
// False with `error` when "@" is followed by a digit but not by an address ("@" followed by
// anything else is part of the file name).
bool parse_image_argument(const std::string &arg, ImageArgument &out, std::string &error);

}  // namespace sfu::tools::cli
