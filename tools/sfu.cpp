// sfu: the host tool. `sfu COMMAND ARGS...`; each command is one row of kCommands.
// Exit status: 0 done, 1 the input was refused (one line on stderr says why), 2 usage error.
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "dump.h"
#include "elf_file.h"
#include "image_cfi.h"
#include "sframe_diff.h"
#include "sframe_encode.h"
#include "sframe_gen.h"
#include "sframe_rows.h"
#include "sframe_verify.h"
#include "sfu/sframe.h"

namespace {

using namespace sfu::tools;
using Args = std::vector<std::string>;

constexpr int kExitOk = 0, kExitFailed = 1, kExitUsage = 2;

struct Command {
  const char *name;
  const char *usage;    // argument lines, one per form, each without "sfu NAME"
  const char *summary;  // one line for `sfu help`
  int (*run)(const Command &self, const Args &args);
};

int run_help(const Command &self, const Args &args);
int run_dump(const Command &self, const Args &args);
int run_gen(const Command &self, const Args &args);
int run_verify(const Command &self, const Args &args);
int run_diff(const Command &self, const Args &args);
int run_symbolize(const Command &self, const Args &args);

const Command kCommands[] = {
    {"help", "[COMMAND]", "show this text, or one command's usage", run_help},
    {"dump", "ELF\n--raw SECTION.bin --base ADDR|FILE",
     "print an .sframe section as binutils 2.46 objdump --sframe does", run_dump},
    {"gen", "IN.elf -o OUT.elf [--sframe-version 1|2|3] [-v]\nIN.elf --print-size [--sframe-version 1|2|3]",
     "build an .sframe table from the image's DWARF CFI and write it into a copy", run_gen},
    {"verify", "ELF [-v]", "check the image's .sframe rules against its DWARF CFI", run_verify},
    {"diff", "A.elf B.elf [-v]", "compare the .sframe rows of two images of the same code", run_diff},
    {"symbolize", "ELF ADDR...", "print name+0xoffset for each address, from the image's symbol table",
     run_symbolize},
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

int run_help(const Command &self, const Args &args) {
  if (args.empty()) {
    print_overview(stdout);
    return kExitOk;
  }
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

// Parsed arguments: files, flags ("-v") and options with one value each, as a command allows.
struct Options {
  std::vector<std::string> files;
  std::set<std::string> flags;
  std::map<std::string, std::string> values;
  bool has(const std::string &flag) const { return flags.count(flag) != 0; }
  std::string value(const std::string &name) const {
    auto it = values.find(name);
    return it == values.end() ? "" : it->second;
  }
};

// Fills `o` from args; on an option the command does not take, prints the usage error and
// returns false (the command then exits with kExitUsage).
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
    } else if (!a.empty() && a[0] == '-') {
      usage_error(self, "unknown option " + a);
      return false;
    } else {
      o.files.push_back(a);
    }
  }
  return true;
}

int run_dump(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {}, {"--raw", "--base"}, o)) return kExitUsage;
  if (o.files.size() > 1) return usage_error(self, "more than one file");
  std::string elf = o.files.empty() ? "" : o.files[0], raw = o.value("--raw"), base_text = o.value("--base");
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

int refused(const Command &c, const std::string &file, const std::string &why) {
  fprintf(stderr, "sfu %s: %s: %s\n", c.name, file.c_str(), why.c_str());
  return kExitFailed;
}

bool load_image(const std::string &path, ElfImage &image, std::string &error) {
  std::vector<uint8_t> file;
  return read_file(path, file, error) && elf_parse(std::move(file), image, error);
}

// The image's .sframe, read back as functions; an empty section is a table without functions.
bool load_sframe(const ElfImage &image, uint8_t &abi, std::vector<SframeFunction> &fns, std::string &error) {
  ElfSection sec;
  if (!elf_section_bytes(image, ".sframe", sec, error)) return false;
  sfu_error e = read_sframe_functions(sec.bytes, sec.addr, abi, fns);
  if (e == SFU_E_EMPTY) return true;
  if (e != SFU_OK) error = std::string("invalid SFrame section: ") + sfu_error_name(e);
  return e == SFU_OK;
}

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
  return buf;
}

