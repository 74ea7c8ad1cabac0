// sfu: the host tool. `sfu COMMAND ARGS...`; each command is one row of kCommands.
// Exit status: 0 done, 1 the input was refused (one line on stderr says why), 2 usage error.
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "dump.h"
#include "elf_file.h"
#include "sfu/sframe.h"

namespace {

using namespace sfu::tools;
using Args = std::vector<std::string>;

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2;

struct Command {
  const char *name;
  const char *usage;    // argument lines, one per form, each without "sfu NAME"
  const char *summary;  // one line for `sfu help`
  int (*run)(const Args &args);
};

int run_help(const Args &args);
int run_dump(const Args &args);

const Command kCommands[] = {
    {"help", "[COMMAND]", "show this text, or one command's usage", run_help},
    {"dump", "ELF\n--raw SECTION.bin --base ADDR|FILE",
     "print an .sframe section as binutils 2.46 objdump --sframe does", run_dump},
};

const Command *find_command(const std::string &name) {
  for (const Command &c : kCommands)
    if (name == c.name) return &c;
  return nullptr;
}

// "usage: sfu dump ELF" and one aligned line per further form.
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

void print_overview(FILE *to) {
  fprintf(to, "usage: sfu COMMAND [ARGS...]\n\ncommands:\n");
  for (const Command &c : kCommands) fprintf(to, "  %-10s %s\n", c.name, c.summary);
  fprintf(to, "\n`sfu help COMMAND` shows a command's arguments.\n");
}

int usage_error(const Command &c, const std::string &why) {
  fprintf(stderr, "sfu %s: %s\n", c.name, why.c_str());
  print_usage(stderr, c);
  return kExitUsage;
}

int run_help(const Args &args) {
  if (args.empty()) {
    print_overview(stdout);
    return kExitOk;
  }
  const Command &self = *find_command("help");
  if (args.size() > 1) return usage_error(self, "one command at a time");
  const Command *c = find_command(args[0]);
  if (!c) return usage_error(self, "no such command: " + args[0]);
  print_usage(stdout, *c);
  return kExitOk;
}

// An address: hex with 0x, or decimal. The whole string must be the number.
bool parse_address(const std::string &s, uint64_t &out) {
  bool hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const char *digits = s.c_str() + (hex ? 2 : 0);
  // strtoull would accept a sign or leading blanks: only digits may follow.
  if (*digits == '\0' || !std::isxdigit(static_cast<unsigned char>(*digits))) return false;
  errno = 0;
  char *end;
  out = std::strtoull(digits, &end, hex ? 16 : 10);
  return errno == 0 && *end == '\0';
}

// --base takes the address itself, or a file holding it (as the corpus's section_base does):
// "0x402000" with an optional trailing newline.
bool parse_base(const std::string &arg, uint64_t &out) {
  if (parse_address(arg, out)) return true;
  std::vector<uint8_t> file;
  std::string ignored;
  if (!read_file(arg, file, ignored)) return false;
  std::string text(file.begin(), file.end());
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.pop_back();
  return parse_address(text, out);
}

// The bytes of an SFrame section and the address it is loaded at.
struct SectionInput {
  std::string label;  // the file named in messages
  std::vector<uint8_t> bytes;
  uint64_t addr = 0;
};

bool load_raw(const std::string &path, uint64_t base, SectionInput &in, std::string &error) {
  in.label = path;
  in.addr = base;
  return read_file(path, in.bytes, error);
}

bool load_elf(const std::string &path, SectionInput &in, std::string &error) {
  in.label = path;
  std::vector<uint8_t> file;
  ElfSection sec;
  if (!read_file(path, file, error) || !elf_find_section(file, ".sframe", sec, error)) return false;
  in.bytes = std::move(sec.bytes);
  in.addr = sec.addr;
  return true;
}

int run_dump(const Args &args) {
  const Command &self = *find_command("dump");
  std::string elf, raw, base_text;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string &a = args[i];
    if (a == "--raw" || a == "--base") {
      if (i + 1 == args.size()) return usage_error(self, a + " needs a value");
      (a == "--raw" ? raw : base_text) = args[++i];
    } else if (!a.empty() && a[0] == '-') {
      return usage_error(self, "unknown option " + a);
    } else if (!elf.empty()) {
      return usage_error(self, "more than one file");
    } else {
      elf = a;
    }
  }
  bool raw_form = !raw.empty() && !base_text.empty() && elf.empty();
  bool elf_form = !elf.empty() && raw.empty() && base_text.empty();
  if (!raw_form && !elf_form) return usage_error(self, "give an ELF file, or --raw and --base");
  uint64_t base = 0;
  if (raw_form && !parse_base(base_text, base))
    return usage_error(self, "--base needs an address (0x... or decimal) or a file holding one: " + base_text);

  SectionInput in;
  std::string error;
  if (!(raw_form ? load_raw(raw, base, in, error) : load_elf(elf, in, error))) {
    fprintf(stderr, "sfu dump: %s: %s\n", in.label.c_str(), error.c_str());
    return kExitFailed;
  }

  // text_end 0: no text range to check the functions against. Open and validate rather than
  // sfu_table_init: the tool validates in full even when .config turns registration-time
  // validation off, because the dump reads every row.
  sfu_table_desc desc{in.bytes.data(), in.bytes.size(), in.addr, 0, 0, SFU_ABI_ANY};
  sfu_table table;
  sfu_error e = sfu_table_open(&table, &desc);
  if (e == SFU_OK) e = sfu_table_validate(&table);
  if (e == SFU_E_EMPTY) {  // a linker may keep an empty .sframe: objdump prints nothing for it
    fprintf(stderr, "sfu dump: %s: empty SFrame section, no table to dump\n", in.label.c_str());
    return kExitOk;
  }
  std::string text;
  if (e == SFU_OK) e = dump_table(table, text);
  if (e != SFU_OK) {
    fprintf(stderr, "sfu dump: %s: invalid SFrame section: %s\n", in.label.c_str(),
            sfu_error_name(e));
    return kExitFailed;
  }
  fwrite(text.data(), 1, text.size(), stdout);
  if (fflush(stdout) != 0) {
    fprintf(stderr, "sfu dump: cannot write the output\n");
    return kExitFailed;
  }
  return kExitOk;
}

}  // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    print_overview(stderr);
    return kExitUsage;
  }
  const Command *c = find_command(argv[1]);
  if (!c) {
    fprintf(stderr, "sfu: no such command: %s\n", argv[1]);
    print_overview(stderr);
    return kExitUsage;
  }
  return c->run(Args(argv + 2, argv + argc));
}
