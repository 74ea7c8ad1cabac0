// Names of decoder errors, from the one list in sfu/sframe.h; codes without them (config.h kNames).
#include "config.h"
#include "names.h"
#include "sfu/sframe.h"

extern "C" const char *sfu_error_name(enum sfu_error err) {
  const unsigned i = unsigned(err) < unsigned(SFU_ERROR_COUNT) ? unsigned(err) : unsigned(SFU_ERROR_COUNT);
  if constexpr (!sfu::config::kNames) {
    static constexpr sfu::Codes<SFU_ERROR_COUNT> codes = sfu::make_codes<SFU_ERROR_COUNT>('E');
    return codes.code[i];
  } else {
    static const char names[] =
#define SFU_ERROR_NAME(name, text) text "\0"
        SFU_ERRORS(SFU_ERROR_NAME)
#undef SFU_ERROR_NAME
        "unknown-error";
    // The last name, "unknown-error", for any value past the list.
    return sfu::nth_name(names, i);
  }
}