int run_gen(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {"-v", "--print-size"}, {"-o", "--sframe-version"}, o)) return kExitUsage;
  std::string out_path = o.value("-o"), version_text = o.value("--sframe-version");
  if (o.files.size() != 1) return usage_error(self, "give one input image");
  if (out_path.empty() == !o.has("--print-size")) return usage_error(self, "give -o OUT.elf or --print-size");
  EncodeOptions enc;
  if (!version_text.empty()) {
    if (version_text != "1" && version_text != "2" && version_text != "3")
      return usage_error(self, "--sframe-version is 1, 2 or 3");
    enc.version = uint8_t(version_text[0] - '0');
  }
  const std::string &in_path = o.files[0];
  ElfImage image;
  std::string error;
  if (!load_image(in_path, image, error)) return refused(self, in_path, error);
  enc.abi = image_abi(image);
  if (enc.abi == 0) return refused(self, in_path, "not an x86_64, aarch64 or s390x image");
  // Written in place when the image has a .sframe section (its address is the table's base);
  // otherwise appended, not loaded, as if at address 0.
  const ElfSectionHeader *existing = image.section(".sframe");
  enc.section_addr = existing ? existing->addr : 0;

  std::vector<cfi::Fde> fdes;
  if (!read_image_cfi(image, fdes, error)) return refused(self, in_path, error);
  if (fdes.empty()) return refused(self, in_path, "no DWARF CFI (.eh_frame or .debug_frame) to build from");
  Generated gen;
  generate_rows(fdes, enc, gen);
  std::vector<uint8_t> table;
  if (!encode_sframe(enc, gen.functions, table, error)) return refused(self, in_path, error);
  if (o.has("--print-size")) {
    printf("%zu\n", table.size());
    return kExitOk;
  }
  std::vector<uint8_t> out;
  if (!elf_with_section(image, ".sframe", table, out, error)) return refused(self, in_path, error);
  if (!write_file(out_path, out, error)) return refused(self, out_path, error);
  printf("gen: %zu functions, %zu rows, %zu left out, %zu bytes (SFrame V%d, %s)\n", gen.functions.size(),
         gen.rows(), gen.left_out.size(), table.size(), int(enc.version),
         existing ? "written into .sframe" : "appended as .sframe, not loaded");
  if (o.has("-v"))
    for (const LeftOut &l : gen.left_out)
      printf("left out: %s (%s..%s) at %s: %s\n", symbolize(image, l.start).c_str(), hex(l.start).c_str(),
             hex(l.end).c_str(), symbolize(image, l.at).c_str(), l.reason.c_str());
  return kExitOk;
}

int run_verify(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {"-v"}, {}, o)) return kExitUsage;
  if (o.files.size() != 1) return usage_error(self, "give one image");
  const std::string &path = o.files[0];
  ElfImage image;
  std::string error;
  std::vector<cfi::Fde> fdes;
  std::vector<SframeFunction> fns;
  uint8_t table_abi = 0;
  if (!load_image(path, image, error) || !read_image_cfi(image, fdes, error) ||
      !load_sframe(image, table_abi, fns, error))
    return refused(self, path, error);
  uint8_t abi = image_abi(image);
  if (abi == 0) return refused(self, path, "not an x86_64, aarch64 or s390x image");
  // Register numbers and the SP rule are the image's: a table for another ABI cannot agree.
  if (!fns.empty() && table_abi != abi) return refused(self, path, "the .sframe table is for another ABI than the image");
  VerifyReport report;
  verify_rows(fdes, fns, abi, report);
  if (o.has("-v")) {
    for (const Mismatch &m : report.mismatches)
      printf("mismatch at %s (%s): sframe %s; cfi %s\n", symbolize(image, m.address).c_str(), hex(m.address).c_str(),
             m.sframe.c_str(), m.cfi.c_str());
    for (uint64_t start : report.not_covered)
      printf("not covered: %s (%s)\n", symbolize(image, start).c_str(), hex(start).c_str());
    if (report.skipped_ranges)
      printf("skipped: %zu ranges in PLT-like (PCMASK) functions, whose CFI is an expression of the PC\n",
             report.skipped_ranges);
  }
  printf("verify: %zu functions, %zu ranges, %zu mismatches, %zu not covered\n", report.functions, report.ranges,
         report.mismatches.size(), report.not_covered.size());
  return report.mismatches.empty() ? kExitOk : kExitFailed;
}

int run_diff(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args, {"-v"}, {}, o)) return kExitUsage;
  if (o.files.size() != 2) return usage_error(self, "give two images");
  ElfImage images[2];
  std::vector<SframeFunction> fns[2];
  for (int i = 0; i < 2; i++) {
    std::string error;
    uint8_t abi = 0;
    if (!load_image(o.files[i], images[i], error) || !load_sframe(images[i], abi, fns[i], error))
      return refused(self, o.files[i], error);
  }
  DiffReport report;
  diff_tables(fns[0], fns[1], report);
  if (o.has("-v")) {
    for (const RowDifference &d : report.differences)
      printf("differs at %s (%s): %s; %s\n", symbolize(images[0], d.address).c_str(), hex(d.address).c_str(),
             d.first.c_str(), d.second.c_str());
    for (int i = 0; i < 2; i++)
      for (uint64_t start : i ? report.only_second : report.only_first)
        printf("only in %s: %s (%s)\n", o.files[i].c_str(), symbolize(images[i], start).c_str(), hex(start).c_str());
    for (uint64_t start : report.skipped)
      printf("skipped: %s (%s), a PLT-like (PCMASK) function\n", symbolize(images[0], start).c_str(), hex(start).c_str());
  }
  printf("diff: %zu functions, %zu ranges, %zu differences, %zu only in %s, %zu only in %s\n", report.functions,
         report.ranges, report.differences.size(), report.only_first.size(), o.files[0].c_str(),
         report.only_second.size(), o.files[1].c_str());
  return report.differences.empty() ? kExitOk : kExitFailed;
}

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
  return c->run(*c, Args(argv + 2, argv + argc));
}
