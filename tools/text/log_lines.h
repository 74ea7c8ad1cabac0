// Checksummed lines in a serial log, as the device prints crash records (sfu-crash-*) and
// profiles (sfu-profile-*): each line found wherever its marker sits (a console may put a
// timestamp or a CPU tag before it), its line ending and trailing blanks dropped, and the CRC-32
// that ends it ("... 0x1234abcd", the core's sfu_crc32 of the text before " 0x") checked. One
// reading for `sfu crash` (tools/crash/records.cpp) and `sfu profile` (tools/profile/read.cpp).
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "sfu/crash.h"

namespace sfu::tools {

// The line from the first `marker` on, without a trailing "\r", blanks or tabs; "" when the
// marker is not in it.
inline std::string marked_text(std::string line, const std::string &marker) {
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
  size_t at = line.find(marker);
  return at == std::string::npos ? std::string() : line.substr(at);
}

// A line's closing CRC: its last word is "0x" and 8 hex digits; `covered` is the text
// before the space in front of it. False when the line does not end so.
inline bool split_line_crc(const std::string &body, std::string &covered, uint32_t &crc) {
  size_t sp = body.rfind(' ');
  if (sp == std::string::npos || body.size() - sp - 1 != 10 || body.compare(sp + 1, 2, "0x") != 0) return false;
  for (size_t i = sp + 3; i < body.size(); i++)
    if (!std::isxdigit(static_cast<unsigned char>(body[i]))) return false;
  crc = uint32_t(std::strtoul(body.c_str() + sp + 3, nullptr, 16));
  covered = body.substr(0, sp);
  return true;
}

// A line's words, split at single spaces (two spaces give an empty word, which the readers refuse).
inline std::vector<std::string> line_words(const std::string &s) {
  std::vector<std::string> out;
  for (size_t at = 0; at <= s.size();) {
    size_t sp = s.find(' ', at);
    if (sp == std::string::npos) sp = s.size();
    out.push_back(s.substr(at, sp - at));
    at = sp + 1;
  }
  return out;
}

// The CRC-32 of a line's covered text.
inline uint32_t line_crc(const std::string &covered) { return sfu_crc32(0, covered.data(), covered.size()); }

}  // namespace sfu::tools
