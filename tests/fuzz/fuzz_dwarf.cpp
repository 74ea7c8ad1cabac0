// The DWARF half of the fuzzer (fuzz_sframe.cpp hands over inputs whose first byte is 0x20 to
// 0x3f): arbitrary bytes as an image's debug sections for the debug-info readers
// (tools/dwarf/): the source model is built or refused with one named message, and an accepted
// one answers source lookups and addr2line's lookups over the addresses its units and functions
// cover without reading outside the sections (each in an allocation of exactly its size, so
// ASan sees any read past it). Any breach aborts.
//
// Input: one mode byte (bit 0: big-endian), nine 16-bit little-endian section sizes (.debug_info,
// _abbrev, _str, _line_str, _str_offsets, _addr, _line, _ranges, _rnglists), then the sections'
// bytes in that order. tests/fuzz/run.sh seeds it from tests/fuzz/dwarf-seeds/.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <memory>
#include <string>
#include <vector>

#include "tools/dwarf/addr2line.h"
#include "tools/dwarf/source_index.h"

namespace {

constexpr size_t kSections = 9, kHeader = 1 + 2 * kSections;
constexpr size_t kMaxProbes = 4096;  // keeps one input's work bounded

[[noreturn]] void die(const char *what, const std::string &detail) {
  fprintf(stderr, "fuzz_dwarf: %s: %s\n", what, detail.c_str());
  abort();
}

}  // namespace

void fuzz_dwarf(const uint8_t *data, size_t size) {
  using namespace sfu::tools::dwarf;
  if (size < kHeader) return;
  auto idx = std::make_unique<SourceIndex>();
  Section *order[kSections] = {&idx->sections.info,     &idx->sections.abbrev, &idx->sections.str,
                               &idx->sections.line_str, &idx->sections.str_offsets, &idx->sections.addr,
                               &idx->sections.line,     &idx->sections.ranges, &idx->sections.rnglists};
  idx->sections.big_endian = data[0] & 1;
  std::vector<std::unique_ptr<uint8_t[]>> owned;
  size_t at = kHeader;
  for (size_t i = 0; i < kSections; i++) {
    size_t n = data[1 + 2 * i] | size_t(data[2 + 2 * i]) << 8;
    if (n > size - at) n = size - at;
    if (n == 0) continue;  // absent
    owned.emplace_back(new uint8_t[n]);
    memcpy(owned.back().get(), data + at, n);
    order[i]->data = owned.back().get();
    order[i]->size = n;
    at += n;
  }
  std::string error;
  if (!build_source_index_from_sections(*idx, error)) {
    if (error.rfind(".debug_", 0) != 0 || error.find(": ") == std::string::npos) die("unnamed refusal", error);
    return;
  }
  // Every range start and end of every unit and function, and one address inside each.
  std::vector<uint64_t> probes;
  for (const UnitInfo &u : idx->units)
    for (const AddressRange &r : u.ranges) probes.insert(probes.end(), {r.low, r.high - 1, r.high});
  for (const FunctionInfo &f : idx->functions)
    for (const AddressRange &r : f.ranges) probes.insert(probes.end(), {r.low, (r.low + r.high) / 2, r.high});
  if (probes.size() > kMaxProbes) probes.resize(kMaxProbes);
  Addr2line a2l(idx.get());
  for (uint64_t a : probes) {
    for (const SourceFrame &f : source_frames(*idx, a))
      if (f.function.empty() || f.file.empty()) die("a source frame without a name or file", std::to_string(a));
    std::string out = a2l.lookup(a, a & 1);
    if (out.empty() || out.back() != '\n') die("addr2line answer not in lines", out);
  }
}
