// What a result may be, for tests that throw damaged tables at the decoder (the corruption
// tests and the fuzzer share this so the two cannot drift apart).
#pragma once

#include <string.h>

#include "sfu/sframe.h"

namespace sfu::test {

// SFU_OK, or an error with a real name.
inline bool is_named(sfu_error e) {
  const char *name = sfu_error_name(e);
  if (e == SFU_OK) return strcmp(name, "ok") == 0;
  return strcmp(name, "unknown-error") != 0 && strcmp(name, "ok") != 0;
}

// A lookup reports on the function and row it reads, never on the header or the whole table:
// open and validate settled those.
inline bool is_lookup_error(sfu_error e) {
  switch (e) {
    case SFU_E_NO_FUNCTION:
    case SFU_E_NO_ROW:
    case SFU_E_ATTR_OUT_OF_BOUNDS:
    case SFU_E_BAD_FDE_INFO:
    case SFU_E_BAD_FRE_TYPE:
    case SFU_E_BAD_FDE_TYPE:
    case SFU_E_PCMASK_ZERO_REP:
    case SFU_E_FRE_OUT_OF_BOUNDS:
    case SFU_E_BAD_OFFSET_SIZE:
    case SFU_E_BAD_WORD_COUNT:
    case SFU_E_BAD_FLEX_RULE:
    case SFU_E_BAD_REGISTER:
    case SFU_E_CFA_OFFSET_RANGE:
      return true;
    default:
      return false;
  }
}

}  // namespace sfu::test
