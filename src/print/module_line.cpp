// The formatter helpers module_line.h declares: put_char and the cleaning sink.
#include "print/module_line.h"

namespace sfu::print {
namespace {

void cleaning_putc(void *ctx, char c) {
  const sfu_sink *out = static_cast<const Cleaning *>(ctx)->out;
  if (out && out->putc) (out->putc)(out->ctx, clean_char(c));
}

}  // namespace

void put_char(const sfu_sink *sink, char c) {
  char s[2] = {c, '\0'};
  sfu_print_str(sink, s);
}

Cleaning::Cleaning(const sfu_sink *to) : out(to), sink{cleaning_putc, this} {}

}  // namespace sfu::print
