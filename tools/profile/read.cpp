// Reading printed profiles: the lines of docs/profile-format.md, wherever a console put them.
#include "tools/profile/read.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "tools/text/format.h"
#include "tools/text/log_lines.h"

namespace sfu::tools::profile {
namespace {

constexpr const char *kMarker = "sfu-profile-";

bool all_of(const std::string &s, const char *set) {
  return !s.empty() && s.find_first_not_of(set) == std::string::npos;
}

// Unsigned decimal, no sign or leading blank, fitting 64 bits.
bool decimal(const std::string &s, uint64_t &out) {
  if (!all_of(s, "0123456789") || s.size() > 20) return false;
  errno = 0;
  out = std::strtoull(s.c_str(), nullptr, 10);
  return errno == 0;
}

// "0x" and lowercase hex digits, fitting 64 bits.
bool hex_number(const std::string &s, uint64_t &out) {
  if (s.size() < 3 || s.size() > 18 || s.compare(0, 2, "0x") != 0 || !all_of(s.substr(2), "0123456789abcdef"))
    return false;
  out = std::strtoull(s.c_str() + 2, nullptr, 16);
  return true;
}

// "key=NUMBER".
bool keyed(const std::string &word, const std::string &key, uint64_t &out) {
  return word.compare(0, key.size() + 1, key + "=") == 0 && decimal(word.substr(key.size() + 1), out);
}

// A word of the log in a message: quoted, bytes outside printable ASCII as \xNN (a damaged line
// may hold a carriage return or worse; the message stays one line).
std::string quoted(const std::string &w) {
  std::string out = "\"";
  for (char c : w) {
    if (c >= ' ' && c <= '~') {
      out += c;
    } else {
      char buf[8];
      snprintf(buf, sizeof buf, "\\x%02x", unsigned(static_cast<unsigned char>(c)));
      out += buf;
    }
  }
  return out + "\"";
}

// A unit as sfu_profile_init takes it: 1 to 32 printable ASCII bytes, no space.
bool printable_word(const std::string &s) {
  if (s.empty() || s.size() > 32) return false;
  for (char c : s)
    if (c <= ' ' || c > '~') return false;
  return true;
}

// A stop or loss name as the device prints it: lowercase words joined by '-', or a code "S1".
bool reason_word(const std::string &s) {
  return all_of(s, "abcdefghijklmnopqrstuvwxyz-") || (s.size() > 1 && s[0] == 'S' && all_of(s.substr(1), "0123456789"));
}

class Reader {
 public:
  Reader(std::vector<PrintedProfile> &out, ReadError &error) : out_(out), error_(error) {}

  // False once the log is refused.
  bool line(size_t number, const std::string &text) {
    std::string body = marked_text(text, kMarker);
    if (body.empty()) return true;
    std::string covered;
    uint32_t crc = 0;
    if (!split_line_crc(body, covered, crc))
      return fail("profile-bad-crc", number, "the line does not end in its CRC (\" 0x\" and 8 hex digits)");
    if (line_crc(covered) != crc)
      return fail("profile-bad-crc", number,
                  "the line says " + crc_text(crc) + ", its text gives " + crc_text(line_crc(covered)));
    std::vector<std::string> w = line_words(covered);
    const std::string kind = w[0].substr(std::string(kMarker).size());
    if (kind == "begin") return begin(number, w);
    if (!open_) {
      if (kind == "module" || kind == "stack" || kind == "lost" || kind == "stopped" || kind == "end")
        return fail("profile-cut", number,
                    "a " + kind + " line outside any profile: its begin line is missing (the log starts inside it)");
      return fail("profile-bad-line", number, "no such line: " + quoted(w[0]));
    }
    lines_++;
    if (kind == "module") return module(number, w);
    if (kind == "stack") return stack(number, w);
    if (kind == "lost" || kind == "stopped") return count_line(number, w, kind == "lost" ? cur_.lost : cur_.stopped);
    if (kind == "end") return end(number, w);
    return fail("profile-bad-line", number, "no such line: " + quoted(w[0]));
  }

  bool finish(size_t last) {
    if (open_)
      return fail("profile-cut", cur_.first_line,
                  "the profile begun here has no end line (the log ends at line " + std::to_string(last) + ")");
    if (out_.empty()) return fail("profile-none", 0, "the log holds no sfu-profile-begin line");
    return true;
  }

 private:
  static std::string crc_text(uint32_t crc) {
    char buf[16];
    snprintf(buf, sizeof buf, "0x%08x", crc);
    return buf;
  }

  bool fail(const std::string &name, size_t line, const std::string &detail) {
    error_ = {name, line, detail};
    return false;
  }

  bool bad_line(size_t number, const std::string &what) { return fail("profile-bad-line", number, what); }

  // sfu-profile-begin v1 ABI period=P unit=UNIT stacks=S depth=D
  bool begin(size_t number, const std::vector<std::string> &w) {
    if (open_)
      return fail("profile-cut", cur_.first_line,
                  "the profile begun here has no end line before the next begin line (line " + std::to_string(number) +
                      ")");
    if (w.size() > 1 && w[1].size() > 1 && w[1][0] == 'v' && w[1] != "v1")
      return fail("profile-bad-version", number, "version " + w[1] + "; this sfu reads v1");
    PrintedProfile p;
    p.first_line = number;
    uint64_t abi = 0;
    if (w.size() != 7 || w[1] != "v1" || !decimal(w[2], abi) || abi < 1 || abi > 4 || !keyed(w[3], "period", p.period) ||
        w[4].compare(0, 5, "unit=") != 0 || !printable_word(w[4].substr(5)) ||
        !keyed(w[5], "stacks", p.max_stacks) || !keyed(w[6], "depth", p.max_depth))
      return bad_line(number, "a begin line is \"sfu-profile-begin v1 ABI period=P unit=UNIT stacks=S depth=D\"");
    p.abi = unsigned(abi);
    p.unit = w[4].substr(5);
    cur_ = std::move(p);
    open_ = true;
    lines_ = 1;
    return true;
  }

