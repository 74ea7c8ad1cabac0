// The checksummed lines the device prints for a host to read back whole: a crash record's data
// lines (src/crash/print.cpp) and every line of a profile (src/profile/profile.cpp). A file of
// its own, so that a kernel printing neither links none of it.
#pragma once

#include "sfu/print.h"

namespace sfu::print {

// A line printed to `out` whose characters are summed as they pass (sfu_crc32), ended by end():
// " 0x" and the CRC in 8 hex digits, then '\n'. The crash records' data lines and every profile
// line. A '\n' sent through it (the module line printer ends its line with one) is held back, to
// come after the CRC.
struct ChecksummedLine {
  explicit ChecksummedLine(const sfu_sink *out);
  ChecksummedLine(const ChecksummedLine &) = delete;  // sink.ctx points at this one
  ChecksummedLine &operator=(const ChecksummedLine &) = delete;
  void end();  // the CRC and '\n' to out; the next line's sum starts from 0
  const sfu_sink *out;
  uint32_t crc;
  sfu_sink sink;
};

}  // namespace sfu::print
