// `sfu profile --format top` (output.h).
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>

#include "tools/profile/output.h"

namespace sfu::tools::profile {

std::vector<std::string> root_first_names(const Summed &s, const Stack &stack) {
  std::vector<std::string> out;
  for (auto it = stack.frames.rbegin(); it != stack.frames.rend(); ++it) out.push_back(s.frames[*it].function);
  return out;
}

std::string percent(uint64_t part, uint64_t total) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.2f", total ? 100.0 * double(part) / double(total) : 0.0);
  return buf;
}

namespace {

std::string counts_text(const std::vector<std::pair<std::string, uint64_t>> &counts) {
  std::string out;
  for (const auto &[name, n] : counts) out += (out.empty() ? "" : ", ") + name + " " + std::to_string(n);
  return out;
}

struct Row {
  std::string name;
  uint64_t self = 0, total = 0;
};

}  // namespace

std::string top_text(const Summed &s) {
  std::map<std::string, Row> rows;
  for (const Stack &st : s.stacks) {
    std::vector<std::string> names = root_first_names(s, st);
    rows[names.back()].self += st.count;
    for (const std::string &n : std::set<std::string>(names.begin(), names.end())) rows[n].total += st.count;
  }
  std::vector<Row> sorted;
  for (auto &[name, r] : rows) {
    r.name = name;
    sorted.push_back(r);
  }
  std::stable_sort(sorted.begin(), sorted.end(), [](const Row &a, const Row &b) {
    return a.self != b.self ? a.self > b.self : a.total > b.total;
  });

  std::string out = "samples: " + std::to_string(s.samples) + " taken, " + std::to_string(s.counted) + " counted in " +
                    std::to_string(s.stacks.size()) + " stacks (" + std::to_string(s.profiles) +
                    (s.profiles == 1 ? " profile" : " profiles") + "); period: " +
                    (s.period ? std::to_string(s.period) + " " + s.unit : std::string("unknown")) + "\n";
  if (!s.lost.empty()) out += "lost: " + counts_text(s.lost) + "\n";
  if (!s.stopped.empty()) out += "stopped: " + counts_text(s.stopped) + "\n";
  out += "\n";
  size_t w = 5;  // "total"
  for (const Row &r : sorted) w = std::max({w, std::to_string(r.self).size(), std::to_string(r.total).size()});
  auto pad = [](const std::string &t, size_t width) { return std::string(width > t.size() ? width - t.size() : 0, ' ') + t; };
  out += pad("self", w) + "  " + pad("self%", 7) + "  " + pad("total", w) + "  " + pad("total%", 7) + "  function\n";
  for (const Row &r : sorted)
    out += pad(std::to_string(r.self), w) + "  " + pad(percent(r.self, s.counted) + "%", 7) + "  " +
           pad(std::to_string(r.total), w) + "  " + pad(percent(r.total, s.counted) + "%", 7) + "  " + r.name + "\n";
  return out;
}

}  // namespace sfu::tools::profile
