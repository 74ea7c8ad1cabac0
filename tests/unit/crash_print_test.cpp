// Printed crash records (sfu_crash_print) and the host's reader of them (tools/crash/records.h):
// the exact lines, and round trips through logs as consoles mangle them.
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "crash/layout.h"
#include "sfu/print.h"
#include "support/crash_machines.h"
#include "tools/crash/records.h"

using namespace sfu::test;
using sfu::tools::crash::base64_decode;
using sfu::tools::crash::find_records;
using sfu::tools::crash::FoundRecord;

namespace {

std::vector<std::string> lines_of(const std::string &text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::string join(const std::vector<std::string> &lines, const std::string &prefix = "", const char *eol = "\n") {
  std::string s;
  for (const std::string &l : lines) s += prefix + l + eol;
  return s;
}

std::vector<uint8_t> bytes_of(const std::string &s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// A record captured (and taken, as a boot would) from the ABI's machine, and its printed text.
struct Printed {
  Area area{8192};
  sfu_crash_view view{};
  std::string text;
  size_t lines = 0;
  std::vector<uint8_t> record() const { return std::vector<uint8_t>(view.rec, view.rec + view.length); }
};

std::unique_ptr<Printed> print_record(CrashMachine &m, const char *message = "oops") {
  auto p = std::make_unique<Printed>();
  sfu_walk_config config = m.config();
  sfu_crash_info info{SFU_CRASH_EXCEPTION, 14, 0x18, message};
  EXPECT_EQ(sfu_crash_capture(p->area.data(), p->area.size(), &info, &m.start, &config), SFU_OK);
  EXPECT_EQ(sfu_crash_take(&p->view, p->area.data(), p->area.size()), SFU_OK);
  PrintedText out;
  p->lines = sfu_crash_print(&out.sink, &p->view);
  p->text = out.s;
  return p;
}

std::vector<FoundRecord> found_in(const std::string &log) {
  std::vector<FoundRecord> found;
  std::string error;
  EXPECT_TRUE(find_records(bytes_of(log), "serial.log", found, error)) << error;
  return found;
}

size_t first_data_line(const std::vector<std::string> &lines) {
  for (size_t i = 0; i < lines.size(); i++)
    if (lines[i].rfind("sfu-crash-data ", 0) == 0) return i;
  return lines.size();
}

TEST(CrashPrint, TheLinesOfARecord) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto p = print_record(m, "page fault\nin\tleaf");
  std::vector<std::string> l = lines_of(p->text);
  EXPECT_EQ(p->lines, l.size());
  char begin[80];
  snprintf(begin, sizeof begin, "sfu-crash-begin v1 x86_64 len=%u crc=0x%08x", p->view.length,
           unsigned(sfu_crc32(0, p->view.rec + 16, p->view.length - 16)));
  ASSERT_GE(l.size(), 10u);
  EXPECT_EQ(l[0], begin);
  EXPECT_EQ(l[1], "sfu-crash: exception (reason 0x2, detail 0xe, fault address 0x18)");
  EXPECT_EQ(l[2], "sfu-crash: message: page fault?in?leaf");  // control characters never reach the console
  EXPECT_EQ(l[3], "sfu-crash: module 0 kernel 0x0000000000100000-0x0000000000101000 build-id "
                  "5a1f009c42e713886d01b47e20c3990a55f03b61");
  // The module line and the frames exactly as the live backtrace prints them, behind the marker.
  PrintedText live;
  sfu_walk_config config = m.config();
  sfu_print_backtrace(&live.sink, &m.start, &config);
  std::vector<std::string> want = lines_of(live.s);
  ASSERT_EQ(want.size(), 5u);
  for (size_t i = 0; i < want.size(); i++) EXPECT_EQ(l[3 + i], "sfu-crash: " + want[i]);
  EXPECT_EQ(l[7], "sfu-crash: stop: end-of-stack (reliable)");
  size_t data = first_data_line(l);
  ASSERT_EQ(data, 8u);
  size_t data_lines = (p->view.length + 47) / 48;
  ASSERT_EQ(l.size(), data + data_lines + 1);
  char end[80];
  snprintf(end, sizeof end, "sfu-crash-end lines=%zu crc=0x%08x", data_lines,
           unsigned(sfu_crc32(0, p->view.rec + 16, p->view.length - 16)));
  EXPECT_EQ(l.back(), end);
  // A data line: its index, 48 bytes in base64, the CRC-32 of the text before the checksum.
  for (size_t i = 0; i < data_lines; i++) {
    const std::string &d = l[data + i];
    std::string head = "sfu-crash-data " + std::to_string(i) + " ";
    ASSERT_EQ(d.rfind(head, 0), 0u) << d;
    size_t cut = d.rfind(' ');
    char crc[16];
    snprintf(crc, sizeof crc, "0x%08x", unsigned(sfu_crc32(0, d.data(), cut)));
    EXPECT_EQ(d.substr(cut + 1), crc);
    std::vector<uint8_t> bytes;
    ASSERT_TRUE(base64_decode(d.substr(head.size(), cut - head.size()), bytes));
    size_t n = std::min<size_t>(48, p->view.length - 48 * i);
    ASSERT_EQ(bytes.size(), n);
    EXPECT_EQ(0, memcmp(bytes.data(), p->view.rec + 48 * i, n));
  }
}

TEST(CrashPrint, NamesFromTheRunningImageWithTheSameBuildId) {
  CrashModuleOptions named;
  named.names = true;
  CrashMachine m = crash_machine(SFU_ABI_AARCH64_LE, named);
  ASSERT_EQ(m.reg->module().symbols_error, SFU_OK);
  auto p = print_record(m);
  std::vector<std::string> l = lines_of(p->text);
  EXPECT_NE(l[4].find("  kernel  leaf+0x4/0x20"), std::string::npos) << l[4];
  EXPECT_NE(l[5].find("  kernel  mid+0x14/0x40"), std::string::npos) << l[5];
  EXPECT_NE(l[6].find("  kernel  outer+0x24/0x40"), std::string::npos) << l[6];

  // The running image has another build-id: its names would be wrong, so none are printed; the
  // module is named as the record names it.
  std::vector<uint8_t> record = p->record();
  m = CrashMachine{};
  CrashModuleOptions other = named;
  other.build_id = {1, 2, 3, 4};
  CrashMachine rebuilt = crash_machine(SFU_ABI_AARCH64_LE, other);
  sfu_crash_view v;
  ASSERT_EQ(sfu_crash_open(&v, record.data(), record.size()), SFU_OK);
  PrintedText out;
  sfu_crash_print(&out.sink, &v);
  l = lines_of(out.s);
  EXPECT_EQ(l[4].find("leaf"), std::string::npos) << l[4];
  EXPECT_EQ(l[4].substr(l[4].size() - 8), "  kernel") << l[4];
}

TEST(CrashPrint, ACutShortRecordSaysSo) {
  CrashMachine m = crash_machine(SFU_ABI_S390X_BE);
  sfu_walk_config config = m.config();
  size_t size = sfu::crash::kFixedSize + sfu::crash::module::kSize + sfu::crash::frame::kSize;
  Area area(size);
  ASSERT_EQ(sfu_crash_capture(area.data(), size, nullptr, &m.start, &config), SFU_OK);
  sfu_crash_view v;
  ASSERT_EQ(sfu_crash_open(&v, area.data(), size), SFU_OK);
  PrintedText out;
  sfu_crash_print(&out.sink, &v);
  EXPECT_NE(out.s.find("\nsfu-crash: other (reason 0x0, detail 0x0, fault address 0x0)\n"), std::string::npos);
  EXPECT_NE(out.s.find("\nsfu-crash: cut short: frames (1 of 3 kept) stack-bytes\n"), std::string::npos) << out.s;
}

TEST(CrashPrint, RoundTripOnEveryAbi) {
  for (uint8_t abi : kCrashAbis) {
    CrashMachine m = crash_machine(abi);
    auto p = print_record(m);
    std::vector<FoundRecord> found = found_in(p->text);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].problem, "");
    EXPECT_EQ(found[0].bytes, p->record()) << int(abi);
    EXPECT_EQ(found[0].where, "serial.log:1-" + std::to_string(p->lines));
  }
}

