// The module line (module_line.h).
#include "config.h"
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

void module_line(const sfu_sink *sink, uint64_t index, const char *name, uint32_t name_max, uint64_t text_start,
                 uint64_t text_end, const uint8_t *build_id, uint32_t build_id_size) {
  const uint64_t values[] = {index, value_of(name), name_max, text_start, text_end, value_of(build_id), build_id_size};
  // Without CONFIG_SFU_BUILD_ID no module has one (registration reads no note, a record keeps none).
  print_line(sink,
             config::kBuildId && build_id && build_id_size
                 ? "module " SFU_L_DEC " " SFU_L_NAME " " SFU_L_HEX16 "-" SFU_L_HEX16 " build-id " SFU_L_HEX_BYTES "\n"
                 : "module " SFU_L_DEC " " SFU_L_NAME " " SFU_L_HEX16 "-" SFU_L_HEX16 " no build-id\n",
             values);
}

}  // namespace sfu::print
