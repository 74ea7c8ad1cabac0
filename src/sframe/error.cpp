// Names of decoder errors, from the one list in sfu/sframe.h.
#include "names.h"
#include "sfu/sframe.h"

extern "C" const char *sfu_error_name(enum sfu_error err) {
  static const char names[] =
#define SFU_ERROR_NAME(name, text) text "\0"
      SFU_ERRORS(SFU_ERROR_NAME)
#undef SFU_ERROR_NAME
      "unknown-error";
  // The last name, "unknown-error", for any value past the list.
  return sfu::nth_name(names, unsigned(err) < unsigned(SFU_ERROR_COUNT) ? unsigned(err) : unsigned(SFU_ERROR_COUNT));
}
