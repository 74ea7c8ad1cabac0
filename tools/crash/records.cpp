// Finding records in a file: a binary record, or the begin/data/end lines of printed ones,
// wherever they sit in a line (a console may put a timestamp or a CPU number before each).
#include "tools/crash/records.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>

#include "crash/layout.h"
#include "sframe/format.h"
#include "sfu/crash.h"
#include "tools/text/log_lines.h"

namespace sfu::tools::crash {
namespace {

constexpr uint32_t kBytesPerLine = 48;
constexpr const char *kMarker = "sfu-crash";

int base64_value(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

// One line of the log, split at its first "sfu-crash" marker.
struct Line {
  size_t number;      // 1-based, as editors count
  std::string kind;   // "begin", "data", "end", "text" (readable), or "" (not ours)
  std::string body;   // from the marker on, trailing white space removed
  std::string rest;   // what follows "sfu-crash-KIND "
};

Line classify(size_t number, const std::string &text) {
  Line l{number, "", marked_text(text, kMarker), ""};
  if (l.body.empty()) return l;
  for (const char *kind : {"begin", "data", "end"}) {
    std::string head = std::string(kMarker) + "-" + kind + " ";
    if (l.body.compare(0, head.size(), head) == 0) {
      l.kind = kind;
      l.rest = l.body.substr(head.size());
      return l;
    }
  }
  if (l.body.compare(0, strlen(kMarker) + 1, std::string(kMarker) + ":") == 0) l.kind = "text";
  return l;
}

bool parse_number(const std::string &s, int base, uint64_t &out) {
  if (s.empty() || s.size() > 20) return false;
  char *end = nullptr;
  errno = 0;
  out = strtoull(s.c_str(), &end, base);
  return errno == 0 && *end == '\0' && isxdigit(static_cast<unsigned char>(s[0]));
}

// "key=value" with the value a number (0x-prefixed hex for crc, decimal otherwise).
bool field(const std::string &word, const std::string &key, uint64_t &out) {
  std::string head = key + "=";
  if (word.compare(0, head.size(), head) != 0) return false;
  std::string v = word.substr(head.size());
  if (key == "crc") return v.size() == 10 && v.compare(0, 2, "0x") == 0 && parse_number(v.substr(2), 16, out);
  return parse_number(v, 10, out);
}

std::string where(const std::string &name, size_t first, size_t last) {
  return name + ":" + std::to_string(first) + (last != first ? "-" + std::to_string(last) : "");
}

// A data line that passed its checksum: its index and bytes.
struct DataLine {
  size_t number;
  uint64_t index;
  std::vector<uint8_t> bytes;
};

// A record whose begin line has been seen and whose end line has not. Its data lines are those
// the log holds from its begin line on (Log::data from data_from), whatever else sits between.
struct Candidate {
  size_t begin_line = 0;
  bool parsed = false;   // length and CRC read from the begin line
  uint64_t length = 0, crc = 0;
  std::string problem;   // the begin line's: damaged, or a text format this sfu does not read
  size_t data_from = 0, bad_from = 0;
  std::string skipped_end;  // the last end line inside it that did not match, and why

  uint64_t data_lines() const { return (length + kBytesPerLine - 1) / kBytesPerLine; }
};

std::string line_no(size_t n) { return "line " + std::to_string(n); }

std::string hex8(uint64_t v) {
  char buf[16];
  snprintf(buf, sizeof buf, "0x%08llx", static_cast<unsigned long long>(v));
  return buf;
}

// Whether a record's CRC field and the CRC-32 of what it covers are both `crc`.
bool crc_is(const std::vector<uint8_t> &rec, uint64_t crc) {
  using namespace sfu::crash;
  if (rec.size() <= kCrcFrom || rec.size() <= hdr::kAbi) return false;
  bool big = sfu::sframe::abi_big_endian(rec[hdr::kAbi]);
  uint32_t field = 0;
  for (unsigned i = 0; i < 4; i++) field |= uint32_t(rec[hdr::kCrc + (big ? 3 - i : i)]) << (8 * i);
  return field == crc && sfu_crc32(0, rec.data() + kCrcFrom, rec.size() - kCrcFrom) == crc;
}

// The reader of one log: every line in order; a record's lines are told from others by their
// checksums and counts, so a marker line that does not check (a module name printed raw by an
// older sfunwind, a console's noise) is skipped with a note, and the record around it decoded.
class Log {
 public:
  Log(const std::string &name, std::vector<FoundRecord> &out) : name_(name), out_(out) {}

  void line(const Line &l) {
    if (l.kind == "begin") begin(l);
    else if (l.kind == "data") data(l);
    else if (l.kind == "end") end(l);
  }

  // The records still open at the end of the log, then every record in the order of its first line.
  void finish(size_t last) {
    while (!open_.empty()) unended(last);
    std::stable_sort(found_.begin(), found_.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    for (auto &f : found_) out_.push_back(std::move(f.second));
  }

  bool any = false;  // a begin, data or end line was seen

 private:
  void emit(size_t first, FoundRecord r) { found_.emplace_back(first, std::move(r)); }

  void note(size_t number, const std::string &text) { notes_.emplace_back(number, line_no(number) + ": " + text); }

  // The notes of lines first..last, in line order.
  std::vector<std::string> notes_in(size_t first, size_t last) const {
    std::vector<std::pair<size_t, std::string>> in;
    for (const auto &n : notes_)
      if (n.first >= first && n.first <= last) in.push_back(n);
    std::stable_sort(in.begin(), in.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    std::vector<std::string> out;
    for (auto &n : in) out.push_back(std::move(n.second));
    return out;
  }

  // Once no record is open, what was kept for open ones goes.
  void forget_if_none_open() {
    if (!open_.empty()) return;
    data_.clear();
    bad_.clear();
    notes_.clear();
  }

  void begin(const Line &l) {
    any = true;
    stray_from_ = 0;
    Candidate c;
    c.begin_line = l.number;
    std::vector<std::string> w = line_words(l.rest);
    if (w.size() != 4 || w[0] != "v1" || !field(w[2], "len", c.length) || !field(w[3], "crc", c.crc)) {
      c.problem = line_no(l.number) + ": " +
                  (!w.empty() && w[0].size() > 1 && w[0][0] == 'v' && w[0] != "v1"
                       ? "a record printed in text format " + w[0] + ", which this sfu does not read"
                       : "the begin line is damaged");
    } else {
      c.parsed = true;
    }
    c.data_from = data_.size();
    c.bad_from = bad_.size();
    open_.push_back(std::move(c));
  }

  void data(const Line &l) {
    any = true;
    if (open_.empty()) {
      if (!stray_from_) {
        stray_from_ = l.number;
        emit(l.number, {where(name_, l.number, l.number), {},
                        line_no(l.number) + ": data lines outside any record (its begin line is missing or damaged)", {}});
      }
      return;
    }
    // "N BASE64 0xCRC": the CRC is that of the line's text up to the last base64 character.
    std::vector<std::string> w = line_words(l.rest);
    uint64_t index;
    uint32_t crc = 0;
    std::string summed;
    bool parsed = w.size() == 3 && parse_number(w[0], 10, index) && split_line_crc(l.body, summed, crc);
    if (!parsed || line_crc(summed) != crc) {
      bad_.emplace_back(l.number, "data line fails its checksum");
      return;
    }
    std::vector<uint8_t> bytes;
    if (!base64_decode(w[1], bytes) || bytes.empty() || bytes.size() > kBytesPerLine) {
      bad_.emplace_back(l.number, "data line " + w[0] + " holds no valid base64 (its checksum is right: a writer fault)");
      return;
    }
    data_.push_back({l.number, index, std::move(bytes)});
  }

  void end(const Line &l) {
    any = true;
    stray_from_ = 0;
    if (open_.empty()) {
      emit(l.number, {where(name_, l.number, l.number), {}, line_no(l.number) + ": an end line without its begin line", {}});
      return;
    }
    std::vector<std::string> w = line_words(l.rest);
    uint64_t lines = 0, crc = 0;
    bool parsed = w.size() == 2 && field(w[0], "lines", lines) && field(w[1], "crc", crc);
    // The latest open record it is the end of: the same data line count and CRC as its begin line.
    size_t k = open_.size();
    while (parsed && k-- > 0)
      if (open_[k].parsed && open_[k].data_lines() == lines && open_[k].crc == crc) return close(k, l.number);
    // None: the end of a record whose begin line is damaged (nothing to check it by), or a line
    // that only looks like an end line: skipped, the record around it stays open.
    if (!open_.back().parsed) return close(open_.size() - 1, l.number);
    Candidate &in = open_.back();
    in.skipped_end = line_no(l.number) + ": " +
                     (parsed ? "lines=" + std::to_string(lines) + " crc=" + hex8(crc) + ", not lines=" +
                                   std::to_string(in.data_lines()) + " crc=" + hex8(in.crc)
                             : std::string("a damaged end line"));
    note(l.number, (parsed ? std::string("an end line that does not match the begin line (line ") +
                                 std::to_string(in.begin_line) + "), skipped"
                           : std::string("a damaged end line inside the record, skipped")));
  }

  // Record k ends at line `last`; the records begun inside it are no records (forged or damaged
  // begin lines): skipped with a note. Records begun before it stay open.
  void close(size_t k, size_t last) {
    Candidate c = std::move(open_[k]);
    std::vector<std::string> nested;
    for (size_t i = k + 1; i < open_.size(); i++)
      nested.push_back(line_no(open_[i].begin_line) + ": a begin line inside the record, skipped");
    open_.resize(k);
    FoundRecord r{where(name_, c.begin_line, last), {}, c.problem, notes_in(c.begin_line, last)};
    if (r.problem.empty()) assemble(c, r);
    r.notes.insert(r.notes.end(), nested.begin(), nested.end());
    std::stable_sort(r.notes.begin(), r.notes.end(), [](const std::string &a, const std::string &b) {
      return strtoull(a.c_str() + 5, nullptr, 10) < strtoull(b.c_str() + 5, nullptr, 10);
    });
    emit(c.begin_line, std::move(r));
    forget_if_none_open();
  }

  void unended(size_t last) {
    Candidate c = std::move(open_.back());
    open_.pop_back();
    std::string problem = c.problem;
    if (problem.empty())
      problem = "the record begun at line " + std::to_string(c.begin_line) +
                (c.skipped_end.empty() ? " has no end line (the log is cut short, or the end line is damaged)"
                                       : " has no end line that matches it (" + c.skipped_end + ")");
    emit(c.begin_line, {where(name_, c.begin_line, last), {}, problem, notes_in(c.begin_line, last)});
    forget_if_none_open();
  }

  // The record's bytes from its data lines: every index from 0 to D - 1, 48 bytes in each but
  // the last, the length in all. An index seen with different contents (a data line forged with a
  // right checksum) is decided by the record's CRC, which the begin line gives.
  void assemble(const Candidate &c, FoundRecord &r) {
    uint64_t lines = c.data_lines();
    std::vector<std::vector<const DataLine *>> variants(lines);
    std::map<uint64_t, std::string> wrong_size;  // the first line of an index with the wrong size
    for (size_t i = c.data_from; i < data_.size(); i++) {
      const DataLine &d = data_[i];
      if (d.index >= lines) {
        r.notes.push_back(line_no(d.number) + ": data line " + std::to_string(d.index) + ", past the record's " +
                          std::to_string(lines) + ", skipped");
        continue;
      }
      uint64_t want = d.index + 1 < lines ? kBytesPerLine : c.length - d.index * kBytesPerLine;
      if (d.bytes.size() != want) {
        std::string why = "data line " + std::to_string(d.index) + " holds " + std::to_string(d.bytes.size()) +
                          " bytes, not " + std::to_string(want);
        r.notes.push_back(line_no(d.number) + ": " + why + ", skipped");
        wrong_size.emplace(d.index, why);
        continue;
      }
      bool seen = false;  // a repeated line (some consoles echo): the same contents, once
      for (const DataLine *v : variants[d.index]) seen = seen || v->bytes == d.bytes;
      if (!seen) variants[d.index].push_back(&d);
    }
    std::vector<std::pair<size_t, std::string>> bad(bad_.begin() + long(c.bad_from), bad_.end());
    for (uint64_t i = 0; i < lines; i++) {
      if (!variants[i].empty()) continue;
      if (!bad.empty()) {
        r.problem = line_no(bad[0].first) + ": " + bad[0].second;
        if (bad.size() > 1) r.problem += " (and " + std::to_string(bad.size() - 1) + " more such lines)";
      } else {
        auto it = wrong_size.find(i);
        r.problem = it != wrong_size.end() ? it->second
                                            : "data line " + std::to_string(i) + " of " + std::to_string(lines) + " is missing";
      }
      r.notes.clear();
      return;
    }
    for (const auto &b : bad) r.notes.push_back(line_no(b.first) + ": " + b.second + ", skipped");
    std::vector<size_t> pick(lines, 0);
    if (!choose(c, variants, pick, r)) return;
    for (uint64_t i = 0; i < lines; i++) {
      const std::vector<uint8_t> &b = variants[i][pick[i]]->bytes;
      r.bytes.insert(r.bytes.end(), b.begin(), b.end());
      for (size_t v = 0; v < variants[i].size(); v++)
        if (v != pick[i])
          r.notes.push_back(line_no(variants[i][v]->number) + ": data line " + std::to_string(i) +
                            " with contents the record's CRC rules out, skipped");
    }
  }

  // Which contents of each index make the record's CRC the begin line's: the first choice that
  // does, trying at most kChoices. One content per index (every real log): nothing to choose.
  bool choose(const Candidate &c, const std::vector<std::vector<const DataLine *>> &variants,
              std::vector<size_t> &pick, FoundRecord &r) {
    constexpr uint64_t kChoices = 256;
    uint64_t choices = 1;
    for (const auto &v : variants) choices = std::min<uint64_t>(choices * v.size(), kChoices + 1);
    if (choices == 1) return true;
    for (uint64_t n = 0; n < std::min(choices, kChoices); n++) {
      uint64_t rest = n;
      for (size_t i = 0; i < variants.size(); i++) {
        pick[i] = rest % variants[i].size();
        rest /= variants[i].size();
      }
      std::vector<uint8_t> bytes;
      for (size_t i = 0; i < variants.size(); i++)
        bytes.insert(bytes.end(), variants[i][pick[i]]->bytes.begin(), variants[i][pick[i]]->bytes.end());
      if (crc_is(bytes, c.crc)) return true;
    }
    for (size_t i = 0; i < variants.size(); i++)
      if (variants[i].size() > 1) {
        r.problem = "data line " + std::to_string(i) + " appears with " + std::to_string(variants[i].size()) +
                    " different contents (" + line_no(variants[i][0]->number) + ", " +
                    line_no(variants[i][1]->number) + "), and no choice " +
                    (choices > kChoices ? "of the first " + std::to_string(kChoices) + " " : "") +
                    "gives the record's CRC";
        break;
      }
    r.notes.clear();
    return false;
  }

  const std::string &name_;
  std::vector<FoundRecord> &out_;
  std::vector<std::pair<size_t, FoundRecord>> found_;  // by first line
  std::vector<Candidate> open_;                        // by begin line
  std::vector<DataLine> data_;                         // since the first open record's begin line
  std::vector<std::pair<size_t, std::string>> bad_;    // data lines that do not check, and why
  std::vector<std::pair<size_t, std::string>> notes_;  // lines skipped inside open records
  size_t stray_from_ = 0;  // first line of a run of data lines outside any record
};

bool read_log(const std::string &text, const std::string &name, std::vector<FoundRecord> &out) {
  Log log(name, out);
  size_t number = 0;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    log.line(classify(++number, text.substr(at, nl - at)));
    at = nl + 1;
  }
  log.finish(number);
  return log.any;
}

}  // namespace

bool base64_decode(const std::string &text, std::vector<uint8_t> &out) {
  if (text.size() % 4 != 0) return false;
  for (size_t i = 0; i < text.size(); i += 4) {
    bool last = i + 4 == text.size();
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; k++) {
      char c = text[i + k];
      if (c == '=' && last && k >= 2) {
        v[k] = 0;
        pad++;
      } else if (pad || (v[k] = base64_value(c)) < 0) {
        return false;  // a character after padding, or not of the alphabet
      }
    }
    uint32_t bits = uint32_t(v[0]) << 18 | uint32_t(v[1]) << 12 | uint32_t(v[2]) << 6 | uint32_t(v[3]);
    out.push_back(uint8_t(bits >> 16));
    if (pad < 2) out.push_back(uint8_t(bits >> 8));
    if (pad < 1) out.push_back(uint8_t(bits));
  }
  return true;
}

bool find_records(const std::vector<uint8_t> &input, const std::string &name, std::vector<FoundRecord> &out,
                  std::string &error) {
  out.clear();
  if (input.size() >= sizeof sfu::crash::kMagic &&
      memcmp(input.data(), sfu::crash::kMagic, sizeof sfu::crash::kMagic) == 0) {
    out.push_back({name, input, "", {}});
    return true;
  }
  if (read_log(std::string(input.begin(), input.end()), name, out)) return true;
  error = "no crash record: neither the record magic at the start nor a sfu-crash-begin line";
  return false;
}

}  // namespace sfu::tools::crash
