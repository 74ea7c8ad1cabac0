// sfu gen: an .sframe table built from the image's DWARF CFI and a .sfu_symbols table of its
// functions, written into a copy of the image.
#include <new>

#include "tools/commands/commands.h"
#include "sfu/symbols.h"
#include "tools/dwarf/image_cfi.h"
#include "tools/elf/raw_image.h"
#include "tools/sframe/encode.h"
#include "tools/sframe/gen.h"
#include "tools/symbols/select.h"

namespace sfu::tools::cli {
namespace {

constexpr const char *kSymbolsSection = ".sfu_symbols";

// The symbol table: what it holds, where it goes.
struct SymbolsPlan {
  bool wanted = false;
  const ElfSectionHeader *reserved = nullptr;  // the image's .sfu_symbols, if it has one
  SymbolRange range;
  uint64_t base = 0;  // the address function starts are relative to
  std::vector<uint8_t> table;
  SymbolTableStats stats;
};

bool build_symbols(const ElfImage &image, const std::string &range_spec, SymbolsPlan &plan, std::string &error) {
  if (!symbol_range(image, range_spec, plan.range, error)) return false;
  std::vector<SymbolFunction> functions = select_functions(image, plan.range);
  if (functions.empty()) {
    error = "no function symbols in " + plan.range.label + " to write into .sfu_symbols (a stripped image?); "
            "--no-symbols skips the symbol table";
    return false;
  }
  SymbolEncodeOptions opt;
  opt.big_endian = image.big_endian;
  // Appended, the table is relative to its first function (the section header says so).
  plan.base = opt.section_addr = plan.reserved ? plan.reserved->addr : functions.front().start;
  return encode_symbols(functions, opt, plan.table, plan.stats, error);
}

// The crash-record area (linker/sfunwind-crash.ld) under a PT_LOAD segment's file contents
// [p_vaddr, p_vaddr + p_filesz): whatever loads the image, an ELF loader or a copy of a raw binary
// (objcopy -O binary keeps those bytes too), writes them over the area, so no record survives a
// reset. The segment's index, or -1. The part of a segment past its file contents (p_memsz only,
// where GNU ld puts a NOLOAD section after .bss when the script has no PHDRS) is not reported:
// an ELF loader zeroes it, a raw binary's loader never sees it, and which one loads the image is
// not in the image (linker/README.md, "Crash records"). Program headers outside the file are not
// looked at.
int crash_area_segment(const ElfImage &image) {
  const ElfSectionHeader *area = image.section(".sfu_crash");
  std::vector<ElfSegment> segments;
  std::string ignored;
  if (!area || area->size == 0 || !read_segments(image, segments, ignored)) return -1;
  for (size_t i = 0; i < segments.size(); i++) {
    const ElfSegment &seg = segments[i];
    if (seg.type != kPtLoad || seg.filesz == 0) continue;
    if (area->addr < seg.vaddr + seg.filesz && seg.vaddr < area->addr + area->size) return int(i);
  }
  return -1;
}

std::string symbols_summary(const SymbolsPlan &p) {
  char buf[256];
  snprintf(buf, sizeof buf, "symbols: %zu functions in %s, %zu bytes, names %.3f of raw (%s)", p.stats.functions,
           p.range.label.c_str(), p.stats.bytes, double(p.stats.name_bytes) / double(p.stats.raw_name_bytes),
           p.reserved ? "written into .sfu_symbols" : "appended as .sfu_symbols, not loaded");
  return buf;
}

int run_gen(const Command &self, const Args &args) {
  Options o;
  if (!parse_options(self, args,
                     {"-v", "--print-size", "--print-defsym", "--symbols", "--no-symbols", "--symbols-only"},
                     {"-o", "--sframe-version", "--symbols-range"}, o))
    return kExitUsage;
  std::string out_path = o.value("-o"), version_text = o.value("--sframe-version");
  bool print_size = o.has("--print-size"), print_defsym = o.has("--print-defsym");
  bool only = o.has("--symbols-only");
  if (o.files.size() != 1) return usage_error(self, "give one input image");
  if (print_size && print_defsym) return usage_error(self, "give --print-size or --print-defsym, not both");
  if (out_path.empty() == !(print_size || print_defsym))
    return usage_error(self, "give -o OUT.elf or --print-size");
  if (o.has("--no-symbols") && (o.has("--symbols") || only))
    return usage_error(self, "--no-symbols with --symbols or --symbols-only");
  if (only && !version_text.empty()) return usage_error(self, "--symbols-only writes no SFrame table");
  std::string range_error;
  if (!symbol_range_syntax(o.value("--symbols-range"), range_error)) return usage_error(self, range_error);
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
  // Once per link: by the run that writes the image, not by the sizing runs before it.
  if (int seg = crash_area_segment(image); seg >= 0 && !print_size && !print_defsym)
    fprintf(stderr, "sfu gen: %s: warning: .sfu_crash lies in the file contents of loadable segment %d: every "
            "load of the image writes them over the area, so a crash record there does not survive a reset; "
            "place linker/sfunwind-crash.ld after every section with contents (after .bss)\n", in_path.c_str(), seg);
  // Likewise a piece the device reads (table, names, build-id note) that no load puts in memory.
  std::vector<ElfSegment> segs;
  if (std::string ignored; !print_size && !print_defsym && read_segments(image, segs, ignored))
    for (const std::string &w : placement_problems(image, segs))
      fprintf(stderr, "sfu gen: %s: warning: %s\n", in_path.c_str(), w.c_str());

  // Symbols: asked for, or on by default where the image reserves room for them.
  SymbolsPlan sym;
  sym.reserved = image.section(kSymbolsSection);
  sym.wanted = only || o.has("--symbols") || (sym.reserved && !o.has("--no-symbols"));
  if (!sym.wanted && !o.value("--symbols-range").empty())
    return usage_error(self, "--symbols-range without a symbol table to write");
  if (sym.wanted && !build_symbols(image, o.value("--symbols-range"), sym, error))
    return refused(self, in_path, error);

  // SFrame: written in place when the image has a .sframe section (its address is the table's
  // base); otherwise appended, not loaded, as if at address 0.
  const ElfSectionHeader *existing = image.section(".sframe");
  enc.section_addr = existing ? existing->addr : 0;
  Generated gen;
  std::vector<uint8_t> table;
  if (!only) {
    // Memory: the CFI reader's budget (cfi.h) bounds what it holds; an allocation that fails
    // anyway (a process limit below it) refuses the image by name, never aborts.
    const char *doing = "reading its DWARF CFI";
    try {
      std::vector<cfi::Fde> fdes;
      CfiCounts counts;
      if (!read_image_cfi(image, fdes, error, &counts)) return refused(self, in_path, error);
      if (counts.read == 0) return refused(self, in_path, "no DWARF CFI (.eh_frame or .debug_frame) to build from");
      if (fdes.empty())
        return refused(self, in_path,
                       "its DWARF CFI describes no code of the image: none of its " + std::to_string(counts.read) +
                           " FDEs lies in an executable section with contents (functions the linker dropped?)");
      doing = "building SFrame rows from its CFI";
      generate_rows(std::move(fdes), enc, gen);
      std::vector<cfi::Fde>().swap(fdes);  // before the table is written
      doing = "writing the SFrame table";
      if (!encode_sframe(enc, gen.functions, table, error)) return refused(self, in_path, error);
    } catch (const std::bad_alloc &) {
      return refused(self, in_path, std::string("out of memory ") + doing + " (an allocation failed): refused");
    }
  }

  if (print_size) {
    if (!sym.wanted) {
      printf("%zu\n", table.size());  // the form recipes read: one number
    } else {
      if (!only) printf(".sframe %zu\n", table.size());
      printf("%s %zu\n", kSymbolsSection, sym.table.size());
    }
    return kExitOk;
  }
  if (print_defsym) {
    std::string line;
    if (!only) line = "--defsym=SFU_SFRAME_RESERVE=" + std::to_string(table.size());
    if (sym.wanted) line += (line.empty() ? "" : " ") + std::string("--defsym=SFU_SYMBOLS_RESERVE=") +
                            std::to_string(sym.table.size());
    printf("%s\n", line.c_str());
    return kExitOk;
  }

  std::vector<uint8_t> out = image.file;
  if (!only && !elf_with_section(image, ".sframe", table, out, error)) return refused(self, in_path, error);
  if (sym.wanted) {
    ElfImage with_sframe;
    std::vector<uint8_t> final_out;
    if (!elf_parse(out, with_sframe, error) ||
        !elf_with_section(with_sframe, kSymbolsSection, sym.table, final_out, error, sym.base))
      return refused(self, in_path, error);
    out = std::move(final_out);
  }
  if (!write_file(out_path, out, error)) return refused(self, out_path, error);

  std::string line = "gen: ";
  if (!only) {
    char buf[256];
    snprintf(buf, sizeof buf, "%zu functions, %zu rows, %zu left out, %zu bytes (SFrame V%d, %s)", gen.functions.size(),
             gen.rows(), gen.left_out.size(), table.size(), int(enc.version),
             existing ? "written into .sframe" : "appended as .sframe, not loaded");
    line += buf;
  }
  if (sym.wanted) line += (only ? "" : "; ") + symbols_summary(sym);
  printf("%s\n", line.c_str());
  if (sym.wanted && !sym.reserved)
    printf("gen: the image reserves no .sfu_symbols section: the device will not see these names "
           "(link with linker/sfunwind-symbols.ld to reserve one)\n");
  if (sym.wanted && sym.stats.truncated)
    printf("gen: %zu names longer than %d bytes, stored cut\n", sym.stats.truncated, SFU_SYMBOL_NAME_MAX);
  if (o.has("-v"))
    for (const LeftOut &l : gen.left_out)
      printf("left out: %s (%s..%s) at %s: %s\n", symbolize(image, l.start).c_str(), hex(l.start).c_str(),
             hex(l.end).c_str(), symbolize(image, l.at).c_str(), l.reason.c_str());
  return kExitOk;
}

}  // namespace

const Command kGenCommand = {
    "gen",
    "IN.elf -o OUT.elf [--sframe-version 1|2|3] [--symbols|--no-symbols] [--symbols-range START,END|all] [-v]\n"
    "IN.elf -o OUT.elf --symbols-only [--symbols-range START,END|all]\n"
    "IN.elf --print-size|--print-defsym [--sframe-version 1|2|3] [--symbols|--no-symbols|--symbols-only]",
    "build an .sframe table from the image's DWARF CFI (and a .sfu_symbols table of its functions) "
    "and write them into a copy",
    run_gen};

}  // namespace sfu::tools::cli
