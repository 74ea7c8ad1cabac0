// The outputs of `sfu profile`, each written from a summed profile (aggregate.h), one file each:
// top.cpp (a table of functions), folded.cpp (one line per stack, for flame-graph tools),
// pprof.cpp (profile.proto, gzipped), svg.cpp (a flame graph drawn here).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/profile/aggregate.h"

namespace sfu::tools::profile {

// The functions by self and total samples, with their shares of the samples counted:
//   samples: N taken, C counted in S stacks (P profiles); period: P UNIT | period: unknown
//   lost: REASON COUNT[, ...]             (only when some were lost)
//   stopped: STOP COUNT[, ...]            (only when the device printed stop lines)
//   <blank>
//   self  self%  total  total%  function  (columns aligned; shares of C, two decimals)
// Ordered by self, then total, both descending, then by name.
std::string top_text(const Summed &s);

// "root;...;leaf COUNT" per distinct list of names, sorted: what flamegraph.pl, speedscope and
// inferno read.
std::string folded_text(const Summed &s);

// The profile as profile.proto (github.com/google/pprof/proto/profile.proto) in a gzip stream:
// `go tool pprof` reads it. `images` are the ones the profile was summed with.
std::vector<uint8_t> pprof_bytes(const Summed &s, const std::vector<crash::CrashImage> &images);

// A flame graph as a standalone SVG: root at the bottom, each frame as wide as its share, its name
// and share written in it where they fit, all of it in a tooltip (<title>).
std::string flame_svg(const Summed &s, const std::string &title);

// Per stack, its function names root first: what folded, svg and top count by.
std::vector<std::string> root_first_names(const Summed &s, const Stack &stack);

// "60.61": a share of `total` in percent, two decimals.
std::string percent(uint64_t part, uint64_t total);

}  // namespace sfu::tools::profile
