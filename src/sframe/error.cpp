// Names of decoder errors, from the one list in sfu/sframe.h.
#include "sfu/sframe.h"

extern "C" const char *sfu_error_name(enum sfu_error err) {
  // One block of NUL-terminated names, found by counting NULs: no table of pointers (8 bytes a
  // name on 64-bit, more than a third of the names' own size). Only printing asks for a name.
  static const char names[] =
#define SFU_ERROR_NAME(name, text) text "\0"
      SFU_ERRORS(SFU_ERROR_NAME)
#undef SFU_ERROR_NAME
      "unknown-error";
  unsigned i = unsigned(err) < unsigned(SFU_ERROR_COUNT) ? unsigned(err) : unsigned(SFU_ERROR_COUNT);
  const char *p = names;
  for (; i > 0; i--)
    while (*p++) {
    }
  return p;
}
