// The codes a core built without names returns (CONFIG_SFU_NAMES=n, src/names.h): a letter and
// the value's place in its list, "?" past it. `sfu name` reads them back (runner_test.py); the
// walk-only suite (tests/walk_only) checks what such a core returns and prints.
#include <gtest/gtest.h>

#include <string>

#include "names.h"
#include "sfu/print.h"
#include "sfu/sframe.h"
#include "sfu/unwind.h"

TEST(Names, CodesAreTheLetterAndThePlaceInTheList) {
  static constexpr auto stops = sfu::make_codes<SFU_STOP_COUNT>('S');
  EXPECT_STREQ(stops.code[SFU_STOP_NONE], "S0");
  EXPECT_STREQ(stops.code[SFU_STOP_END], "S1");
  EXPECT_STREQ(stops.code[SFU_STOP_ZERO_RETURN_ADDRESS], "S13");
  EXPECT_STREQ(stops.code[SFU_STOP_COUNT], "S?");
  static constexpr auto errors = sfu::make_codes<SFU_ERROR_COUNT>('E');
  EXPECT_STREQ(errors.code[SFU_OK], "E0");
  EXPECT_STREQ(errors.code[SFU_E_BAD_MAGIC], "E5");
  EXPECT_STREQ(errors.code[SFU_E_BAD_INDEX_MEMORY], ("E" + std::to_string(int(SFU_E_BAD_INDEX_MEMORY))).c_str());
  EXPECT_STREQ(errors.code[SFU_ERROR_COUNT], "E?");
}

TEST(Names, EveryCodeFitsItsFourBytes) {
  static constexpr auto errors = sfu::make_codes<SFU_ERROR_COUNT>('E');
  for (unsigned i = 0; i <= SFU_ERROR_COUNT; i++) EXPECT_EQ(errors.code[i][3], '\0') << i;
}

namespace {

void append(void *ctx, char c) { static_cast<std::string *>(ctx)->push_back(c); }

}  // namespace

TEST(Names, PrintErrorPrintsWhatErrorNameGives) {
  std::string out;
  sfu_sink sink{append, &out};
  sfu_print_error(&sink, SFU_E_BAD_MAGIC);
  EXPECT_EQ(out, "bad-magic");
  out.clear();
  sfu_print_error(&sink, sfu_error(SFU_ERROR_COUNT + 3));
  EXPECT_EQ(out, "unknown-error");
  sfu_print_error(nullptr, SFU_E_BAD_MAGIC);  // prints nothing, as every printer
}
