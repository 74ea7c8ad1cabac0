// What the libFuzzer targets of tests/fuzz/ share: the abort that records a breach, little-endian
// parameters, and the check that every result has a name.
#pragma once

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sfu/sframe.h"
#include "support/error_classes.h"

namespace sfu::fuzz {

// Prints what broke and aborts, which libFuzzer records as a crash with the input that caused it.
[[noreturn]] inline void die(const char *what, uint64_t pc, sfu_error e) {
  fprintf(stderr, "fuzz: %s (pc 0x%llx, result %d \"%s\")\n", what, static_cast<unsigned long long>(pc), int(e),
          sfu_error_name(e));
  abort();
}

// n little-endian bytes at p.
inline uint64_t le(const uint8_t *p, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; i++) v |= uint64_t(p[i]) << (8 * i);
  return v;
}

inline void require_named(sfu_error e, const char *call) {
  if (!sfu::test::is_named(e)) die(call, 0, e);
}

}  // namespace sfu::fuzz
