// The core's footprint per architecture, for bench/results.md: .text of build/<arch>/libsfu.a
// (from the architecture's `size`), and the deepest stack a walk can use, from a build of the
// core with -fstack-usage -fcallgraph-info=su: the largest sum of frame sizes over the call
// graph from each entry point (sfu_walk_next, which steps, looks the row up and reads the stack;
// sfu_backtrace, which holds a cursor itself; sfu_walk_start; sfu_print_backtrace, which prints
// each frame with its name from the symbol table).
//
//   footprint --out FILE (--arch NAME SIZE_TOOL LIBSFU_A CI_DIR)...
//
// Frame sizes are gcc's (-fstack-usage: on x86_64 they include the return address the call
// pushed). A call through a pointer, or to a function outside the core (the kernel's
// sfu_hook_read_nofault), is not in gcc's graph and so not in the sum; the table says so.
#include <cxxabi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Node {
  std::string pretty;
  long size = -1;  // -1: declared here, defined elsewhere (or nowhere)
  bool dynamic = false;
  std::set<std::string> callees;
};

struct Graph {
  std::map<std::string, Node> nodes;
};

// The value of key: "..." in a .ci line.
std::string field(const std::string &line, const char *key) {
  std::string k = std::string(key) + ": \"";
  size_t at = line.find(k);
  if (at == std::string::npos) return "";
  at += k.size();
  std::string out;
  for (size_t i = at; i < line.size() && line[i] != '"'; i++) {
    if (line[i] == '\\' && i + 1 < line.size()) {
      out += line[i + 1] == 'n' ? '\n' : line[i + 1];
      i++;
    } else {
      out += line[i];
    }
  }
  return out;
}

// A short name for a node: "step<X86_64>", "sfu_table_find".
std::string short_name(const std::string &pretty) {
  std::string first = pretty.substr(0, pretty.find('\n'));
  size_t paren = first.find('(');
  std::string head = first.substr(0, paren);
  size_t sp = head.rfind(' ');
  if (sp != std::string::npos) head = head.substr(sp + 1);
  size_t colons = head.rfind("::");
  if (colons != std::string::npos) head = head.substr(colons + 2);
  size_t with = first.find("[with Arch = ");
  if (with != std::string::npos) {
    std::string arch = first.substr(with + 13);
    arch = arch.substr(0, arch.find(']'));
    size_t c = arch.rfind("::");
    if (c != std::string::npos) arch = arch.substr(c + 2);
    head += "<" + arch + ">";
  }
  return head;
}

void read_ci(const std::filesystem::path &path, Graph &g) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("node:", 0) == 0) {
      std::string title = field(line, "title"), label = field(line, "label");
      Node &n = g.nodes[title];
      if (n.pretty.empty()) n.pretty = label;
      size_t b = label.rfind(" bytes (");
      if (b != std::string::npos) {
        size_t start = label.rfind('\n', b);
        n.size = atol(label.c_str() + (start == std::string::npos ? 0 : start + 1));
        n.dynamic = label.find("dynamic", b) != std::string::npos;
        n.pretty = label;
      }
    } else if (line.rfind("edge:", 0) == 0) {
      g.nodes[field(line, "sourcename")].callees.insert(field(line, "targetname"));
    }
  }
}

struct Path {
  long bytes = 0;
  std::vector<std::string> chain;
  bool unbounded = false;  // recursion or a dynamic frame
  std::set<std::string> unknown;  // callees with no frame size
};

Path deepest(const Graph &g, const std::string &name, std::set<std::string> &on_path) {
  Path p;
  auto it = g.nodes.find(name);
  if (it == g.nodes.end() || it->second.size < 0) {
    p.unknown.insert(it == g.nodes.end() ? name : short_name(it->second.pretty));
    return p;
  }
  const Node &n = it->second;
  if (on_path.count(name)) {
    p.unbounded = true;
    return p;
  }
  on_path.insert(name);
  Path best;
  bool unbounded = false;
  std::set<std::string> unknown;
  for (const std::string &c : n.callees) {
    Path q = deepest(g, c, on_path);
    unbounded |= q.unbounded;
    unknown.insert(q.unknown.begin(), q.unknown.end());
    if (q.bytes > best.bytes) best = q;
  }
  best.unbounded = unbounded;
  best.unknown = unknown;
  on_path.erase(name);
  p = best;
  p.bytes += n.size;
  p.unbounded |= n.dynamic;
  p.chain.insert(p.chain.begin(), short_name(n.pretty) + " " + std::to_string(n.size));
  return p;
}

struct ObjectSize {
  std::string name;
  long text;
};

std::vector<ObjectSize> text_sizes(const std::string &size_tool, const std::string &lib) {
  std::vector<ObjectSize> out;
  std::string cmd = size_tool + " " + lib;
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char line[512];
  while (fgets(line, sizeof line, p)) {
    long text, data, bss, dec;
    char hex[64], name[256];
    if (sscanf(line, "%ld %ld %ld %ld %63s %255s", &text, &data, &bss, &dec, hex, name) == 6)
      out.push_back({name, text});
  }
  pclose(p);
  return out;
}

// .text* and .rodata* bytes of one object (`size -A`): the code and read-only data it brings.
struct CoreSize {
  long code = 0, rodata = 0;
};

CoreSize sections(const std::string &size_tool, const std::string &object) {
  CoreSize out;
  std::string cmd = size_tool + " -A " + object;
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char line[512];
  while (fgets(line, sizeof line, p)) {
    char name[256];
    long bytes;
    if (sscanf(line, "%255s %ld", name, &bytes) != 2) continue;
    std::string n = name;
    if (n.rfind(".text", 0) == 0) out.code += bytes;
    if (n.rfind(".rodata", 0) == 0) out.rodata += bytes;
  }
  pclose(p);
  return out;
}

