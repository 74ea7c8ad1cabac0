// The crash-record half of the fuzzer (fuzz_sframe.cpp hands over inputs whose first byte has
// bit 7 set): arbitrary bytes as a record for sfu_crash_open, sfu_crash_take, the accessors and
// sfu_crash_print, and as a serial log for the host's reader (tools/crash/records.h). Every call
// must return a named error; an accepted record must keep every accessor inside it, and its
// printed text must read back as the very same bytes. Any breach aborts.
//
// Input: one mode byte, then the payload (copied into an allocation of exactly its size).
//   mode & 3 == 0  the payload is a record, as is
//   mode & 3 == 1  the same with its length set to the payload's size and its CRC made right, so
//                  the layout checks behind the CRC are reached
//   mode & 3 == 2  the payload is a serial log
// tests/fuzz/run.sh seeds each mode from tests/fuzz/crash-seeds/.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include "crash/layout.h"
#include "sframe/format.h"
#include "sfu/crash.h"
#include "support/error_classes.h"
#include "tools/crash/records.h"

namespace {

[[noreturn]] void die(const char *what, sfu_error e) {
  fprintf(stderr, "fuzz_crash: %s (result %d \"%s\")\n", what, int(e), sfu_error_name(e));
  abort();
}

bool inside(const uint8_t *p, size_t n, const sfu_crash_view &v) { return p >= v.rec && p + n <= v.rec + v.length; }

void check_record(const uint8_t *bytes, size_t size) {
  sfu_crash_view v;
  sfu_error e = sfu_crash_open(&v, bytes, size);
  if (!sfu::test::is_named(e)) die("sfu_crash_open", e);
  // take gives open's answer (or taken, for a taken record) on a copy, and writes only the state.
  std::vector<uint64_t> copy((size + 7) / 8 + 1);
  uint8_t *area = reinterpret_cast<uint8_t *>(copy.data());
  if (size) memcpy(area, bytes, size);
  sfu_crash_view tv;
  sfu_error te = sfu_crash_take(&tv, area, size);
  if (te != e && !(e == SFU_OK && te == SFU_E_CRASH_RECORD_TAKEN)) die("take disagrees with open", te);
  if (size > 12 && memcmp(area + 12, bytes + 12, size - 12) != 0) die("take wrote past the state word", te);
  if (e != SFU_OK) return;

  if (v.rec != bytes || v.length > size || v.length < sfu::crash::kFixedSize) die("view out of the bytes", e);
  sfu_crash_summary s;
  sfu_crash_get_summary(&v, &s);
  if (strnlen(s.message, sizeof s.message) == sizeof s.message) die("message without its NUL", e);
  sfu_regs r;
  sfu_crash_get_regs(&v, &r);
  for (uint32_t i = 0; i < v.num_frames; i++) {
    sfu_frame f;
    int m = -2;
    if (!sfu_crash_get_frame(&v, i, &f, &m) || m < -1 || m >= int(v.num_modules)) die("frame", e);
  }
  for (uint32_t i = 0; i < v.num_modules; i++) {
    sfu_crash_module m;
    if (!sfu_crash_get_module(&v, i, &m) || (m.build_id && !inside(m.build_id, m.build_id_size, v)) ||
        m.build_id_size > SFU_CRASH_BUILD_ID_MAX || strnlen(m.name, sizeof m.name) == sizeof m.name)
      die("module", e);
  }
  for (uint32_t i = 0; i < v.num_windows; i++) {
    sfu_crash_window w;
    if (!sfu_crash_get_window(&v, i, &w) || !inside(w.bytes, w.size, v) || w.addr % 8 || w.size % 8)
      die("window", e);
  }
  sfu_frame f;
  sfu_crash_module m;
  sfu_crash_window w;
  if (sfu_crash_get_frame(&v, v.num_frames, &f, nullptr) || sfu_crash_get_module(&v, v.num_modules, &m) ||
      sfu_crash_get_window(&v, v.num_windows, &w))
    die("an index past the end answered", e);

  // Printed and read back: the same bytes.
  std::string text;
  sfu_sink sink{[](void *ctx, char c) { static_cast<std::string *>(ctx)->push_back(c); }, &text};
  size_t lines = sfu_crash_print(&sink, &v);
  size_t newlines = 0;
  for (char c : text) newlines += c == '\n';
  if (lines != newlines) die("print's line count", e);
  // Everything printed clean, and every line one of the record's own: nothing the record carries
  // (a module name, the message) can start a line or send a control code.
  size_t line_at = 0, line_no = 0;
  for (size_t i = 0; i < text.size(); i++) {
    char c = text[i];
    if (c != '\n' && (c < 0x20 || c >= 0x7f)) die("a byte printed raw", e);
    if (c != '\n') continue;
    std::string l = text.substr(line_at, i - line_at);
    bool ours = line_no == 0 ? l.rfind("sfu-crash-begin ", 0) == 0
                : line_no + 1 == lines ? l.rfind("sfu-crash-end ", 0) == 0
                                       : l.rfind("sfu-crash: ", 0) == 0 || l.rfind("sfu-crash-data ", 0) == 0;
    if (!ours) die("a line that is not the record's", e);
    line_at = i + 1;
    line_no++;
  }
  std::vector<sfu::tools::crash::FoundRecord> found;
  std::string error;
  if (!sfu::tools::crash::find_records(std::vector<uint8_t>(text.begin(), text.end()), "fuzz", found, error) ||
      found.size() != 1 || !found[0].problem.empty() ||
      found[0].bytes != std::vector<uint8_t>(bytes, bytes + v.length))
    die("printed record does not read back", e);
  if (!found[0].notes.empty()) die("a printed record reads back with lines skipped", e);
}

void check_log(const uint8_t *bytes, size_t size) {
  std::vector<sfu::tools::crash::FoundRecord> found;
  std::string error;
  if (!sfu::tools::crash::find_records(std::vector<uint8_t>(bytes, bytes + size), "fuzz", found, error)) return;
  for (const auto &r : found) {
    if (!r.problem.empty() && !r.bytes.empty()) die("a record with both bytes and a problem", SFU_OK);
    for (const std::string &n : r.notes)
      if (n.rfind("line ", 0) != 0) die("a note that names no line", SFU_OK);
    if (r.problem.empty()) check_record(r.bytes.data(), r.bytes.size());
  }
}

// Length and CRC made to fit the payload, in the byte order its ABI byte gives.
void reseal(uint8_t *p, size_t size) {
  if (size < sfu::crash::kPrologueSize || size > 0xffffffffu) return;
  bool big = sfu::sframe::abi_big_endian(p[sfu::crash::hdr::kAbi]);
  sfu::crash::put(p + sfu::crash::hdr::kLength, size, 4, big);
  sfu::crash::put(p + sfu::crash::hdr::kCrc, sfu_crc32(0, p + sfu::crash::kCrcFrom, size - sfu::crash::kCrcFrom), 4,
                  big);
}

}  // namespace

void fuzz_crash(const uint8_t *data, size_t size) {
  uint8_t mode = size ? data[0] & 3 : 0;
  size_t n = size ? size - 1 : 0;
  uint8_t *payload = new uint8_t[n];
  if (n) memcpy(payload, data + 1, n);
  if (mode == 2) {
    check_log(payload, n);
  } else {
    if (mode == 1) reseal(payload, n);
    check_record(payload, n);
  }
  delete[] payload;
}
