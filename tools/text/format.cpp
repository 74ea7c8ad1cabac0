// Numbers as text. See format.h.
#include "tools/text/format.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace sfu::tools {

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
  return buf;
}

std::string hex_bytes(const uint8_t *p, size_t n, bool upper) {
  const char *kDigits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; i++) {
    s += kDigits[p[i] >> 4];
    s += kDigits[p[i] & 15];
  }
  return s;
}

bool parse_address(const std::string &s, uint64_t &out) {
  bool is_hex = s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
  const char *digits = s.c_str() + (is_hex ? 2 : 0);
  // strtoull would accept a sign or leading blanks: only digits may follow.
  unsigned char first = static_cast<unsigned char>(*digits);
  if (first == '\0' || !(is_hex ? std::isxdigit(first) : std::isdigit(first))) return false;
  errno = 0;
  char *end;
  out = std::strtoull(digits, &end, is_hex ? 16 : 10);
  return errno == 0 && *end == '\0';
}

}  // namespace sfu::tools