TEST(CrashPrint, LinesPrefixedByTheConsoleAndCrLf) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto p = print_record(m);
  std::string log = "boot log\n" + join(lines_of(p->text), "[    3.141592] cpu1: ", "\r\n") + "$ \n";
  std::vector<FoundRecord> found = found_in(log);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].bytes, p->record());
}

TEST(CrashPrint, TwoRecordsInOneLog) {
  CrashMachine m = crash_machine(SFU_ABI_AARCH64_BE);
  auto a = print_record(m, "first");
  auto b = print_record(m, "second");
  std::string log = "noise\n" + a->text + "more noise\nsfu-crash: a stray readable line\n" + b->text;
  std::vector<FoundRecord> found = found_in(log);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].bytes, a->record());
  EXPECT_EQ(found[1].bytes, b->record());
  EXPECT_EQ(found[1].where, "serial.log:" + std::to_string(a->lines + 4) + "-" + std::to_string(a->lines + 3 + b->lines));
}

TEST(CrashPrint, ACorruptedLineIsNamed) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto p = print_record(m);
  std::vector<std::string> l = lines_of(p->text);
  size_t data = first_data_line(l);
  for (size_t which : {data, data + 3, l.size() - 2}) {
    for (size_t at : {size_t(17), size_t(40), l[which].size() - 1}) {
      std::vector<std::string> bad = l;
      bad[which][at] = bad[which][at] == 'A' ? 'B' : 'A';
      std::vector<FoundRecord> found = found_in(join(bad));
      ASSERT_EQ(found.size(), 1u);
      EXPECT_TRUE(found[0].bytes.empty());
      EXPECT_EQ(found[0].problem, "line " + std::to_string(which + 1) + ": data line fails its checksum");
    }
  }
  // Two bad lines: the first is named, the count of the rest given.
  std::vector<std::string> bad = l;
  bad[data][20] ^= 1;
  bad[data + 1][20] ^= 1;
  EXPECT_EQ(found_in(join(bad))[0].problem,
            "line " + std::to_string(data + 1) + ": data line fails its checksum (and 1 more such lines)");
}

