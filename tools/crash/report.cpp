// Decoding a record for `sfu crash`: images by build-id, the trace in the device's own frame
// format with names added, and the host's re-unwind.
#include "tools/crash/report.h"

#include <algorithm>
#include <cstdio>

#include "sfu/crash.h"
#include "sfu/print.h"
#include "sfu/symbols.h"
#include "tools/dwarf/image_cfi.h"
#include "tools/elf/build_id.h"
#include "tools/elf/functions.h"
#include "tools/sframe/gen.h"
#include "tools/text/format.h"

namespace sfu::tools::crash {
namespace {

// A register's name by DWARF number, as the architecture's assembler spells it.
std::string reg_name(uint8_t abi, uint32_t n) {
  static const char *const x86[] = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp"};
  if (abi == SFU_ABI_AMD64_LE) return n < 8 ? x86[n] : "r" + std::to_string(n);
  if (abi == SFU_ABI_S390X_BE) return n < 16 ? "r" + std::to_string(n) : "f" + std::to_string(n - 16);
  return n == 31 ? "sp" : "x" + std::to_string(n);
}

// The image's own .sframe, or (none, or a reservation sfu gen never filled) one built from its CFI.
void read_table(CrashImage &img) {
  ElfSection sec;
  std::string error;
  if (elf_section_bytes(img.elf, ".sframe", sec, error) && sec.bytes.size() >= 2 && (sec.bytes[0] || sec.bytes[1])) {
    img.table = ModuleTable{std::move(sec.bytes), sec.addr};
    img.has_table = true;
    img.table_from = ".sframe";
    return;
  }
  std::vector<cfi::Fde> fdes;
  if (!read_image_cfi(img.elf, fdes, error)) return void(img.table_error = "its CFI is refused: " + error);
  if (fdes.empty()) return void(img.table_error = "it has neither .sframe nor DWARF CFI");
  EncodeOptions opt;
  opt.version = 3;
  opt.abi = img.abi;
  opt.section_addr = 0;
  Generated gen;
  generate_rows(fdes, opt, gen);
  if (!encode_sframe(opt, gen.functions, img.table.section, error))
    return void(img.table_error = "no table could be built from its CFI: " + error);
  img.table.section_addr = 0;
  img.has_table = true;
  img.table_from = "CFI";
}

// The device's frame line (sfu_print_frame), for a frame whose module is named `name`.
std::string device_line(sfu_frame f, const char *name, bool in_module, uint32_t index) {
  std::string out;
  sfu_sink sink{[](void *ctx, char c) { static_cast<std::string *>(ctx)->push_back(c); }, &out};
  sfu_module stand_in{};
  stand_in.name = name;
  stand_in.symbols_error = SFU_E_NO_SYMBOLS;
  stand_in.build_id_error = SFU_E_NO_BUILD_ID;
  f.module = in_module ? &stand_in : nullptr;
  f.index = uint8_t(std::min<uint32_t>(index, 255));
  sfu_print_frame(&sink, &f);
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

void describe(const sfu_crash_view &v, const sfu_crash_summary &s, const std::vector<CrashImage> &images,
              const Matched &m, std::string &t) {
  t += "reason: " + std::string(sfu_crash_reason_name(s.reason)) + " (" + hex(s.reason) + "), detail " +
       hex(s.detail) + ", fault address " + hex(s.fault_address) + "\n";
  if (s.message[0]) t += std::string("message: ") + s.message + "\n";
  sfu_regs r;
  sfu_crash_get_regs(&v, &r);
  t += "registers: pc " + hex(r.pc);
  for (uint32_t n = 0; n < SFU_REGS_MAX; n++)
    if ((r.valid >> n) & 1) t += ", " + reg_name(v.abi, n) + " " + hex(r.r[n]);
  t += "\n";
  for (uint32_t i = 0; i < v.num_modules; i++) {
    sfu_crash_module rm;
    sfu_crash_get_module(&v, i, &rm);
    t += "module " + std::to_string(i) + ": " + (rm.name[0] ? rm.name : "(unnamed)") + " " + hex(rm.text_start) +
         "-" + hex(rm.text_end) + (rm.build_id_size ? " build-id " + hex_bytes(rm.build_id, rm.build_id_size) : " no build-id") +
         (m.image[i] >= 0 ? "  <- " + images[m.image[i]].path : "  (no image: no frame in it)") + "\n";
    if (m.image[i] >= 0 && m.bias[i].bias != 0)
      t += "  moved " + bias_text(m.bias[i].bias) + " from its link address: " + m.bias[i].how + "\n";
  }
  for (uint32_t i = 0; i < v.num_windows; i++) {
    sfu_crash_window w;
    sfu_crash_get_window(&v, i, &w);
    t += "stack window " + std::to_string(i) + ": " + hex(w.addr) + "-" + hex(w.addr + w.size) + " (" +
         std::to_string(w.size) + " bytes)\n";
  }
}

void trace(const sfu_crash_view &v, const sfu_crash_summary &s, const std::vector<CrashImage> &images,
           const Matched &m, const ReportOptions &options, std::string &t) {
  t += "frames:\n";
  for (uint32_t i = 0; i < v.num_frames; i++) {
    sfu_frame f;
    int index = -1;
    sfu_crash_get_frame(&v, i, &f, &index);
    sfu_crash_module rm{};
    if (index >= 0) sfu_crash_get_module(&v, uint32_t(index), &rm);
    std::string line = device_line(f, rm.name, index >= 0, i);
    std::vector<dwarf::SourceFrame> sources;
    if (index >= 0 && m.image[index] >= 0) {
      // Names and lines at link addresses: the run-time ones less the module's bias.
      const CrashImage &img = images[m.image[index]];
      const uint64_t bias = m.bias[index].bias, lookup = sfu_frame_lookup_pc(&f) - bias;
      if (const ImageFunction *fn = function_at(img.elf, lookup))
        line += "  " + dwarf::demangle(fn->name) + "+" + hex(f.pc - bias - fn->start);
      if (options.lines) sources = img.source.frames_at(lookup);
    }
    t += line + "\n";
    // addr2line -f -i's answer: the innermost (inlined) function first, then each caller.
    for (const dwarf::SourceFrame &sf : sources)
      t += "        " + dwarf::demangle(sf.function) + " at " + sf.file + ":" + std::to_string(sf.line) +
           (sf.inlined ? " (inlined)" : "") + "\n";
  }
  t += std::string("stop: ") + sfu_stop_name(sfu_stop(s.stop)) + (s.reliable ? " (reliable)" : " (unreliable)") + "\n";
  if (s.frames_truncated)
    t += "cut short: the record keeps " + std::to_string(v.num_frames) + " of the walk's " +
         std::to_string(s.walk_frames) + " frames\n";
  if (s.modules_truncated) t += "cut short: the record lists fewer modules than were registered\n";
  if (s.stack_truncated) t += "cut short: stack bytes (the area, the stack budget, or an unreadable word)\n";
}

void compare_walks(const sfu_crash_view &v, const std::vector<CrashImage> &images, const Matched &m,
                   RecordReport &out) {
  std::vector<const ModuleTable *> tables(v.num_modules, nullptr);
  std::vector<uint64_t> biases(v.num_modules, 0);
  std::string from;
  for (uint32_t i = 0; i < v.num_modules; i++) {
    if (m.table_image[i] < 0) continue;
    const CrashImage &img = images[m.table_image[i]];
    tables[i] = &img.table;
    biases[i] = m.bias[i].bias;  // the table's image has the module's build-id: the same layout
    if (from.find(img.table_from) == std::string::npos) from += (from.empty() ? "" : ", ") + img.table_from;
  }
  Reunwound r;
  std::string &t = out.text;
  if (!reunwind(v, tables, biases, r)) {  // a table the host refuses: the record cannot be checked
    out.error = "re-unwind: " + r.error;
    return;
  }
  t += "re-unwind: the host walk from the record's registers over its " + std::to_string(v.num_windows) +
       " stack window(s), with the tables of " + (from.empty() ? std::string("no image") : from) + ", gives " +
       std::to_string(r.frames.size()) + " frames, stop " + sfu_stop_name(r.stop) + "\n";
  for (const std::string &d : r.differences) t += "  differs: " + d + "\n";
  for (const std::string &n : r.notes) t += "  note: " + n + "\n";
  for (uint32_t i = 0; i < v.num_modules; i++)  // a module walked without a table: say why
    if (m.image[i] >= 0 && m.table_image[i] < 0 && !images[m.image[i]].table_error.empty())
      t += "  note: module " + std::to_string(i) + ": " + images[m.image[i]].path + " gives no table: " +
           images[m.image[i]].table_error + "\n";
  if (r.differences.empty()) t += "  every frame the host could walk equals the device's\n";
  out.differs = !r.differences.empty();
}

}  // namespace

int image_rank(const CrashImage &img) {
  const ElfSectionHeader *info = img.elf.section(".debug_info");
  return (info && info->type != kShtNobits && info->size ? 2 : 0) + (img.elf.functions.empty() ? 0 : 1);
}

bool place_module(const CrashImage &img, uint64_t text_start, uint64_t text_end, const std::string &which,
                  LoadBias &out, std::string &error) {
  std::string why;
  if (img.placed && !given_load_bias(img.elf, img.placed_at, out, why))
    return (error = img.path + "@" + hex(img.placed_at) + ": " + why, false);
  if (!img.placed && !find_load_bias(img.elf, text_start, text_end, out, why))
    return (error = img.path + ": cannot tell where " + which + " ran: " + why + "; give the image as --image " +
                    img.path + "@ADDRESS, ADDRESS the run-time address of its first loaded byte",
            false);
  if (!holds_code(img.elf, text_start - out.bias, text_end - out.bias))
    return (error = which + "'s text ran at " + hex(text_start) + "-" + hex(text_end) + "; " + img.path +
                    " moved by " + bias_text(out.bias) + " (" + out.how + ") has no code there (link addresses " +
                    hex(text_start - out.bias) + "-" + hex(text_end - out.bias) + "): the wrong address?",
            false);
  return true;
}

bool match_modules(const sfu_crash_view &v, const std::vector<CrashImage> &images, const ReportOptions &options,
                   Matched &m, std::vector<bool> &used, std::string &error) {
  m.image.assign(v.num_modules, -1);
  m.table_image.assign(v.num_modules, -1);
  m.bias.assign(v.num_modules, LoadBias{});
  m.holds_frames.assign(v.num_modules, false);
  for (uint32_t i = 0; i < v.num_frames; i++) {
    sfu_frame f;
    int index = -1;
    if (sfu_crash_get_frame(&v, i, &f, &index) && index >= 0) m.holds_frames[index] = true;
  }
  for (uint32_t i = 0; i < v.num_modules; i++) {
    sfu_crash_module rm;
    sfu_crash_get_module(&v, i, &rm);
    std::string which = "module " + std::to_string(i) + " (" + (rm.name[0] ? rm.name : "unnamed") + ")";
    for (size_t k = 0; k < images.size(); k++) {
      if (!rm.build_id_size || images[k].build_id != std::vector<uint8_t>(rm.build_id, rm.build_id + rm.build_id_size))
        continue;
      used[k] = true;
      if (m.image[i] < 0 || image_rank(images[k]) > image_rank(images[m.image[i]])) m.image[i] = int(k);
      if (m.table_image[i] < 0 && images[k].has_table) m.table_image[i] = int(k);
    }
    if (m.image[i] >= 0) {
      const CrashImage &img = images[m.image[i]];
      if (img.has_table) m.table_image[i] = m.image[i];  // the image named; another only when it has none
      if (img.abi != v.abi)
        return (error = img.path + " has " + which + "'s build-id but is built for " + sfu_abi_name(img.abi) +
                        ", the record for " + sfu_abi_name(v.abi), false);
      if (options.lines && !img.source.has_debug_info())
        return (error = img.path + ": no DWARF debug information for file:line: build it with -g, or pass --no-lines",
                false);
      if (!place_module(img, rm.text_start, rm.text_end, which, m.bias[i], error)) return false;
      continue;
    }
    if (!m.holds_frames[i] || !options.images_required) continue;  // nothing needs its image
    if (!rm.build_id_size)
      return (error = which + " holds frames but was recorded without a build-id: no image can be matched to it",
              false);
    return (error = which + " holds frames and no --image has its build-id " + hex_bytes(rm.build_id, rm.build_id_size),
            false);
  }
  return true;
}

std::string build_id_text(const std::vector<uint8_t> &id) { return hex_bytes(id.data(), id.size()); }

bool load_crash_image(const std::string &path, bool lines, CrashImage &out, std::string &error) {
  out = CrashImage{};
  out.path = path;
  std::vector<uint8_t> file;
  if (!read_file(path, file, error) || !elf_parse(std::move(file), out.elf, error)) return false;
  out.abi = image_abi(out.elf);
  if (out.abi == 0) return (error = "not an x86_64, aarch64 or s390x image", false);
  if (!read_build_id(out.elf, out.build_id))
    return (error = "no GNU build-id note (.note.gnu.build-id): link it with --build-id, so records can name it",
            false);
  if (lines && !out.source.load(out.elf, error)) return (error = "malformed DWARF: " + error, false);
  read_table(out);
  return true;
}

void report_record(const FoundRecord &found, const std::vector<CrashImage> &images, const ReportOptions &options,
                   RecordReport &out) {
  out = RecordReport{};
  out.used.assign(images.size(), false);
  if (!found.problem.empty()) return void(out.error = found.problem);
  sfu_crash_view v;
  if (sfu_error e = sfu_crash_open(&v, found.bytes.data(), found.bytes.size()))
    return void(out.error = std::string("the record is refused: ") + sfu_error_name(e));
  Matched m;
  std::vector<bool> used(images.size(), false);
  if (!match_modules(v, images, options, m, used, out.error)) return;
  out.used = used;
  sfu_crash_summary s;
  sfu_crash_get_summary(&v, &s);
  std::string &t = out.text;
  t += "crash record (" + found.where + "): " + sfu_abi_name(v.abi) + ", " + std::to_string(v.length) + " bytes\n";
  describe(v, s, images, m, t);
  trace(v, s, images, m, options, t);
  compare_walks(v, images, m, out);
}

}  // namespace sfu::tools::crash
