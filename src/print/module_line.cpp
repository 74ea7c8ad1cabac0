// The module line (module_line.h).
#include "print/module_line.h"

namespace sfu::print {
namespace {

// What a printed name shows for c.
char clean(char c) { return c >= 0x20 && c < 0x7f ? c : '?'; }

void print_hex_bytes(const sfu_sink *sink, const uint8_t *p, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    put_char(sink, "0123456789abcdef"[p[i] >> 4]);
    put_char(sink, "0123456789abcdef"[p[i] & 0xf]);
  }
}

void cleaning_putc(void *ctx, char c) {
  const sfu_sink *out = static_cast<const Cleaning *>(ctx)->out;
  if (out && out->putc) (out->putc)(out->ctx, clean(c));
}

}  // namespace

void put_char(const sfu_sink *sink, char c) {
  char s[2] = {c, '\0'};
  sfu_print_str(sink, s);
}

Cleaning::Cleaning(const sfu_sink *to) : out(to), sink{cleaning_putc, this} {}

void print_clean(const sfu_sink *sink, const char *s, uint32_t max) {
  for (uint32_t i = 0; i < max && s[i] != '\0'; i++) put_char(sink, clean(s[i]));
}

void print_module_name(const sfu_sink *sink, const char *name, uint32_t max) {
  print_clean(sink, name && name[0] ? name : "(unnamed)", max);
}

void module_line(const sfu_sink *sink, uint64_t index, const char *name, uint32_t name_max, uint64_t text_start,
                 uint64_t text_end, const uint8_t *build_id, uint32_t build_id_size) {
  sfu_print_str(sink, "module ");
  sfu_print_udec(sink, index);
  sfu_print_str(sink, " ");
  print_module_name(sink, name, name_max);
  sfu_print_str(sink, " ");
  sfu_print_hex(sink, text_start, 16);
  sfu_print_str(sink, "-");
  sfu_print_hex(sink, text_end, 16);
  if (build_id && build_id_size) {
    sfu_print_str(sink, " build-id ");
    print_hex_bytes(sink, build_id, build_id_size);
  } else {
    sfu_print_str(sink, " no build-id");
  }
  sfu_print_str(sink, "\n");
}

}  // namespace sfu::print