TEST(CrashPrint, MissingRepeatedAndReorderedLines) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto p = print_record(m);
  std::vector<std::string> l = lines_of(p->text);
  size_t data = first_data_line(l);
  size_t count = l.size() - 1 - data;
  std::vector<std::string> missing = l;
  missing.erase(missing.begin() + data + 2);
  EXPECT_EQ(found_in(join(missing))[0].problem, "data line 2 of " + std::to_string(count) + " is missing");
  // A console that echoes a line, or a log merged out of order, still gives the record.
  std::vector<std::string> shuffled = l;
  std::swap(shuffled[data], shuffled[data + 1]);
  shuffled.insert(shuffled.begin() + data + 3, l[data + 2]);
  EXPECT_EQ(found_in(join(shuffled))[0].bytes, p->record());
}

TEST(CrashPrint, ALogCutShort) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto p = print_record(m);
  std::vector<std::string> l = lines_of(p->text);
  l.resize(first_data_line(l) + 2);
  std::vector<FoundRecord> found = found_in(join(l));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].problem, "the record begun at line 1 has no end line (the log is cut short, or the end line is damaged)");
  // And a second begin before the first's end: the first is cut short, the second decodes.
  std::vector<FoundRecord> two = found_in(join(l) + p->text);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_FALSE(two[0].problem.empty());
  EXPECT_EQ(two[1].bytes, p->record());
}

