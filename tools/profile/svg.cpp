// `sfu profile --format svg` (output.h): a flame graph drawn here, no outside script. The stacks'
// names, root first, make a tree; each node is a box as wide as its samples' share of all counted
// samples, on top of its caller's, children left to right by name (as flamegraph.pl lays them).
// A box's label is its name and share when they fit in it (12 px monospace: 7.3 px a character at
// most in the fonts browsers pick), the name cut with ".." when only that fits, none below three
// characters; its tooltip always says all.
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

#include "tools/profile/output.h"

namespace sfu::tools::profile {
namespace {

constexpr double kWidth = 1200, kPad = 10, kBoxHeight = 16, kTop = 40, kCharWidth = 7.3;

struct Node {
  uint64_t count = 0;
  std::map<std::string, std::unique_ptr<Node>> children;
};

std::string escape(const std::string &s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // Control characters are not XML: a name never holds them, a made-up one might.
        if (static_cast<unsigned char>(c) < 0x20) out += "?";
        else out += c;
    }
  }
  return out;
}

std::string num(double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

// A warm colour from the name (flame graphs' convention), the same for a name every time;
// the frames that name no function grey.
std::string colour(const std::string &name) {
  if (!name.empty() && name[0] == '[') return "rgb(190,190,190)";
  uint32_t h = 2166136261u;  // FNV-1a
  for (char c : name) h = (h ^ uint8_t(c)) * 16777619u;
  return "rgb(" + std::to_string(205 + h % 50) + "," + std::to_string(80 + (h >> 8) % 150) + "," +
         std::to_string((h >> 16) % 55) + ")";
}

// The label that fits `width` pixels: "name 60.61%", "name", "na..", or "".
std::string label(const std::string &name, const std::string &share, double width) {
  size_t fits = size_t(std::max(0.0, (width - 6) / kCharWidth));
  std::string full = name + " " + share + "%";
  if (full.size() <= fits) return full;
  if (name.size() <= fits) return name;
  if (fits >= 3) return name.substr(0, fits - 2) + "..";
  return "";
}

class Drawer {
 public:
  Drawer(uint64_t total, size_t depth) : total_(total), depth_(depth) {}

  void box(const std::string &name, uint64_t count, double x, size_t level, std::string &out) const {
    double w = (kWidth - 2 * kPad) * double(count) / double(total_);
    double y = kTop + double(depth_ - level) * kBoxHeight;
    std::string share = percent(count, total_);
    out += "<g><title>" + escape(name) + " (" + std::to_string(count) + " samples, " + share + "%)</title>";
    out += "<rect x=\"" + num(x) + "\" y=\"" + num(y) + "\" width=\"" + num(w) + "\" height=\"" + num(kBoxHeight - 1) +
           "\" rx=\"2\" fill=\"" + colour(name) + "\"/>";
    std::string text = label(name, share, w);
    if (!text.empty())
      out += "<text x=\"" + num(x + 3) + "\" y=\"" + num(y + kBoxHeight - 4.5) + "\">" + escape(text) + "</text>";
    out += "</g>\n";
  }

  void node(const std::string &name, const Node &n, double x, size_t level, std::string &out) const {
    // A box under a tenth of a pixel draws nothing; its callers' boxes still count it.
    if ((kWidth - 2 * kPad) * double(n.count) / double(total_) < 0.1) return;
    box(name, n.count, x, level, out);
    for (const auto &[child, c] : n.children) {
      node(child, *c, x, level + 1, out);
      x += (kWidth - 2 * kPad) * double(c->count) / double(total_);
    }
  }

 private:
  uint64_t total_;
  size_t depth_;
};

}  // namespace

std::string flame_svg(const Summed &s, const std::string &title) {
  Node root;
  size_t depth = 0;
  for (const Stack &st : s.stacks) {
    Node *n = &root;
    n->count += st.count;
    std::vector<std::string> names = root_first_names(s, st);
    depth = std::max(depth, names.size());
    for (const std::string &name : names) {
      std::unique_ptr<Node> &c = n->children[name];
      if (!c) c = std::make_unique<Node>();
      n = c.get();
      n->count += st.count;
    }
  }
  double height = kTop + double(depth + 1) * kBoxHeight + kPad + 20;
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + num(kWidth) + "\" height=\"" + num(height) +
         "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
         "\" font-family=\"monospace\" font-size=\"12\">\n";
  out += "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" fill=\"rgb(250,250,240)\"/>\n";
  out += "<text x=\"" + num(kWidth / 2) + "\" y=\"24\" text-anchor=\"middle\" font-size=\"16\">" + escape(title) +
         "</text>\n";
  std::string period = s.period ? ", period " + std::to_string(s.period) + " " + s.unit : "";
  out += "<text x=\"" + num(kPad) + "\" y=\"" + num(height - 10) + "\">" +
         escape(std::to_string(s.counted) + " samples counted of " + std::to_string(s.samples) + " taken" + period +
                "; hover over a frame for its name and share") +
         "</text>\n";
  if (root.count) Drawer(root.count, depth).node("all", root, kPad, 0, out);
  out += "</svg>\n";
  return out;
}

}  // namespace sfu::tools::profile
