// Printed profiles in a serial log (docs/profile-format.md): every profile from its begin line to
// its end line, each line's CRC and the end line's counts checked, refused by name and line
// number as the format says. `sfu profile` reads them; tools/profile/aggregate.h names and sums them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sfu::tools::profile {

// A module line: where a module's text ran, and its build-id (empty when printed "no build-id").
struct PrintedModule {
  uint32_t number = 0;
  std::string name;
  uint64_t start = 0, end = 0;
  std::vector<uint8_t> build_id;
};

// A stack line: its count, why its walks stopped, its lookup addresses innermost first.
struct PrintedStack {
  uint64_t count = 0;
  std::string stop;
  std::vector<uint64_t> addrs;
};

struct PrintedProfile {
  size_t first_line = 0, last_line = 0;  // its begin and end lines, 1-based
  unsigned abi = 0;
  uint64_t period = 0;
  std::string unit;
  uint64_t max_stacks = 0, max_depth = 0;
  std::vector<PrintedModule> modules;
  std::vector<PrintedStack> stacks;
  std::vector<std::pair<std::string, uint64_t>> lost;     // by reason, in print order
  std::vector<std::pair<std::string, uint64_t>> stopped;  // by stop reason, in print order
  uint64_t samples = 0, counted = 0;
};

// Why a log is refused: the format's name ("profile-bad-crc", ...), the line (0 for the whole
// log) and what was wrong.
struct ReadError {
  std::string name;
  size_t line = 0;
  std::string detail;
  std::string text() const;  // "line 12: profile-bad-crc (DETAIL)", or "NAME (DETAIL)" without a line
};

// Every profile of the log `text`, in order. False with `error` on the first line the format
// refuses, or a log with no profile (profile-none).
bool read_profiles(const std::string &text, std::vector<PrintedProfile> &out, ReadError &error);

}  // namespace sfu::tools::profile
