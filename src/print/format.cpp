// The formatter: strings, hex and decimal numbers, one character at a time through the sink.
// No buffers beyond a few digits on the stack, no library calls, no division but by 10.
#include "config.h"
#include "print/module_line.h"
#include "sfu/print.h"

namespace {

bool usable(const sfu_sink *sink) { return sink && sink->putc; }

// In parentheses: a hosted libc may define putc as a function-like macro.
void put(const sfu_sink *sink, char c) { (sink->putc)(sink->ctx, c); }

constexpr unsigned kMaxHexDigits = 16;
constexpr unsigned kMaxDecDigits = 20;  // 18446744073709551615

void udec(const sfu_sink *sink, uint64_t value) {
  char digits[kMaxDecDigits];
  unsigned n = 0;
  do {
    digits[n++] = char('0' + value % 10);
    value /= 10;
  } while (value != 0 && n < kMaxDecDigits);
  while (n > 0) put(sink, digits[--n]);
}

}  // namespace

extern "C" void sfu_print_str(const struct sfu_sink *sink, const char *str) {
  if (!usable(sink)) return;
  if (!str) str = "(null)";
  for (unsigned i = 0; i < SFU_PRINT_STR_MAX && str[i] != '\0'; i++) put(sink, str[i]);
}

extern "C" void sfu_print_hex(const struct sfu_sink *sink, uint64_t value, unsigned min_digits) {
  if (!usable(sink)) return;
  unsigned digits = 1;
  while (digits < kMaxHexDigits && (value >> (4 * digits)) != 0) digits++;
  if (min_digits > kMaxHexDigits) min_digits = kMaxHexDigits;
  if (digits < min_digits) digits = min_digits;
  put(sink, '0');
  put(sink, 'x');
  for (unsigned i = digits; i-- > 0;) put(sink, "0123456789abcdef"[(value >> (4 * i)) & 0xf]);
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

void sfu::print::print_code(const sfu_sink *sink, char letter, unsigned value, unsigned count) {
  if (!usable(sink)) return;
  put(sink, letter);
  if (value < count)
    udec(sink, value);
  else
    put(sink, '?');
}

extern "C" void sfu_print_error(const struct sfu_sink *sink, enum sfu_error err) {
  if constexpr (sfu::config::kNames)
    sfu_print_str(sink, sfu_error_name(err));
  else  // sfu_error_name's code, without its table
    sfu::print::print_code(sink, 'E', unsigned(err), SFU_ERROR_COUNT);
}
