// sfu symbolize: addresses -> names and source lines, from the image's symbol table and DWARF.
//   sfu symbolize [-C] ELF[@ADDRESS] ADDR...     "0xADDR name+0xoff", then one line per source frame
//   sfu symbolize --addr2line [-C] ELF ADDR...   exactly what `addr2line -f -i [-C] -e ELF` prints
//   sfu symbolize --image ELF[@ADDRESS]... [LOG] a serial log with its backtrace lines annotated,
//                                                images placed by the log's module lines
// ELF@ADDRESS: the image ran moved from its link address, its first loaded byte at ADDRESS
// (tools/elf/load_bias.h).
#include <algorithm>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <tuple>

#include "tools/commands/commands.h"
#include "tools/dwarf/addr2line.h"
#include "tools/dwarf/source.h"
#include "tools/elf/build_id.h"
#include "tools/elf/load_bias.h"

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

// ELF ADDR... or ELF@ADDRESS ADDR...: the addresses are where the image ran, looked up at their
// link address.
int run_default(const Command &self, std::vector<std::string> files, bool demangle) {
  ElfImage image;
  SourceImage source;
  std::vector<uint64_t> addrs;
  int status;
  ImageArgument a;
  std::string error;
  if (!files.empty() && !parse_image_argument(files[0], a, error)) return usage_error(self, error);
  if (!files.empty()) files[0] = a.path;
  if (!image_and_addresses(self, files, parse_address, image, source, addrs, status, true)) return status;
  LoadBias placed;
  if (a.placed && !given_load_bias(image, a.address, placed, error)) return refused(self, a.path, error);
  for (uint64_t addr : addrs) {
    uint64_t link = addr - placed.bias;
    std::string fn = function_text(image, link, link, demangle);
    printf("%s %s\n", hex(addr).c_str(), fn.empty() ? hex(addr).c_str() : fn.c_str());
    for (const SourceFrame &f : source.frames_at(link))
      printf("%s%s at %s:%u%s\n", kIndent, name_of(f, demangle).c_str(), f.file.c_str(), f.line,
             f.inlined ? " (inlined)" : "");
  }
  return kExitOk;
}

std::string hex_id(const std::vector<uint8_t> &id) { return hex_bytes(id.data(), id.size()); }

// One --image of the log mode: its bytes, DWARF, build-id, and where it ran when given as
// ELF@ADDRESS.
struct LogImage {
  std::string path;
  ElfImage elf;
  SourceImage source;
  std::vector<uint8_t> build_id;  // empty: none
  bool placed = false;            // ELF@ADDRESS
  LoadBias given;                 // its bias when placed
  bool holds(uint64_t link) const { return holds_code(elf, link, link + 1); }
};

// A module line of the log (sfu_print_backtrace, sfu_crash_print; include/sfu/print.h): where a
// module's text ran, and its build-id.
struct Placement {
  std::string name;
  uint64_t start = 0, end = 0;
  std::vector<uint8_t> build_id;
};

// Where an image ran for the frame being annotated: the bias and why.
struct ImagePlace {
  const Placement *placement = nullptr;  // the module line giving its bias, if any
  LoadBias bias;
  std::string error;  // the module line's range cannot be placed in the image
};

