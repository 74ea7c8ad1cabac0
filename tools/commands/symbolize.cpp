// sfu symbolize: addresses -> names and source lines, from the image's symbol table and DWARF.
//   sfu symbolize [-C] ELF ADDR...          "0xADDR name+0xoff", then one line per source frame
//   sfu symbolize --addr2line [-C] ELF ADDR...   exactly what `addr2line -f -i [-C] -e ELF` prints
//   sfu symbolize --image ELF... [LOG]      a serial log with its backtrace lines annotated
#include <cstring>
#include <fstream>
#include <iostream>
#include <regex>

#include "tools/commands/commands.h"
#include "tools/dwarf/addr2line.h"
#include "tools/dwarf/source.h"

namespace sfu::tools::cli {
namespace {

using dwarf::SourceFrame;
using dwarf::SourceImage;

constexpr const char *kIndent = "    ";
constexpr const char *kInlinedIndent = "        ";

// Loads an image and its DWARF. With `note`, an image without DWARF is said once on stderr (its
// addresses get names but no source lines); addr2line's mode stays silent, as addr2line is.
bool load(const Command &self, const std::string &path, ElfImage &image, SourceImage &source, int &status,
          bool note = true) {
  std::string error;
  if (!load_image(path, image, error) || !source.load(image, error)) {
    status = refused(self, path, error);
    return false;
  }
  if (note && !source.has_debug_info())
    fprintf(stderr, "sfu %s: %s: note: no DWARF debug information (.debug_info): names only, no source lines\n",
            self.name, path.c_str());
  return true;
}

// addr2line reads every address as hex, with or without "0x".
bool parse_hex(const std::string &s, uint64_t &out) {
  std::string digits = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? s : "0x" + s;
  return parse_address(digits, out);
}

std::string name_of(const SourceFrame &f, bool demangle) { return demangle ? dwarf::demangle(f.function) : f.function; }

// "name+0xOFF" for pc, from the function holding `lookup` (functions.h: the host's one lookup,
// the names the device's table holds); "name" alone at offset 0; "" when no function holds it.
std::string function_text(const ElfImage &image, uint64_t lookup, uint64_t pc, bool demangle) {
  const ImageFunction *f = function_at(image, lookup);
  if (!f) return "";
  return name_plus_offset(demangle ? dwarf::demangle(f->name) : f->name, f->start, pc);
}

// `files` is an image and its addresses, read by `parse`: the image loaded, the addresses in
// `addrs`. False with the status to exit with (a usage error, or the image refused).
bool image_and_addresses(const Command &self, const std::vector<std::string> &files,
                         bool (*parse)(const std::string &, uint64_t &), ElfImage &image, SourceImage &source,
                         std::vector<uint64_t> &addrs, int &status, bool note) {
  if (files.size() < 2) return status = usage_error(self, "give an image and at least one address"), false;
  for (size_t i = 1; i < files.size(); i++) {
    uint64_t a;
    if (!parse(files[i], a)) return status = usage_error(self, "not an address: " + files[i]), false;
    addrs.push_back(a);
  }
  return load(self, files[0], image, source, status, note);
}

int run_addr2line(const Command &self, const std::vector<std::string> &files, bool demangle) {
  ElfImage image;
  SourceImage source;
  std::vector<uint64_t> addrs;
  int status;
  if (!image_and_addresses(self, files, parse_hex, image, source, addrs, status, false)) return status;
  dwarf::Addr2line a2l(source);
  for (uint64_t a : addrs) fputs(a2l.lookup(a, demangle).c_str(), stdout);
  return kExitOk;
}

int run_default(const Command &self, const std::vector<std::string> &files, bool demangle) {
  ElfImage image;
  SourceImage source;
  std::vector<uint64_t> addrs;
  int status;
  if (!image_and_addresses(self, files, parse_address, image, source, addrs, status, true)) return status;
  for (uint64_t addr : addrs) {
    std::string fn = function_text(image, addr, addr, demangle);
    printf("%s %s\n", hex(addr).c_str(), fn.empty() ? hex(addr).c_str() : fn.c_str());
    for (const SourceFrame &f : source.frames_at(addr))
      printf("%s%s at %s:%u%s\n", kIndent, name_of(f, demangle).c_str(), f.file.c_str(), f.line,
             f.inlined ? " (inlined)" : "");
  }
  return kExitOk;
}

// One --image: its bytes, DWARF, and the address ranges of its executable sections.
struct LogImage {
  ElfImage elf;
  SourceImage source;
  bool holds(uint64_t pc) const {
    for (const ElfSectionHeader &s : elf.sections)
      if ((s.flags & kShfAlloc) && (s.flags & kShfExecinstr) && pc >= s.addr && pc - s.addr < s.size) return true;
    return false;
  }
};

// The annotation of one frame: "  SYM+0xOFF FILE:LINE" (" (FUNC inlined)" when the innermost
// source frame is inlined code; either part alone when the other is unknown) and one
// "(inlined by) FUNC at FILE:LINE" line per caller it was inlined into.
std::string annotate(const LogImage &img, uint64_t pc, bool return_address, bool demangle) {
  // The function of the lookup address (a call that never returns can end its caller), the
  // offset of the PC itself: as the device prints it, and Linux's %pB.
  uint64_t lookup = return_address ? pc - 1 : pc;
  std::string sym = function_text(img.elf, lookup, pc, demangle);
  std::string out = sym.empty() ? "" : "  " + sym;
  std::vector<SourceFrame> frames = img.source.frames_at(lookup);
  if (frames.empty()) return out;
  out += (out.empty() ? "  " : " ") + frames[0].file + ":" + std::to_string(frames[0].line);
  if (frames[0].inlined) out += " (" + name_of(frames[0], demangle) + " inlined)";
  for (size_t i = 1; i < frames.size(); i++)
    out += std::string("\n") + kInlinedIndent + "(inlined by) " + name_of(frames[i], demangle) + " at " +
           frames[i].file + ":" + std::to_string(frames[i].line);
  return out;
}

int run_log(const Command &self, const std::vector<std::string> &images, const std::vector<std::string> &files,
            bool demangle) {
  if (files.size() > 1) return usage_error(self, "one log at a time");
  std::vector<LogImage> loaded(images.size());
  for (size_t i = 0; i < images.size(); i++) {
    int status;
    if (!load(self, images[i], loaded[i].elf, loaded[i].source, status)) return status;
  }
  std::ifstream file;
  if (!files.empty()) {
    file.open(files[0], std::ios::binary);
    if (!file) return refused(self, files[0], std::string("cannot open: ") + std::strerror(errno));
  }
  std::istream &in = files.empty() ? std::cin : file;
  // A frame line of include/sfu/print.h, perhaps with the device's own "name+0xoff/0xsize", after
  // whatever the console put before it (a timestamp "[    1.234567] ", the crash print's
  // "sfu-crash: "): the frame starts at a "#" that begins the line or follows a blank.
  static const std::regex frame(
      R"((?:^|\s)#[0-9]+ +(\? +)?0x([0-9a-fA-F]+)  sp 0x[0-9a-fA-F]+  [a-z]+ +\[([a-z]+)\] +\S+(  \S+)?\s*$)");
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    bool cr = !line.empty() && line.back() == '\r';
    std::string text = cr ? line.substr(0, line.size() - 1) : line;
    std::string extra;
    if (std::regex_search(text, m, frame)) {
      uint64_t pc = std::strtoull(m[2].str().c_str(), nullptr, 16);
      std::string source = m[3].str();
      bool ret = source == "table" || source == "fp" || source == "backchain";
      for (const LogImage &img : loaded)
        if (img.holds(pc)) {
          extra = annotate(img, pc, ret, demangle);
          break;
        }
    }
    if (extra.empty()) {
      fputs(line.c_str(), stdout);
    } else {
      // The annotation's own lines end as the log's lines do.
      if (cr)
        for (size_t nl = extra.find('\n'); nl != std::string::npos; nl = extra.find('\n', nl + 2))
          extra.replace(nl, 1, "\r\n");
      fputs((text + extra + (cr ? "\r" : "")).c_str(), stdout);
    }
    if (!in.eof()) fputc('\n', stdout);
  }
  return kExitOk;
}

int run_symbolize(const Command &self, const Args &args) {
  std::vector<std::string> files, images;
  bool addr2line = false, demangle = false;
  for (size_t i = 0; i < args.size(); i++) {
    const std::string &a = args[i];
    if (a == "--addr2line") {
      addr2line = true;
    } else if (a == "-C") {
      demangle = true;
    } else if (a == "--image") {
      if (i + 1 == args.size()) return usage_error(self, "--image needs a value");
      images.push_back(args[++i]);
    } else if (a.size() > 1 && a[0] == '-') {
      return usage_error(self, "unknown option " + a);
    } else {
      files.push_back(a);
    }
  }
  if (!images.empty()) {
    if (addr2line) return usage_error(self, "--addr2line and --image do not go together");
    return run_log(self, images, files, true);  // for a person: C++ names demangled
  }
  return addr2line ? run_addr2line(self, files, demangle) : run_default(self, files, demangle);
}

}  // namespace

const Command kSymbolizeCommand = {
    "symbolize",
    "[-C] ELF ADDR...                    \"0xADDR name+0xoff\", then \"    FUNC at FILE:LINE[ (inlined)]\" per source frame\n"
    "--addr2line [-C] ELF ADDR...        what `addr2line -f -i [-C] -e ELF ADDR...` prints (hex addresses)\n"
    "--image ELF [--image ELF...] [LOG]  the log (or stdin), frame lines + \"  SYM+0xOFF FILE:LINE[ (FUNC inlined)]\","
    " then \"        (inlined by) FUNC at FILE:LINE\" per inlined caller",
    "addresses to names and source lines (symbol table, DWARF); addr2line's output; annotated logs",
    run_symbolize};

}  // namespace sfu::tools::cli