  // sfu-profile-module N NAME 0xSTART-0xEND build-id HEX | no build-id  (NAME may hold blanks)
  bool module(size_t number, const std::vector<std::string> &w) {
    const char *form = "a module line is \"sfu-profile-module N NAME 0xSTART-0xEND build-id HEX\" (or \"no build-id\")";
    PrintedModule m;
    uint64_t n = 0;
    if (w.size() < 6 || !decimal(w[1], n) || n > UINT32_MAX) return bad_line(number, form);
    m.number = uint32_t(n);
    size_t range = w.size() - 3;
    std::string id_hex;
    if (w[w.size() - 2] == "build-id") {
      id_hex = w.back();
      if (id_hex.size() % 2 || !all_of(id_hex, "0123456789abcdef")) return bad_line(number, form);
    } else if (w[w.size() - 2] != "no" || w.back() != "build-id") {
      return bad_line(number, form);
    }
    size_t dash = w[range].find('-');
    if (dash == std::string::npos || !hex_number(w[range].substr(0, dash), m.start) ||
        !hex_number(w[range].substr(dash + 1), m.end) || m.start >= m.end)
      return bad_line(number, form);
    for (size_t i = 2; i < range; i++) m.name += (i > 2 ? " " : "") + w[i];
    if (m.name.empty()) return bad_line(number, form);
    for (size_t i = 0; i < id_hex.size(); i += 2)
      m.build_id.push_back(uint8_t(std::strtoul(id_hex.substr(i, 2).c_str(), nullptr, 16)));
    cur_.modules.push_back(std::move(m));
    return true;
  }

  // sfu-profile-stack COUNT STOP ADDR ADDR ...
  bool stack(size_t number, const std::vector<std::string> &w) {
    PrintedStack s;
    if (w.size() < 3 || !decimal(w[1], s.count) || s.count == 0 || !reason_word(w[2]))
      return bad_line(number, "a stack line is \"sfu-profile-stack COUNT STOP ADDR...\", COUNT at least 1");
    s.stop = w[2];
    for (size_t i = 3; i < w.size(); i++) {
      uint64_t a = 0;
      if (!hex_number(w[i], a)) return bad_line(number, "not a frame address: " + quoted(w[i]));
      s.addrs.push_back(a);
    }
    if (cur_.max_depth && s.addrs.size() > cur_.max_depth)
      return bad_line(number, std::to_string(s.addrs.size()) + " frames, past the profile's depth=" +
                                  std::to_string(cur_.max_depth));
    if (__builtin_add_overflow(sum_, s.count, &sum_))
      return bad_line(number, "the stack lines' counts add up past 2^64");
    cur_.stacks.push_back(std::move(s));
    return true;
  }

  // sfu-profile-lost REASON COUNT, sfu-profile-stopped STOP COUNT
  bool count_line(size_t number, const std::vector<std::string> &w, std::vector<std::pair<std::string, uint64_t>> &to) {
    uint64_t n = 0;
    if (w.size() != 3 || !reason_word(w[1]) || !decimal(w[2], n) || n == 0)
      return bad_line(number, "a " + w[0].substr(std::string(kMarker).size()) + " line is \"" + w[0] +
                                  " REASON COUNT\", COUNT at least 1");
    to.emplace_back(w[1], n);
    return true;
  }

  // sfu-profile-end samples=N counted=C lines=L
  bool end(size_t number, const std::vector<std::string> &w) {
    uint64_t lines = 0;
    if (w.size() != 4 || !keyed(w[1], "samples", cur_.samples) || !keyed(w[2], "counted", cur_.counted) ||
        !keyed(w[3], "lines", lines))
      return bad_line(number, "an end line is \"sfu-profile-end samples=N counted=C lines=L\"");
    if (lines != lines_)
      return fail("profile-lines-missing", number,
                  "the profile begun at line " + std::to_string(cur_.first_line) + " printed " + std::to_string(lines) +
                      " lines, " + std::to_string(lines_) + " are here");
    if (cur_.counted != sum_)
      return fail("profile-lines-missing", number,
                  "counted=" + std::to_string(cur_.counted) + " but the stack lines here add up to " +
                      std::to_string(sum_));
    cur_.last_line = number;
    out_.push_back(std::move(cur_));
    cur_ = PrintedProfile{};
    open_ = false;
    sum_ = 0;
    return true;
  }

  std::vector<PrintedProfile> &out_;
  ReadError &error_;
  bool open_ = false;
  PrintedProfile cur_;
  uint64_t lines_ = 0, sum_ = 0;  // the open profile's lines so far, and its stacks' counts
};

}  // namespace

std::string ReadError::text() const {
  return (line ? "line " + std::to_string(line) + ": " : std::string()) + name + " (" + detail + ")";
}

bool read_profiles(const std::string &text, std::vector<PrintedProfile> &out, ReadError &error) {
  out.clear();
  Reader r(out, error);
  size_t number = 0;
  for (size_t at = 0; at < text.size();) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    if (!r.line(++number, text.substr(at, nl - at))) return false;
    at = nl + 1;
  }
  return r.finish(number);
}

}  // namespace sfu::tools::profile
