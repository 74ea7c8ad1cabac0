// One checksummed line: src/print/checksummed_line.h.
#include "print/checksummed_line.h"

#include "sfu/crash.h"  // sfu_crc32

namespace sfu::print {

namespace {
void checksummed_putc(void *ctx, char c) {
  ChecksummedLine *l = static_cast<ChecksummedLine *>(ctx);
  if (c == '\n') return;
  uint8_t byte = uint8_t(c);
  l->crc = sfu_crc32(l->crc, &byte, 1);
  (l->out->putc)(l->out->ctx, c);
}
}  // namespace

ChecksummedLine::ChecksummedLine(const sfu_sink *to) : out(to), crc(0), sink{checksummed_putc, this} {}

void ChecksummedLine::end() {
  sfu_print_str(out, " ");
  sfu_print_hex(out, crc, 8);
  sfu_print_str(out, "\n");
  crc = 0;
}

}  // namespace sfu::print