// The annotation of one frame: "  SYM+0xOFF FILE:LINE" (" (FUNC inlined)" when the innermost
// source frame is inlined code; either part alone when the other is unknown) and one
// "(inlined by) FUNC at FILE:LINE" line per caller it was inlined into. `lookup` and `pc` are link
// addresses (the run-time ones less the image's bias).
std::string annotate(const LogImage &img, uint64_t lookup, uint64_t pc, bool demangle) {
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

// The log mode: reads the log line by line, keeps the module lines it has seen (the latest for
// each build-id), and annotates each frame line from the image that holds its address once moved
// back by that image's bias: ELF@ADDRESS's, else the latest module line with its build-id (or the
// one line without a build-id, for the one image no line names: line_without_build_id), else
// none (its link address). What it could not annotate is said in one note at the end.
class LogAnnotator {
 public:
  LogAnnotator(std::vector<LogImage> &images, bool demangle) : images_(images), demangle_(demangle) {}

  // The line's annotation ("" for none); `line` without its line ending.
  std::string line(const std::string &text) {
    // A frame line of include/sfu/print.h, perhaps with the device's own "name+0xoff/0xsize", after
    // whatever the console put before it (a timestamp "[    1.234567] ", the crash print's
    // "sfu-crash: "): the frame starts at a "#" that begins the line or follows a blank.
    static const std::regex frame(
        R"((?:^|\s)#[0-9]+ +(\? +)?0x([0-9a-fA-F]+)  sp 0x[0-9a-fA-F]+  [a-z]+ +\[([a-z]+)\] +(\S+)(  \S+)?\s*$)");
    static const std::regex module(
        R"((?:^|\s)module [0-9]+ (.+) 0x([0-9a-f]+)-0x([0-9a-f]+) (?:build-id ([0-9a-f]+)|no build-id)\s*$)");
    std::smatch m;
    if (std::regex_search(text, m, module)) {
      placed(m[1].str(), std::strtoull(m[2].str().c_str(), nullptr, 16), std::strtoull(m[3].str().c_str(), nullptr, 16),
             m[4].str());
      return "";
    }
    if (!std::regex_search(text, m, frame)) return "";
    frames_++;
    uint64_t pc = std::strtoull(m[2].str().c_str(), nullptr, 16);
    std::string source = m[3].str();
    // A return address is looked up inside its call (a call that never returns can end its
    // caller), with the offset of the PC itself: as the device prints it, and Linux's %pB.
    uint64_t lookup = source == "table" || source == "fp" || source == "backchain" ? pc - 1 : pc;
    // The image whose module line holds the address first, then any that holds it once moved back.
    for (int pass = 0; pass < 2; pass++)
      for (LogImage &img : images_) {
        ImagePlace p = place(img);
        bool line_holds = p.placement && lookup >= p.placement->start && lookup < p.placement->end;
        if ((pass == 0) != line_holds || !p.error.empty() || !img.holds(lookup - p.bias.bias)) continue;
        return annotate(img, lookup - p.bias.bias, pc - p.bias.bias, demangle_);
      }
    // The device placed it in no module ("-"): nothing was promised there.
    if (m[4].str() != "-") {
      missed_frames_++;
      if (std::find(missed_.begin(), missed_.end(), pc) == missed_.end()) missed_.push_back(pc);
    }
    return "";
  }

  // At the end of the log: the note on stderr, and the exit status.
  int finish(const Command &self) {
    if (frames_ == 0) {
      fprintf(stderr, "sfu %s: note: the log holds no backtrace frame line (include/sfu/print.h): nothing to annotate\n",
              self.name);
      return kExitFailed;
    }
    if (missed_.empty()) return kExitOk;
    std::string addrs;
    for (size_t i = 0; i < missed_.size() && i < 8; i++) addrs += " " + hex(missed_[i]);
    if (missed_.size() > 8) addrs += " and " + std::to_string(missed_.size() - 8) + " more";
    std::string tried;
    for (LogImage &img : images_) {
      ImagePlace p = place(img);
      tried += "; " + img.path + " ";
      if (!p.error.empty())
        tried += "could not be placed: module line " + p.placement->name + " " + hex(p.placement->start) + "-" +
                 hex(p.placement->end) + ": " + p.error + " (give it as " + img.path + "@ADDRESS)";
      else if (img.placed)
        tried += "at bias " + bias_text(p.bias.bias) + " (" + p.bias.how + ")";
      else if (p.placement)
        tried += "at bias " + bias_text(p.bias.bias) + " (module line " + p.placement->name + ": " + p.bias.how + ")";
      else
        tried += "at its link address (no module line of the log has its build-id" +
                 std::string(img.build_id.empty() ? ": it has none" : " " + hex_id(img.build_id)) + ")";
    }
    for (const Placement &p : placements_)
      if (!has_image(p))
        tried += "; module line " + p.name + " " + hex(p.start) + "-" + hex(p.end) + ": " +
                 (p.build_id.empty() ? std::string("no build-id, and not the one such line for the one image left (give its image as ELF@ADDRESS)")
                                     : "no --image has its build-id " + hex_id(p.build_id));
    fprintf(stderr, "sfu %s: note: %zu of %zu frames were not annotated, their addresses in no image:%s%s\n",
            self.name, missed_frames_, frames_, addrs.c_str(), tried.c_str());
    return kExitFailed;
  }

 private:
  void placed(const std::string &name, uint64_t start, uint64_t end, const std::string &id_hex) {
    Placement p{name, start, end, {}};
    for (size_t i = 0; i + 1 < id_hex.size(); i += 2) p.build_id.push_back(uint8_t(std::stoul(id_hex.substr(i, 2), nullptr, 16)));
    // A new boot, or the same module again: the latest line for a build-id or a range decides.
    std::erase_if(placements_, [&](const Placement &q) {
      return (!p.build_id.empty() && q.build_id == p.build_id) || (q.start < p.end && p.start < q.end);
    });
    placements_.push_back(p);
  }

  bool has_image(const Placement &p) const {
    for (const LogImage &img : images_)
      if (!p.build_id.empty() && img.build_id == p.build_id) return true;
    return image_without_line() && &p == line_without_build_id();
  }

  // The latest module line with the image's build-id.
  const Placement *line_with_build_id(const LogImage &img) const {
    for (const Placement &p : placements_)
      if (!img.build_id.empty() && p.build_id == img.build_id) return &p;
    return nullptr;
  }

  // A kernel that passes no build-id note, or a core built without CONFIG_SFU_BUILD_ID, prints
  // "no build-id": such a line goes with the one image no line names, when it is the one such line
  // and every other image is named by a line, in the log read so far (never a guess between
  // several; find_load_bias then checks its range against the image). A line with a build-id is
  // another image's, given or not.
  const Placement *line_without_build_id() const {
    const Placement *line = nullptr;
    for (const Placement &p : placements_) {
      if (!p.build_id.empty()) continue;
      if (line) return nullptr;
      line = &p;
    }
    return line;
  }
  const LogImage *image_without_line() const {
    const LogImage *left = nullptr;
    for (const LogImage &img : images_) {
      if (line_with_build_id(img)) continue;
      if (left || img.placed) return nullptr;
      left = &img;
    }
    return left;
  }

  ImagePlace place(const LogImage &img) {
    ImagePlace out;
    if (img.placed) return out.bias = img.given, out;
    const Placement *p = line_with_build_id(img);
    if (!p && image_without_line() == &img) p = line_without_build_id();
    if (!p) return out;
    out.placement = p;
    // Once per image and range, not per frame: the search reads every symbol of the image.
    auto key = std::make_tuple(&img, p->start, p->end);
    auto it = biases_.find(key);
    if (it == biases_.end()) {
      std::pair<LoadBias, std::string> found;
      find_load_bias(img.elf, p->start, p->end, found.first, found.second);
      it = biases_.emplace(key, found).first;
    }
    out.bias = it->second.first;
    out.error = it->second.second;
    return out;
  }

  std::vector<LogImage> &images_;
  bool demangle_;
  std::vector<Placement> placements_;
  std::map<std::tuple<const LogImage *, uint64_t, uint64_t>, std::pair<LoadBias, std::string>> biases_;
  size_t frames_ = 0, missed_frames_ = 0;
  std::vector<uint64_t> missed_;  // their addresses, each once
};

int run_log(const Command &self, const std::vector<std::string> &image_args, const std::vector<std::string> &files,
            bool demangle) {
  if (files.size() > 1) return usage_error(self, "one log at a time");
  std::vector<LogImage> loaded(image_args.size());
  for (size_t i = 0; i < image_args.size(); i++) {
    ImageArgument a;
    std::string error;
    int status;
    if (!parse_image_argument(image_args[i], a, error)) return usage_error(self, error);
    LogImage &img = loaded[i];
    img.path = a.path;
    if (!load(self, a.path, img.elf, img.source, status)) return status;
    read_build_id(img.elf, img.build_id);
    img.placed = a.placed;
    if (a.placed && !given_load_bias(img.elf, a.address, img.given, error)) return refused(self, a.path, error);
  }
  std::ifstream file;
  if (!files.empty()) {
    file.open(files[0], std::ios::binary);
    if (!file) return refused(self, files[0], std::string("cannot open: ") + std::strerror(errno));
  }
  std::istream &in = files.empty() ? std::cin : file;
  LogAnnotator annotator(loaded, demangle);
  std::string line;
  while (std::getline(in, line)) {
    bool cr = !line.empty() && line.back() == '\r';
    std::string text = cr ? line.substr(0, line.size() - 1) : line;
    std::string extra = annotator.line(text);
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
  fflush(stdout);
  return annotator.finish(self);
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
    "[-C] ELF[@ADDRESS] ADDR...                    \"0xADDR name+0xoff\", then \"    FUNC at FILE:LINE[ (inlined)]\" per source frame\n"
    "--addr2line [-C] ELF ADDR...                 what `addr2line -f -i [-C] -e ELF ADDR...` prints (hex addresses)\n"
    "--image ELF[@ADDRESS] [--image ...] [LOG]    the log (or stdin), frame lines + \"  SYM+0xOFF FILE:LINE[ (FUNC inlined)]\","
    " then \"        (inlined by) FUNC at FILE:LINE\" per inlined caller; an image moved from its link address is placed by"
    " the log's module lines (its build-id), or by @ADDRESS: where its first loaded byte ran",
    "addresses to names and source lines (symbol table, DWARF); addr2line's output; annotated logs",
    run_symbolize};

}  // namespace sfu::tools::cli
