// Dumps and their symbols for `sfu minidump` and `sfu stackwalk` (dump_input.h).
#include "tools/breakpad/dump_input.h"

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "tools/breakpad/image_symbols.h"
#include "tools/crash/report.h"
#include "tools/breakpad/microdump.h"
#include "tools/breakpad/module_id.h"

namespace sfu::tools::breakpad {
namespace {

bool read_text(const std::string &path, std::string &out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream s;
  s << in.rdbuf();
  out = s.str();
  return true;
}

std::vector<std::string> entries(const std::string &dir) {
  std::vector<std::string> out;
  if (DIR *d = opendir(dir.c_str())) {
    while (dirent *e = readdir(d))
      if (e->d_name[0] != '.') out.push_back(e->d_name);
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// ROOT/*/ID/*.sym: the first, in name order.
std::string any_symbol_file(const std::string &root, const std::string &id) {
  for (const std::string &name : entries(root))
    for (const std::string &file : entries(root + "/" + name + "/" + id))
      if (file.size() > 4 && file.compare(file.size() - 4, 4, ".sym") == 0) return root + "/" + name + "/" + id + "/" + file;
  return "";
}

// The link address symbol files count from: the image's first PT_LOAD.
bool image_link_base(const crash::CrashImage &image, uint64_t &out, std::string &error) {
  std::vector<ElfSegment> segments;
  if (!read_segments(image.elf, segments, error)) return (error = image.path + ": " + error, false);
  out = load_address(segments);
  return true;
}

}  // namespace

bool read_dump_input(const std::vector<uint8_t> &bytes, const std::string &name,
                     const std::vector<crash::CrashImage> &images, DumpInput &out, std::string &error) {
  out = DumpInput{};
  std::vector<bool> used(images.size(), false);
  std::string text(bytes.begin(), bytes.end());
  if (looks_like_microdump(text)) {
    if (!read_microdump(text, name, out.dump, error)) {
      // The caller's message names the file: "NAME:9: why" becomes "line 9: why", "NAME: why" "why".
      if (error.compare(0, name.size() + 1, name + ":") == 0) {
        std::string rest = error.substr(name.size() + 1);
        error = !rest.empty() && rest[0] == ' ' ? rest.substr(1) : "line " + rest;
      }
      return false;
    }
    out.what = "arm64 microdump (" + name + ")";
    for (const DumpModule &m : out.dump.modules) {
      int k = -1;
      for (size_t i = 0; i < images.size() && k < 0; i++)
        if (!m.debug_id.empty() && module_id_text(images[i].build_id) == m.debug_id) k = int(i), used[i] = true;
      uint64_t link_base = 0;
      if (k >= 0 && !image_link_base(images[size_t(k)], link_base, error)) return false;
      out.image.push_back(k);
      out.link_base.push_back(link_base);
      out.holds_frames.push_back(false);
    }
  } else {
    std::vector<crash::FoundRecord> found;
    if (!crash::find_records(bytes, name, found, error)) return false;
    if (found.size() != 1)
      return (error = "holds " + std::to_string(found.size()) + " crash records: give a file with one", false);
    // Messages name the record's lines in a log; refused() names the file already.
    std::string where = found[0].where == name ? "" : found[0].where + ": ";
    if (!found[0].problem.empty()) return (error = where + found[0].problem, false);
    sfu_crash_view v;
    if (sfu_error e = sfu_crash_open(&v, found[0].bytes.data(), found[0].bytes.size()))
      return (error = where + "the record is refused: " + sfu_error_name(e), false);
    // The images as sfu crash matches them; symbol directories may stand in for missing ones.
    crash::Matched matched;
    crash::ReportOptions match_options;
    match_options.lines = false;
    match_options.images_required = false;
    if (!crash::match_modules(v, images, match_options, matched, used, error)) return (error = where + error, false);
    out.image = matched.image;
    out.holds_frames = matched.holds_frames;
    out.link_base.assign(v.num_modules, 0);
    std::vector<ImageIdentity> identity(v.num_modules);
    std::vector<const ImageIdentity *> per_module(v.num_modules, nullptr);
    for (uint32_t m = 0; m < v.num_modules; m++) {
      int i = matched.image[m];
      if (i < 0) continue;
      if (!image_link_base(images[size_t(i)], out.link_base[m], error)) return false;
      identity[m] = ImageIdentity{module_name(images[i].elf, images[i].path), out.link_base[m] + matched.bias[m].bias};
      per_module[m] = &identity[m];
    }
    if (!dump_from_record(v, per_module, out.dump, error)) return (error = where + error, false);
    out.what = std::string(dump_cpu_name(out.dump.cpu)) + " crash record (" + found[0].where + ")";
    out.from_record = true;
  }
  for (size_t i = 0; i < images.size(); i++)
    if (!used[i])
      return (error = images[i].path + ": its build-id " + crash::build_id_text(images[i].build_id) +
                      " is none of the dump's modules: the wrong image?",
              false);
  return true;
}

bool find_walk_symbols(DumpInput &in, const std::vector<crash::CrashImage> &images,
                       const std::vector<std::string> &roots, WalkSymbols &out, std::string &error) {
  out = WalkSymbols{};
  for (size_t m = 0; m < in.dump.modules.size(); m++) {
    DumpModule &module = in.dump.modules[m];
    out.per_module.push_back(nullptr);
    out.source.push_back("");
    if (in.image[m] >= 0) {
      const crash::CrashImage &image = images[size_t(in.image[m])];
      out.owned.push_back(std::make_unique<ImageSymbols>(image, in.link_base[m]));
      out.per_module.back() = out.owned.back().get();
      out.source.back() = "image " + image.path;
      continue;
    }
    std::string path;
    for (const std::string &root : roots) {
      std::string exact = symbol_file_path(root, module);
      std::string text;
      if (!exact.empty() && read_text(exact, text)) {
        path = exact;
        break;
      }
      if (in.from_record && !module.debug_id.empty()) path = any_symbol_file(root, module.debug_id);
      if (!path.empty()) break;
    }
    if (path.empty()) continue;
    std::string text;
    if (!read_text(path, text)) return (error = path + ": cannot read", false);
    SymbolFile file;
    if (!file.load(text, path, error)) return false;
    if (in.from_record && !module.base_is_load_address) {
      // The record knows the text start; the file's addresses are relative to the image's first
      // segment, which the file does not give: take its lowest address to be the text start.
      uint64_t lowest = file.lowest_address();
      if (lowest <= module.text_start) {
        module.base = module.text_start - lowest;
        module.size = module.text_end - module.base;
      }
      if (!file.module_name().empty()) module.name = file.module_name();
    }
    out.owned.push_back(std::make_unique<SymFileSymbols>(std::move(file)));
    out.per_module.back() = out.owned.back().get();
    out.source.back() = path;
  }
  return true;
}

}  // namespace sfu::tools::breakpad
