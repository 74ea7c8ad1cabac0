// `sfu profile --format folded` (output.h).
#include <map>

#include "tools/profile/output.h"

namespace sfu::tools::profile {

std::string folded_text(const Summed &s) {
  std::map<std::string, uint64_t> lines;  // sorted by the stack's text
  for (const Stack &st : s.stacks) {
    std::string text;
    for (const std::string &n : root_first_names(s, st)) text += (text.empty() ? "" : ";") + n;
    lines[text] += st.count;
  }
  std::string out;
  for (const auto &[text, n] : lines) out += text + " " + std::to_string(n) + "\n";
  return out;
}

}  // namespace sfu::tools::profile
