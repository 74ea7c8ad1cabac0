// Names of decoder errors, from the one list in sfu/sframe.h.
#include "sfu/sframe.h"

extern "C" const char *sfu_error_name(enum sfu_error err) {
  static const char *const names[] = {
#define SFU_ERROR_NAME(name, text) text,
      SFU_ERRORS(SFU_ERROR_NAME)
#undef SFU_ERROR_NAME
  };
  unsigned i = unsigned(err);
  return i < sizeof(names) / sizeof(names[0]) ? names[i] : "unknown-error";
}
