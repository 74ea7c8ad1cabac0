// The formatter: strings, hex and decimal numbers, one character at a time through the sink.
// No buffers beyond a few digits on the stack, no library calls, no division but by 10 or 16.
#include "config.h"
#include "print/module_line.h"
#include "sfu/print.h"

namespace {

bool usable(const sfu_sink *sink) { return sink && sink->putc; }

// In parentheses: a hosted libc may define putc as a function-like macro.
void put(const sfu_sink *sink, char c) { (sink->putc)(sink->ctx, c); }

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

}  // namespace

extern "C" void sfu_print_str(const struct sfu_sink *sink, const char *str) {
  if (!usable(sink)) return;
  if (!str) str = "(null)";
  for (unsigned i = 0; i < SFU_PRINT_STR_MAX && str[i] != '\0'; i++) put(sink, str[i]);
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
  } else if (usable(sink)) {  // sfu_error_name's code, without its table
    put(sink, 'E');
    if (unsigned(err) < unsigned(SFU_ERROR_COUNT))
      udec(sink, unsigned(err));
    else
      put(sink, '?');
  }
}
