// sfu_crash_print: a record as text lines (docs/crash-record.md): the begin line, the readable
// trace, the record's bytes in checksummed base64 lines, the end line. Character by character
// through the caller's sink, no buffer but a few bytes on the stack.
#include "crash/layout.h"
#include "print/checksummed_line.h"
#include "print/module_line.h"
#include "sfu/print.h"
#include "sframe/bytes.h"
#include "unwind/registry.h"

namespace sfu::crash {
namespace {

void prefix(const sfu_sink *sink) { sfu_print_str(sink, "sfu-crash: "); }

// The registered module with the record module's build-id and text range, if any: its symbols
// name the frames. Without a build-id nothing can be matched.
const sfu_module *live_module(const sfu_crash_module &rm) {
  if (rm.build_id_size == 0) return nullptr;
  for (unsigned slot = 0; slot < unwind::kModuleSlots; slot++) {
    const sfu_module *m = unwind::module_in_slot(slot);
    if (!m || m->build_id_error != SFU_OK || m->build_id_size != rm.build_id_size ||
        m->table.text_start != rm.text_start || m->table.text_end != rm.text_end)
      continue;
    bool same = true;
    for (uint32_t i = 0; same && i < rm.build_id_size; i++) same = m->build_id[i] == rm.build_id[i];
    if (same) return m;
  }
  return nullptr;
}

size_t print_header_lines(const sfu_sink *sink, const sfu_crash_view &v, const sfu_crash_summary &s) {
  size_t lines = 0;
  prefix(sink);
  sfu_print_str(sink, sfu_crash_reason_name(s.reason));
  sfu_print_str(sink, " (reason ");
  sfu_print_hex(sink, s.reason, 0);
  sfu_print_str(sink, ", detail ");
  sfu_print_hex(sink, s.detail, 0);
  sfu_print_str(sink, ", fault address ");
  sfu_print_hex(sink, s.fault_address, 0);
  sfu_print_str(sink, ")\n");
  lines++;
  if (s.message[0] != '\0') {
    prefix(sink);
    sfu_print_str(sink, "message: ");
    print::print_clean(sink, s.message, SFU_CRASH_MESSAGE_MAX);
    sfu_print_str(sink, "\n");
    lines++;
  }
  for (uint32_t i = 0; i < v.num_modules; i++) {
    sfu_crash_module m;
    if (!sfu_crash_get_module(&v, i, &m)) continue;
    prefix(sink);
    print::module_line(sink, i, m.name, SFU_CRASH_NAME_MAX, m.text_start, m.text_end, m.build_id, m.build_id_size);
    lines++;
  }
  return lines;
}

// One frame as sfu_print_frame prints it: the module is the matching registered one (names from
// its symbols), else a stand-in carrying the record's module name and no symbols.
void print_frame(const sfu_sink *sink, const sfu_crash_view &v, uint32_t i) {
  sfu_frame f;
  int index = -1;
  if (!sfu_crash_get_frame(&v, i, &f, &index)) return;
  sfu_module stand_in;
  // Byte by byte (the build keeps such loops as loops): a struct initializer of this size could
  // become a call to memset.
  for (size_t k = 0; k < sizeof stand_in; k++) reinterpret_cast<volatile uint8_t *>(&stand_in)[k] = 0;
  sfu_crash_module m;
  if (index >= 0 && sfu_crash_get_module(&v, uint32_t(index), &m)) {
    const sfu_module *live = live_module(m);
    if (live) {
      f.module = live;
    } else {
      stand_in.name = reinterpret_cast<const char *>(v.rec + v.modules_at + uint32_t(index) * module::kSize +
                                                     module::kName);
      stand_in.table.text_start = m.text_start;
      stand_in.table.text_end = m.text_end;
      stand_in.symbols_error = SFU_E_NO_SYMBOLS;
      stand_in.build_id_error = SFU_E_NO_BUILD_ID;
      f.module = &stand_in;
    }
  }
  prefix(sink);
  sfu_print_frame(sink, &f);
}

size_t print_trace_lines(const sfu_sink *sink, const sfu_crash_view &v, const sfu_crash_summary &s) {
  size_t lines = 0;
  for (uint32_t i = 0; i < v.num_frames; i++, lines++) print_frame(sink, v, i);
  prefix(sink);
  sfu_print_str(sink, "stop: ");
  sfu_print_str(sink, sfu_stop_name(sfu_stop(s.stop)));
  sfu_print_str(sink, s.reliable ? " (reliable)\n" : " (unreliable)\n");
  lines++;
  if (s.frames_truncated || s.stack_truncated || s.modules_truncated) {
    prefix(sink);
    sfu_print_str(sink, "cut short:");
    if (s.frames_truncated) {
      sfu_print_str(sink, " frames (");
      sfu_print_udec(sink, v.num_frames);
      sfu_print_str(sink, " of ");
      sfu_print_udec(sink, s.walk_frames);
      sfu_print_str(sink, " kept)");
    }
    if (s.modules_truncated) sfu_print_str(sink, " modules");
    if (s.stack_truncated) sfu_print_str(sink, " stack-bytes");
    sfu_print_str(sink, "\n");
    lines++;
  }
  return lines;
}

constexpr uint32_t kDataBytesPerLine = 48;

void base64(const sfu_sink *sink, const uint8_t *p, uint32_t n) {
  const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (uint32_t i = 0; i < n; i += 3) {
    uint32_t left = n - i;
    uint32_t v = uint32_t(p[i]) << 16 | (left > 1 ? uint32_t(p[i + 1]) << 8 : 0) | (left > 2 ? p[i + 2] : 0);
    print::put_char(sink, alphabet[(v >> 18) & 63]);
    print::put_char(sink, alphabet[(v >> 12) & 63]);
    print::put_char(sink, left > 1 ? alphabet[(v >> 6) & 63] : '=');
    print::put_char(sink, left > 2 ? alphabet[v & 63] : '=');
  }
}

// "sfu-crash-data N BASE64" and then " 0x" and the CRC-32 of exactly those characters.
void data_line(const sfu_sink *sink, const uint8_t *rec, uint32_t length, uint32_t line) {
  print::ChecksummedLine sum(sink);
  sfu_print_str(&sum.sink, "sfu-crash-data ");
  sfu_print_udec(&sum.sink, line);
  sfu_print_str(&sum.sink, " ");
  uint32_t at = line * kDataBytesPerLine;
  uint32_t n = length - at < kDataBytesPerLine ? length - at : kDataBytesPerLine;
  base64(&sum.sink, rec + at, n);
  sum.end();
}

}  // namespace
}  // namespace sfu::crash