// The core: what a kernel links to register tables and walk (the format layer src/sframe, the
// registry and walker src/unwind, the capture in arch/<arch>), not the printer, the symbol-table
// reader or crash records, which are counted in .text total.
CoreSize core_size(const std::string &size_tool, const std::string &lib, const std::string &arch) {
  std::filesystem::path obj = std::filesystem::path(lib).parent_path() / "obj";
  CoreSize total;
  for (const char *dir : {"src/sframe", "src/unwind"}) {
    std::vector<std::filesystem::path> files;
    for (const auto &e : std::filesystem::directory_iterator(obj / dir))
      if (e.path().extension() == ".o") files.push_back(e.path());
    for (const auto &f : files) {
      CoreSize c = sections(size_tool, f.string());
      total.code += c.code;
      total.rodata += c.rodata;
    }
  }
  for (const auto &e : std::filesystem::directory_iterator(obj / "arch" / arch))
    if (e.path().extension() == ".o") {
      CoreSize c = sections(size_tool, e.path().string());
      total.code += c.code;
      total.rodata += c.rodata;
    }
  return total;
}

}  // namespace

int main(int argc, char **argv) {
  const char *out_path = nullptr;
  struct Arch {
    std::string name, size_tool, lib, ci_dir;
  };
  std::vector<Arch> archs;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      out_path = argv[++i];
    } else if (!strcmp(argv[i], "--arch") && i + 4 < argc) {
      archs.push_back({argv[i + 1], argv[i + 2], argv[i + 3], argv[i + 4]});
      i += 4;
    } else {
      fprintf(stderr, "usage: %s --out FILE (--arch NAME SIZE_TOOL LIBSFU_A CI_DIR)...\n", argv[0]);
      return 2;
    }
  }
  if (!out_path || archs.empty()) return 2;

  const char *roots[] = {"sfu_walk_next", "sfu_backtrace", "sfu_walk_start", "sfu_print_backtrace"};
  std::ostringstream md, details;
  md << "## Footprint of the freestanding core\n\n"
     << "`.text`: `size` of each object in `build/<arch>/libsfu.a` (`make ARCH=<arch>`, -O2, "
        "default Kconfig). Stack: the core built once more with `KCFLAGS='-fstack-usage "
        "-fcallgraph-info=su'` into a scratch directory; the deepest sum of gcc's frame sizes "
        "over the call graph from each entry point. The caller's `struct sfu_cursor` (for "
        "sfu_walk_start/sfu_walk_next) is the caller's and not counted; sfu_backtrace keeps "
        "its own. Calls to the kernel's `sfu_hook_read_nofault` are not counted. "
        "sfu_print_backtrace adds the printing: the lines and each frame's name, decoded from "
        "the symbol table straight into the sink (symbols.o; its putc is a call through a "
        "pointer, not counted).\n\n"
     << "Core: the objects a kernel links to register tables and walk (src/sframe, src/unwind and "
        "the capture in arch/<arch>), `.text*` as code and `.rodata*` (the error and stop names "
        "included) as rodata, from `size -A`; not their `.eh_frame`. `.text total` is `size`'s "
        "text column over the whole library (printer, symbol-table reader and crash records too, "
        "`.rodata` and `.eh_frame` included).\n\n"
     << "| arch | core code (bytes) | core rodata (bytes) | .text total (bytes) | walk stack: "
        "sfu_walk_next | sfu_backtrace | sfu_walk_start | sfu_print_backtrace |\n"
     << "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n";
  int status = 0;
  for (const Arch &a : archs) {
    std::vector<ObjectSize> sizes = text_sizes(a.size_tool, a.lib);
    long total = 0;
    for (const ObjectSize &o : sizes) total += o.text;
    Graph g;
    for (const auto &e : std::filesystem::recursive_directory_iterator(a.ci_dir))
      if (e.path().extension() == ".ci") read_ci(e.path(), g);
    CoreSize core = core_size(a.size_tool, a.lib, a.name);
    long backtrace_stack = -1;
    md << "| " << a.name << " | " << core.code << " | " << core.rodata << " | " << total;
    details << "\n### " << a.name << "\n\n.text by object:";
    for (const ObjectSize &o : sizes) details << " " << o.name << " " << o.text << ";";
    details << "\n\n";
    for (const char *r : roots) {
      std::set<std::string> on_path;
      Path p = deepest(g, r, on_path);
      if (p.chain.empty()) {
        md << " | ?";
        status = 1;
        continue;
      }
      md << " | " << p.bytes << (p.unbounded ? " (unbounded)" : "");
      details << "- " << r << ": " << p.bytes << " bytes: ";
      for (size_t i = 0; i < p.chain.size(); i++) details << (i ? " -> " : "") << p.chain[i];
      if (!p.unknown.empty()) {
        details << " (not counted:";
        for (const std::string &u : p.unknown) details << " " << u;
        details << ")";
      }
      details << "\n";
      if (!strcmp(r, "sfu_backtrace")) backtrace_stack = p.bytes;
    }
    md << " |\n";
    printf("footprint: %s code %ld bytes, rodata %ld bytes, backtrace stack %ld bytes\n", a.name.c_str(),
           core.code, core.rodata, backtrace_stack);
    if (backtrace_stack < 0 || core.code == 0) status = 1;
    if (sizes.empty()) status = 1;
  }
  md << "\nDeepest path per entry point (function and its frame in bytes):\n" << details.str();
  std::ofstream out(out_path);
  out << md.str();
  return out ? status : 1;
}
