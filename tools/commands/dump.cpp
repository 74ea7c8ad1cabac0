// sfu dump: an .sframe section, from an ELF or a raw file, printed as binutils 2.46 objdump does.
#include <cctype>

#include "tools/commands/commands.h"
#include "tools/sframe/dump.h"

namespace sfu::tools::cli {
namespace {

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

}  // namespace

const Command kDumpCommand = {"dump", "ELF\n--raw SECTION.bin --base ADDR|FILE",
                              "print an .sframe section as binutils 2.46 objdump --sframe does", run_dump};

}  // namespace sfu::tools::cli