TEST(CrashPrint, DamagedBeginAndEndLines) {
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto p = print_record(m);
  std::vector<std::string> l = lines_of(p->text);
  std::vector<std::string> bad = l;
  bad[0] = "sfu-crash-begin v2 x86_64 len=10 crc=0x00000000";
  EXPECT_EQ(found_in(join(bad))[0].problem, "line 1: a record printed in text format v2, which this sfu does not read");
  bad[0] = "sfu-crash-begin v1 x86_64 len=1O crc=0x00000000";
  EXPECT_EQ(found_in(join(bad))[0].problem, "line 1: the begin line is damaged");
  // An end line that does not match the begin line, or is damaged, is no end of this record: it
  // is skipped, and the record has no end.
  bad = l;
  bad.back() = "sfu-crash-end lines=3 crc=0x00000000";
  char want[160];
  snprintf(want, sizeof want, "not lines=%u crc=0x%08x)", unsigned((p->view.length + 47) / 48),
           unsigned(sfu_crc32(0, p->view.rec + 16, p->view.length - 16)));
  std::vector<FoundRecord> found = found_in(join(bad));
  EXPECT_EQ(found[0].problem, "the record begun at line 1 has no end line that matches it (line " +
                                  std::to_string(l.size()) + ": lines=3 crc=0x00000000, " + want);
  EXPECT_EQ(found[0].notes, std::vector<std::string>{"line " + std::to_string(l.size()) +
                                                     ": an end line that does not match the begin line (line 1), skipped"});
  bad.back() = "sfu-crash-end lines=";
  EXPECT_EQ(found_in(join(bad))[0].problem, "the record begun at line 1 has no end line that matches it (line " +
                                                std::to_string(l.size()) + ": a damaged end line)");
  // The right end line after them: the record decodes, the skipped one noted.
  bad.push_back(l.back());
  found = found_in(join(bad));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].bytes, p->record());
  EXPECT_EQ(found[0].notes, std::vector<std::string>{"line " + std::to_string(l.size()) +
                                                     ": a damaged end line inside the record, skipped"});
  // Without its begin line: the data lines and the end line are named, never decoded.
  bad = l;
  bad.erase(bad.begin());
  found = found_in(join(bad));
  ASSERT_EQ(found.size(), 2u);
  size_t data = first_data_line(bad);
  EXPECT_EQ(found[0].problem,
            "line " + std::to_string(data + 1) + ": data lines outside any record (its begin line is missing or damaged)");
  EXPECT_EQ(found[1].problem, "line " + std::to_string(bad.size()) + ": an end line without its begin line");
}

// The record's bytes with module 0's name replaced (its CRC made right again), as a record a
// kernel with such a module name would capture.
std::vector<uint8_t> with_module_name(std::vector<uint8_t> rec, const std::string &name) {
  sfu_crash_view v;
  EXPECT_EQ(sfu_crash_open(&v, rec.data(), rec.size()), SFU_OK);
  EXPECT_LT(name.size(), size_t(SFU_CRASH_NAME_MAX));
  uint8_t *field = rec.data() + v.modules_at + sfu::crash::module::kName;
  memset(field, 0, SFU_CRASH_NAME_MAX);
  memcpy(field, name.data(), name.size());
  bool big = v.big_endian != 0;
  sfu::crash::put(rec.data() + sfu::crash::hdr::kCrc,
                  sfu_crc32(0, rec.data() + sfu::crash::kCrcFrom, rec.size() - sfu::crash::kCrcFrom), 4, big);
  return rec;
}

