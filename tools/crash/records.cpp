// Finding records in a file: a binary record, or the begin/data/end lines of printed ones,
// wherever they sit in a line (a console may put a timestamp or a CPU number before each).
#include "tools/crash/records.h"

#include <cstring>
#include <map>
#include <optional>

#include "crash/layout.h"
#include "sfu/crash.h"

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

Line classify(size_t number, std::string text) {
  while (!text.empty() && (text.back() == '\r' || text.back() == ' ' || text.back() == '\t')) text.pop_back();
  Line l{number, "", "", ""};
  size_t at = text.find(kMarker);
  if (at == std::string::npos) return l;
  l.body = text.substr(at);
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

// Words of a line, split at single spaces.
std::vector<std::string> words(const std::string &s) {
  std::vector<std::string> out;
  for (size_t at = 0; at <= s.size();) {
    size_t sp = s.find(' ', at);
    if (sp == std::string::npos) sp = s.size();
    out.push_back(s.substr(at, sp - at));
    at = sp + 1;
  }
  return out;
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

// A record whose begin line has been seen: its declared size and CRC, the data lines so far.
struct Open {
  size_t begin_line;
  uint64_t length, crc;
  std::map<uint64_t, std::vector<uint8_t>> data;  // line index -> bytes
  std::string problem;                            // the first thing found wrong
  size_t bad_lines = 0;

  void fail(const std::string &why) {
    if (problem.empty()) problem = why;
  }
};

std::string where(const std::string &name, size_t first, size_t last) {
  return name + ":" + std::to_string(first) + (last != first ? "-" + std::to_string(last) : "");
}

void on_data(Open &r, const Line &l) {
  // "N BASE64 0xCRC": the CRC is that of the line's text up to the last base64 character.
  std::vector<std::string> w = words(l.rest);
  uint64_t index, crc;
  size_t cut = l.body.rfind(' ');
  bool parsed = w.size() == 3 && parse_number(w[0], 10, index) && w[2].size() == 10 &&
                w[2].compare(0, 2, "0x") == 0 && parse_number(w[2].substr(2), 16, crc);
  std::string summed = l.body.substr(0, cut);
  if (!parsed || sfu_crc32(0, summed.data(), summed.size()) != crc) {
    if (r.bad_lines++ == 0) r.fail("line " + std::to_string(l.number) + ": data line fails its checksum");
    return;
  }
  std::vector<uint8_t> bytes;
  if (!base64_decode(w[1], bytes) || bytes.empty() || bytes.size() > kBytesPerLine) {
    r.fail("line " + std::to_string(l.number) + ": data line " + w[0] + " holds no valid base64 (its checksum is right: a writer fault)");
    return;
  }
  if (r.data.count(index)) return;  // a repeated line (some consoles echo): the first one stands
  r.data[index] = std::move(bytes);
}

// The end line: every data line there, each full but the last, adding up to the length.
FoundRecord on_end(Open &r, const Line &l, const std::string &name) {
  FoundRecord out{where(name, r.begin_line, l.number), {}, r.problem};
  std::vector<std::string> w = words(l.rest);
  uint64_t lines = 0, crc = 0;
  if (out.problem.empty() && (w.size() != 2 || !field(w[0], "lines", lines) || !field(w[1], "crc", crc)))
    out.problem = "line " + std::to_string(l.number) + ": the end line is damaged";
  if (out.problem.empty() && (crc != r.crc || lines != (r.length + kBytesPerLine - 1) / kBytesPerLine))
    out.problem = "line " + std::to_string(l.number) + ": the end line does not match the begin line (line " +
                  std::to_string(r.begin_line) + ")";
  for (uint64_t i = 0; out.problem.empty() && i < lines; i++) {
    auto it = r.data.find(i);
    if (it == r.data.end()) {
      out.problem = "data line " + std::to_string(i) + " of " + std::to_string(lines) + " is missing";
      break;
    }
    uint64_t want = i + 1 < lines ? kBytesPerLine : r.length - i * kBytesPerLine;
    if (it->second.size() != want) {
      out.problem = "data line " + std::to_string(i) + " holds " + std::to_string(it->second.size()) +
                    " bytes, not " + std::to_string(want);
      break;
    }
    out.bytes.insert(out.bytes.end(), it->second.begin(), it->second.end());
  }
  if (!out.problem.empty()) {
    if (r.bad_lines > 1) out.problem += " (and " + std::to_string(r.bad_lines - 1) + " more such lines)";
    out.bytes.clear();
  }
  return out;
}

bool read_log(const std::string &text, const std::string &name, std::vector<FoundRecord> &out) {
  std::optional<Open> open;
  size_t stray_from = 0;  // first line of a run of data lines outside any record
  bool any = false;
  auto close_unended = [&](size_t last) {
    if (!open) return;
    out.push_back({where(name, open->begin_line, last), {},
                   "the record begun at line " + std::to_string(open->begin_line) +
                       " has no end line (the log is cut short, or the end line is damaged)"});
    open.reset();
  };
  size_t number = 0;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    Line l = classify(++number, text.substr(at, nl - at));
    at = nl + 1;
    if (l.kind == "begin") {
      any = true;
      close_unended(number - 1);
      stray_from = 0;
      std::vector<std::string> w = words(l.rest);
      Open r{number, 0, 0, {}, "", 0};
      if (w.size() != 4 || w[0] != "v1" || !field(w[2], "len", r.length) || !field(w[3], "crc", r.crc)) {
        r.fail("line " + std::to_string(number) + ": " +
               (!w.empty() && w[0].size() > 1 && w[0][0] == 'v' && w[0] != "v1"
                    ? "a record printed in text format " + w[0] + ", which this sfu does not read"
                    : "the begin line is damaged"));
      }
      open = std::move(r);
    } else if (l.kind == "data") {
      any = true;
      if (open) {
        on_data(*open, l);
      } else if (!stray_from) {
        stray_from = number;
        out.push_back({where(name, number, number), {},
                       "line " + std::to_string(number) +
                           ": data lines outside any record (its begin line is missing or damaged)"});
      }
    } else if (l.kind == "end") {
      any = true;
      if (open) {
        out.push_back(on_end(*open, l, name));
        open.reset();
      } else {
        out.push_back({where(name, number, number), {},
                       "line " + std::to_string(number) + ": an end line without its begin line"});
      }
      stray_from = 0;
    }
  }
  close_unended(number);
  return any;
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
    out.push_back({name, input, ""});
    return true;
  }
  if (read_log(std::string(input.begin(), input.end()), name, out)) return true;
  error = "no crash record: neither the record magic at the start nor a sfu-crash-begin line";
  return false;
}

}  // namespace sfu::tools::crash
