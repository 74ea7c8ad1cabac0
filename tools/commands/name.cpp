// sfu name CODE...: the names of the codes a core built without them prints (CONFIG_SFU_NAMES=n,
// configs/walk-only.config): "S1" is SFU_STOPS' second reason, "E4" SFU_ERRORS' fifth. The host's
// core has the names, so the list in the headers is the one the device was built from.
#include <cstdio>
#include <string>

#include "sfu/sframe.h"
#include "sfu/unwind.h"
#include "tools/commands/commands.h"

namespace sfu::tools::cli {
namespace {

// The number of "E12" or "S3" below limit, or -1.
long code_number(const std::string &code, char letter, long limit) {
  if (code.size() < 2 || code.size() > 3 || code[0] != letter) return -1;
  long n = 0;
  for (size_t i = 1; i < code.size(); i++) {
    if (code[i] < '0' || code[i] > '9') return -1;
    n = n * 10 + (code[i] - '0');
  }
  return n < limit ? n : -1;
}

int run_name(const Command &self, const Args &args) {
  if (args.empty()) return usage_error(self, "give one or more codes");
  for (const std::string &a : args) {
    long stop = code_number(a, 'S', SFU_STOP_COUNT), error = code_number(a, 'E', SFU_ERROR_COUNT);
    if (stop >= 0)
      printf("%s %s\n", a.c_str(), sfu_stop_name(sfu_stop(stop)));
    else if (error >= 0)
      printf("%s %s\n", a.c_str(), sfu_error_name(sfu_error(error)));
    else
      return refused(self, a, "not a stop code (S0-S" + std::to_string(SFU_STOP_COUNT - 1) + ") or an error code (E0-E" +
                                  std::to_string(SFU_ERROR_COUNT - 1) + ")");
  }
  return kExitOk;
}

}  // namespace

const Command kNameCommand = {"name", "CODE...", "name the stop and error codes a core without names prints",
                              run_name};

}  // namespace sfu::tools::cli
