// Row-by-row comparison of two tables over the addresses both describe.
#include "tools/sframe/diff.h"

#include <algorithm>

#include "sframe/rule.h"

namespace sfu::tools {
namespace {

std::string row_or_none(const sfu_row *row) { return row ? row_text(*row) : "no row"; }

void diff_function(const SframeFunction &a, const SframeFunction &b, DiffReport &out) {
  uint64_t end = std::min(a.start + a.size, b.start + b.size);
  std::vector<uint64_t> points;
  for (const SframeFunction *f : {&a, &b})
    for (const sfu_row &r : f->rows)
      if (f->start + r.row_start < end) points.push_back(f->start + r.row_start);
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  for (uint64_t pc : points) {
    out.ranges++;
    const sfu_row *ra = sframe_row_at(a, pc), *rb = sframe_row_at(b, pc);
    bool same = ra && rb ? sframe::same_rules(*ra, *rb) : ra == rb;
    if (!same) out.differences.push_back({pc, row_or_none(ra), row_or_none(rb)});
  }
  if (a.size != b.size)
    out.differences.push_back({end, "size " + std::to_string(a.size), "size " + std::to_string(b.size)});
}

}  // namespace

void diff_tables(const std::vector<SframeFunction> &first, const std::vector<SframeFunction> &second,
                 DiffReport &out) {
  out = DiffReport{};
  for (const SframeFunction &a : first) {
    const SframeFunction *b = sframe_function_at(second, a.start);
    if (!b || b->start != a.start) {
      out.only_first.push_back(a.start);
      continue;
    }
    if (a.pcmask || b->pcmask) {  // PLT-like: rows keyed by offset in a block, not by address
      out.skipped.push_back(a.start);
      continue;
    }
    out.functions++;
    diff_function(a, *b, out);
  }
  for (const SframeFunction &b : second) {
    const SframeFunction *a = sframe_function_at(first, b.start);
    if (!a || a->start != b.start) out.only_second.push_back(b.start);
  }
}

}  // namespace sfu::tools