using namespace sfu::crash;

extern "C" size_t sfu_crash_print(const struct sfu_sink *sink, const struct sfu_crash_view *view) {
  if constexpr (!sfu::config::kCrashRecords) return 0;
  if (!view || !view->rec || !sink || !sink->putc) return 0;
  const sfu_crash_view &v = *view;
  sfu_crash_summary s;
  sfu_crash_get_summary(&v, &s);
  uint32_t crc = 0;
  sfu::sframe::Bytes{v.rec, v.length, v.big_endian != 0}.u32(hdr::kCrc, crc);
  uint32_t data_lines = (v.length + kDataBytesPerLine - 1) / kDataBytesPerLine;

  sfu_print_str(sink, "sfu-crash-begin v1 ");
  sfu_print_str(sink, sfu_abi_name(v.abi));
  sfu_print_str(sink, " len=");
  sfu_print_udec(sink, v.length);
  sfu_print_str(sink, " crc=");
  sfu_print_hex(sink, crc, 8);
  sfu_print_str(sink, "\n");
  size_t lines = 1;
  lines += print_header_lines(sink, v, s);
  lines += print_trace_lines(sink, v, s);
  for (uint32_t i = 0; i < data_lines; i++) data_line(sink, v.rec, v.length, i);
  lines += data_lines;
  sfu_print_str(sink, "sfu-crash-end lines=");
  sfu_print_udec(sink, data_lines);
  sfu_print_str(sink, " crc=");
  sfu_print_hex(sink, crc, 8);
  sfu_print_str(sink, "\n");
  return lines + 1;
}
