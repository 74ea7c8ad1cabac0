// The formatter: strings, hex and decimal numbers, one character at a time through the sink.
// No buffers beyond a few digits on the stack, no library calls, no division but by 10 or 16.
#include "config.h"
#include "print/module_line.h"
#include "sfu/print.h"

namespace {

[[gnu::always_inline]] inline bool usable(const sfu_sink *sink) { return sink && sink->putc; }

// In parentheses: a hosted libc may define putc as a function-like macro.
[[gnu::always_inline]] inline void put(const sfu_sink *sink, char c) { (sink->putc)(sink->ctx, c); }

constexpr unsigned kMaxHexDigits = 16;
constexpr unsigned kMaxDecDigits = 20;  // 18446744073709551615

// value's digits in base 10 or 16, at least min_digits of them (zero-padded): the one digit loop
// of the decimal and hex printers.
void digits(const sfu_sink *sink, uint64_t value, unsigned base, unsigned min_digits) {
  char d[kMaxDecDigits];
  unsigned n = 0;
  do {
    d[n++] = "0123456789abcdef"[value % base];
    value /= base;
  } while ((value != 0 || n < min_digits) && n < kMaxDecDigits);
  while (n > 0) put(sink, d[--n]);
}

void udec(const sfu_sink *sink, uint64_t value) { digits(sink, value, 10, 1); }

// The characters of s up to its NUL, at most max of them; clean (clean_char) if asked.
void text(const sfu_sink *sink, const char *s, uint64_t max, bool clean) {
  for (uint64_t i = 0; i < max && s[i] != '\0'; i++) put(sink, clean ? sfu::print::clean_char(s[i]) : s[i]);
}

const char *name_or_unnamed(const char *name) { return name && name[0] ? name : "(unnamed)"; }

}  // namespace

namespace sfu::print {

void print_line(const sfu_sink *sink, const char *tmpl, const uint64_t *values) {
  if (!usable(sink)) return;
  for (; *tmpl; tmpl++) {
    // Compared as a word: a byte's compares cost s390x a store and a reload each.
    const unsigned c = uint8_t(*tmpl);
    if (c > unsigned(kHexBytes)) {
      put(sink, char(c));
      continue;
    }
    const uint64_t v = *values++;
    const char *p = reinterpret_cast<const char *>(uintptr_t(v));
    if (c == kHex16 || c == kDec) {
      digits(sink, v, c == kHex16 ? 16 : 10, c == kHex16 ? kMaxHexDigits : 1);
    } else if (c == kStr) {
      text(sink, p, SFU_PRINT_STR_MAX, false);
    } else if (c == kName) {
      text(sink, name_or_unnamed(p), *values++, true);
    } else if (sfu::config::kBuildId) {  // kHexBytes: only module lines' build-ids print bytes
      for (uint64_t i = 0, n = *values++; i < n; i++) digits(sink, uint8_t(p[i]), 16, 2);
    }
  }
}

void print_clean(const sfu_sink *sink, const char *s, uint32_t max) {
  if (usable(sink)) text(sink, s, max, true);
}

void print_module_name(const sfu_sink *sink, const char *name, uint32_t max) {
  print_clean(sink, name_or_unnamed(name), max);
}

}  // namespace sfu::print

extern "C" void sfu_print_str(const struct sfu_sink *sink, const char *str) {
  if (!usable(sink)) return;
  text(sink, str ? str : "(null)", SFU_PRINT_STR_MAX, false);
}

extern "C" void sfu_print_hex(const struct sfu_sink *sink, uint64_t value, unsigned min_digits) {
  if (!usable(sink)) return;
  put(sink, '0');
  put(sink, 'x');
  digits(sink, value, 16, min_digits < kMaxHexDigits ? min_digits : kMaxHexDigits);
}

extern "C" void sfu_print_dec(const struct sfu_sink *sink, int64_t value) {
  if (!usable(sink)) return;
  uint64_t magnitude = uint64_t(value);
  if (value < 0) {
    put(sink, '-');
    magnitude = 0 - magnitude;  // modulo 2^64: right for INT64_MIN too
  }
  udec(sink, magnitude);
}

extern "C" void sfu_print_udec(const struct sfu_sink *sink, uint64_t value) {
  if (!usable(sink)) return;
  udec(sink, value);
}

extern "C" void sfu_print_error(const struct sfu_sink *sink, enum sfu_error err) {
  if constexpr (sfu::config::kNames) {
    sfu_print_str(sink, sfu_error_name(err));
  } else {  // sfu_error_name's code, without its table
    const uint64_t value = unsigned(err);
    sfu::print::print_line(sink, value < SFU_ERROR_COUNT ? "E" SFU_L_DEC : "E?", &value);
  }
}
