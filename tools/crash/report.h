// `sfu crash`'s decoding of one record: the images matched to its modules by GNU build-id, the
// trace with names (and source lines) from them, and the host's own walk compared with the
// device's. Every refusal is one sentence naming the record, module or image at fault.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/crash/records.h"
#include "tools/crash/reunwind.h"
#include "tools/dwarf/source.h"
#include "tools/elf/elf_file.h"
#include "tools/elf/load_bias.h"

namespace sfu::tools::crash {

struct CrashImage {
  std::string path;
  ElfImage elf;
  uint8_t abi = 0;                // SFU_ABI_* of its machine and byte order
  std::vector<uint8_t> build_id;  // the GNU build-id note's descriptor
  bool has_table = false;         // its .sframe, or one built from its CFI
  std::string table_from;         // ".sframe" or "CFI"
  std::string table_error;        // without a table: why ("its CFI is refused: too-many-rules ...")
  ModuleTable table;
  dwarf::SourceImage source;      // file:line and inlined frames, when loaded with lines
  bool placed = false;            // given as PATH@ADDRESS: its first loaded byte ran at placed_at
  uint64_t placed_at = 0;         // (else each module's bias is found from its text range)
};


// Reads the ELF, its build-id and its table, and with `lines` its DWARF; refuses an image
// without a build-id (it could match nothing) and one whose DWARF is malformed.
bool load_crash_image(const std::string &path, bool lines, CrashImage &out, std::string &error);

struct ReportOptions {
  bool lines = true;            // file:line and inlined frames: every image used must have DWARF
  bool images_required = true;  // a module holding frames must have an image
};

// Where a module (`which`, for messages: "module 0 (kernel)") whose text ran at
// [text_start, text_end) sits against img: the bias from the image's given address or from that
// range; refused when that cannot be told, or puts the module's text outside the image's code.
// match_modules places each module with it, `sfu profile` each profile's.
bool place_module(const CrashImage &img, uint64_t text_start, uint64_t text_end, const std::string &which,
                  LoadBias &out, std::string &error);

// Of several images with a module's build-id (a stripped image and its debug copy, or one file
// given twice), the one with the highest rank serves it: DWARF 2, function symbols 1 (ties: the
// first given).
int image_rank(const CrashImage &img);

// Which image serves each of a record's modules: matched by build-id, of several the one with
// DWARF, then the one with function symbols, then the first given (the re-walk's table from it or,
// when it has none, from the first of them with one); every one matched counts as used. And where
// it ran: the load bias (tools/elf/load_bias.h) from the module's recorded text range, or from
// the address the image was given at. Refuses an image built for another ABI than the record's,
// one whose bias cannot be found or puts the module's text outside its code, and with the
// options an image without DWARF or a module holding frames without an image.
struct Matched {
  std::vector<int> image;        // per record module: index into images for names and lines, or -1
  std::vector<int> table_image;  // per record module: the image whose table the re-walk uses, or -1
  std::vector<LoadBias> bias;    // per record module with an image: run-time minus link address
  std::vector<bool> holds_frames;
};
bool match_modules(const sfu_crash_view &v, const std::vector<CrashImage> &images, const ReportOptions &options,
                   Matched &m, std::vector<bool> &used, std::string &error);

struct RecordReport {
  std::string text;        // what to print on stdout (the trace, also when refused after decoding)
  std::string error;       // the refusal ("" when decoded and walked again)
  bool differs = false;    // the host's walk disagrees with the device's
  std::vector<bool> used;  // per image: it matched a module of this record
};

// A build-id as lowercase hex, as readelf and the device print it.
std::string build_id_text(const std::vector<uint8_t> &id);

// Decodes one record found in the input (its bytes checked by sfu_crash_open).
void report_record(const FoundRecord &found, const std::vector<CrashImage> &images, const ReportOptions &options,
                   RecordReport &out);

}  // namespace sfu::tools::crash