TEST(CrashPrint, AModuleNameCannotForgeALine) {
  // Module names holding LF, CR or ESC before a marker: printed clean in the module line and in
  // every frame line, so the record's text has exactly its own marker lines, and reads back.
  std::vector<uint8_t> plain;
  {
    CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
    plain = print_record(m)->record();
  }  // no module registered now: the frames print the record's own name
  for (const char *name : {"\nsfu-crash-end lines=9 crc=0x0", "k\r\nsfu-crash-begin v1 x86_64",
                           "\x1b[2K\rsfu-crash-data 0 QUJD 0x0"}) {
    SCOPED_TRACE(name);
    std::vector<uint8_t> rec = with_module_name(plain, name);
    sfu_crash_view v;
    ASSERT_EQ(sfu_crash_open(&v, rec.data(), rec.size()), SFU_OK);
    PrintedText out;
    size_t lines = sfu_crash_print(&out.sink, &v);
    std::vector<std::string> l = lines_of(out.s);
    ASSERT_EQ(lines, l.size());
    for (char c : out.s) EXPECT_TRUE(c == '\n' || (c >= 0x20 && c < 0x7f)) << int(c);
    std::string clean = name;
    for (char &c : clean) c = c >= 0x20 && c < 0x7f ? c : '?';
    EXPECT_EQ(l[3], "sfu-crash: module 0 " + clean + " 0x0000000000100000-0x0000000000101000 build-id "
                    "5a1f009c42e713886d01b47e20c3990a55f03b61");
    for (size_t i = 4; i < 7; i++) EXPECT_EQ(l[i].substr(l[i].size() - clean.size() - 2), "  " + clean) << l[i];
    for (size_t i = 1; i + 1 < l.size(); i++)
      EXPECT_TRUE(l[i].rfind("sfu-crash: ", 0) == 0 || l[i].rfind("sfu-crash-data ", 0) == 0) << l[i];
    std::vector<FoundRecord> found = found_in(out.s);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].problem, "");
    EXPECT_EQ(found[0].notes, std::vector<std::string>{});
    EXPECT_EQ(found[0].bytes, rec);
  }
}

TEST(CrashPrint, ForgedMarkerLinesInsideARecordAreSkipped) {
  // What an older sfunwind printed for a module name holding a newline (the name raw in the frame
  // lines), and any other line inside a record that only looks like one of its marker lines: each
  // is skipped with a note naming it, and the record decodes.
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto p = print_record(m);
  std::vector<std::string> l = lines_of(p->text);
  size_t data = first_data_line(l);
  size_t count = l.size() - 1 - data;
  std::vector<uint8_t> zeros(48, 0);
  std::string forged_data = "sfu-crash-data 0 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
  char crc[16];
  snprintf(crc, sizeof crc, " 0x%08x", unsigned(sfu_crc32(0, forged_data.data(), forged_data.size())));
  forged_data += crc;  // a right checksum: only the record's CRC tells it from the real line 0
  std::vector<std::string> forged = {
      "sfu-crash:  #1     0x0000000000100120  sp 0x0000000000007f10  task   [table]      ",
      "sfu-crash-end lines=9 crc=0x0",  // the issue's: the name cut to fit the record
      "sfu-crash-end lines=" + std::to_string(count) + " crc=0x12345678",
      "sfu-crash-begin v1 x86_64 len=400 crc=0x00000000",
      forged_data,
      "sfu-crash-data 3 QUJD 0x00000000",
      "sfu-crash-begin v1 x86_64 len=1O",
  };
  std::vector<std::string> log = l;
  log.insert(log.begin() + 5, forged.begin(), forged.end());  // after frame line #0
  size_t at = 6;  // the first forged line's number (1-based)
  std::vector<FoundRecord> found = found_in(join(log));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].problem, "");
  EXPECT_EQ(found[0].bytes, p->record());
  EXPECT_EQ(found[0].where, "serial.log:1-" + std::to_string(log.size()));
  auto line = [&](size_t k) { return "line " + std::to_string(at + k) + ": "; };
  EXPECT_EQ(found[0].notes,
            (std::vector<std::string>{
                line(1) + "a damaged end line inside the record, skipped",
                line(2) + "an end line that does not match the begin line (line 1), skipped",
                line(3) + "a begin line inside the record, skipped",
                line(4) + "data line 0 with contents the record's CRC rules out, skipped",
                line(5) + "data line fails its checksum, skipped",
                line(6) + "a begin line inside the record, skipped",
            }));

  // The same lines where no record is open: what they are, as before.
  std::vector<FoundRecord> alone = found_in(join({forged[2], forged[4]}));
  ASSERT_EQ(alone.size(), 2u);
  EXPECT_EQ(alone[0].problem, "line 1: an end line without its begin line");
  EXPECT_EQ(alone[1].problem, "line 2: data lines outside any record (its begin line is missing or damaged)");
}

TEST(CrashPrint, AForgedRecordInsideARecord) {
  // A whole record's lines inside another's readable part (a log that quotes one, or a forgery
  // whose begin and end agree): the inner one decodes as what it is, the outer one still does.
  CrashMachine m = crash_machine(SFU_ABI_AMD64_LE);
  auto outer = print_record(m, "outer");
  auto inner = print_record(m, "inner");
  std::vector<std::string> l = lines_of(outer->text), in = lines_of(inner->text);
  std::vector<std::string> log = l;
  log.insert(log.begin() + 3, in.begin(), in.end());
  std::vector<FoundRecord> found = found_in(join(log));
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].where, "serial.log:1-" + std::to_string(log.size()));
  EXPECT_EQ(found[0].problem, "");
  EXPECT_EQ(found[0].bytes, outer->record());
  EXPECT_EQ(found[1].where, "serial.log:4-" + std::to_string(3 + in.size()));
  EXPECT_EQ(found[1].bytes, inner->record());
  // The outer record took the inner one's data lines as other contents of its indexes, and chose
  // its own by its CRC.
  EXPECT_FALSE(found[0].notes.empty());
  for (const std::string &n : found[0].notes) EXPECT_NE(n.find("the record's CRC rules out"), std::string::npos) << n;
}

TEST(CrashPrint, GarbageIsNoRecord) {
  std::mt19937 rng(3);
  for (int round = 0; round < 50; round++) {
    std::string junk(1000, ' ');
    for (char &c : junk) c = char(rng());
    std::vector<FoundRecord> found;
    std::string error;
    EXPECT_FALSE(find_records(bytes_of(junk), "junk", found, error));
    EXPECT_EQ(error, "no crash record: neither the record magic at the start nor a sfu-crash-begin line");
  }
  std::vector<FoundRecord> found;
  std::string error;
  EXPECT_FALSE(find_records({}, "empty", found, error));
}

TEST(CrashPrint, ABinaryRecordIsTakenAsItIs) {
  CrashMachine m = crash_machine(SFU_ABI_S390X_BE);
  auto p = print_record(m);
  std::vector<uint8_t> area(p->area.data(), p->area.data() + p->area.size());
  std::vector<FoundRecord> found;
  std::string error;
  ASSERT_TRUE(find_records(area, "record.bin", found, error));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].bytes, area);
  EXPECT_EQ(found[0].where, "record.bin");
}

TEST(CrashPrint, Base64) {
  std::vector<uint8_t> out;
  EXPECT_TRUE(base64_decode("", out));
  EXPECT_TRUE(base64_decode("Zm9vYmFy", out));
  EXPECT_TRUE(base64_decode("Zg==", out));
  EXPECT_TRUE(base64_decode("Zm8=", out));
  EXPECT_EQ(std::string(out.begin(), out.end()), "foobarffo");
  for (const char *bad : {"Zg=", "Z===", "Zg=a", "Zm9v!mFy", "Zg==Zg==", "=Zg="}) {
    std::vector<uint8_t> ignored;
    EXPECT_FALSE(base64_decode(bad, ignored)) << bad;
  }
}

}  // namespace
