// The core's footprint per architecture, for bench/results.md: .text of build/<arch>/libsfu.a
// (from the architecture's `size`), and the deepest stack a walk can use, from a build of the
// core with -fstack-usage -fcallgraph-info=su: the largest sum of frame sizes over the call
// graph from each entry point (sfu_walk_next, which steps, looks the row up and reads the stack;
// sfu_backtrace, which holds a cursor itself; sfu_walk_start; sfu_print_backtrace, which prints
// each frame with its name from the symbol table).
//
//   footprint --out FILE [--links DIR] (--arch NAME SIZE_TOOL LIBSFU_A CI_DIR)...
//
// With --links, first what each feature adds to a kernel's link, from the linker maps
// bench/footprint_links.sh writes into DIR (its manifest names the links in chain order): the
// input sections from libsfu.a the link kept, .text* as code, .rodata* and .data.rel.ro* as
// read-only data, .bss* and COMMON as .bss. Each step's line is its link's total less the step
// before it, so the lines add up to each total the manifest names. Prints
//   footprint: ARCH feature NAME code N bytes, rodata N bytes, bss N bytes
//   footprint: ARCH walk-only code N bytes, rodata N bytes, backtrace stack N bytes
// the last from the walk-only link and the deepest sfu_print_backtrace path of the walk-only
// build (DIR/lib/walk-only/ARCH/obj, built with -fstack-usage -fcallgraph-info=su).
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
        // "dynamic,bounded" (x86_64's realigned frames): the size given is the most it takes.
        n.dynamic = label.find("dynamic", b) != std::string::npos && label.find("bounded", b) == std::string::npos;
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
  bool unbounded = false;  // recursion or a dynamic frame without a bound
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

// The sfunwind bytes one link kept, per object of libsfu.a.
struct Bytes {
  long code = 0, rodata = 0, bss = 0, data = 0, unwind = 0;
  Bytes &operator+=(const Bytes &o) {
    code += o.code, rodata += o.rodata, bss += o.bss, data += o.data, unwind += o.unwind;
    return *this;
  }
  Bytes operator-(const Bytes &o) const {
    Bytes b = *this;
    b.code -= o.code, b.rodata -= o.rodata, b.bss -= o.bss, b.data -= o.data, b.unwind -= o.unwind;
    return b;
  }
  bool operator==(const Bytes &) const = default;
};

struct LinkSizes {
  bool ok = false;
  Bytes total;
  std::map<std::string, Bytes> by_object;
};

void add_section(LinkSizes &l, const std::string &section, long size, const std::string &file) {
  size_t lib = file.find("libsfu.a(");
  if (lib == std::string::npos || size == 0) return;
  std::string object = file.substr(lib + 9, file.size() - lib - 10);
  Bytes b;
  auto starts = [&](const char *p) { return section.rfind(p, 0) == 0; };
  if (starts(".text")) b.code = size;
  else if (starts(".rodata") || starts(".data.rel.ro")) b.rodata = size;
  else if (starts(".bss") || starts(".sbss") || section == "COMMON") b.bss = size;
  else if (starts(".data") || starts(".sdata")) b.data = size;
  else if (starts(".sframe") || starts(".eh_frame")) b.unwind = size;
  else return;
  l.by_object[object] += b;
  l.total += b;
}

// GNU ld's map: after "Linker script and memory map", each input section kept is
// " NAME 0xADDR 0xSIZE FILE", or " NAME" alone with "  0xADDR 0xSIZE FILE" on the next line.
LinkSizes read_map(const std::string &path) {
  LinkSizes l;
  std::ifstream in(path);
  std::string line, pending;
  bool kept = false;
  while (std::getline(in, line)) {
    if (!kept) {
      kept = line.rfind("Linker script and memory map", 0) == 0;
      continue;
    }
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    bool input = line.size() > 1 && line[0] == ' ' && (line[1] == '.' || line.rfind(" COMMON", 0) == 0);
    if (input && w.size() == 1) {
      pending = w[0];
      continue;
    }
    if (input && w.size() >= 4 && w[1].rfind("0x", 0) == 0 && w[2].rfind("0x", 0) == 0)
      add_section(l, w[0], strtol(w[2].c_str(), nullptr, 16), w[3]);
    else if (!pending.empty() && w.size() >= 3 && w[0].rfind("0x", 0) == 0 && w[1].rfind("0x", 0) == 0)
      add_section(l, pending, strtol(w[1].c_str(), nullptr, 16), w[2]);
    pending.clear();
  }
  l.ok = kept;
  return l;
}

struct Link {
  std::string kind, name, variant, flags, what;
};

std::vector<Link> read_manifest(const std::string &path) {
  std::vector<Link> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    size_t at = 0;
    for (size_t tab; (tab = line.find('\t', at)) != std::string::npos; at = tab + 1)
      f.push_back(line.substr(at, tab - at));
    f.push_back(line.substr(at));
    if (f.size() == 5) out.push_back({f[0], f[1], f[2], f[3], f[4]});
  }
  return out;
}

std::string cell(const Bytes &b) {
  return std::to_string(b.code) + " / " + std::to_string(b.rodata) + " / " + std::to_string(b.bss);
}

// The per-feature table and the lines tools read; the walk-only line needs the stack of its
// backtrace, from the walk-only build's call graph.
int links_report(const std::string &dir, const std::vector<std::string> &archs, std::ostringstream &md) {
  std::vector<Link> links = read_manifest(dir + "/manifest");
  if (links.empty()) {
    fprintf(stderr, "footprint: no links in %s/manifest\n", dir.c_str());
    return 1;
  }
  int status = 0;
  // sizes[arch][i]: link i; delta[arch][i]: a step's link less the step before it.
  std::map<std::string, std::vector<LinkSizes>> sizes;
  std::map<std::string, std::vector<Bytes>> delta;
  std::map<std::string, long> walk_only_stack;
  std::ostringstream details;
  for (const std::string &a : archs) {
    std::vector<LinkSizes> &s = sizes[a];
    std::vector<Bytes> &d = delta[a];
    long prev = -1;  // the step before, by index (s grows)
    for (const Link &l : links) {
      s.push_back(read_map(dir + "/" + a + "/" + l.name + ".map"));
      if (!s.back().ok) {
        fprintf(stderr, "footprint: no map for %s %s\n", a.c_str(), l.name.c_str());
        status = 1;
      }
      d.push_back(l.kind != "step" || prev < 0 ? s.back().total : s.back().total - s[prev].total);
      if (l.kind != "step") continue;
      printf("footprint: %s feature %s code %ld bytes, rodata %ld bytes, bss %ld bytes\n", a.c_str(),
             l.name.c_str(), d.back().code, d.back().rodata, d.back().bss);
      prev = long(s.size()) - 1;
    }
    Graph g;
    std::string ci = dir + "/lib/walk-only/" + a + "/obj";
    if (std::filesystem::is_directory(ci))
      for (const auto &e : std::filesystem::recursive_directory_iterator(ci))
        if (e.path().extension() == ".ci") read_ci(e.path(), g);
    std::set<std::string> on_path;
    Path p = deepest(g, "sfu_print_backtrace", on_path);
    walk_only_stack[a] = p.chain.empty() ? -1 : p.bytes;
    for (size_t i = 0; i < links.size(); i++) {
      if (links[i].name != "walk-only") continue;
      printf("footprint: %s walk-only code %ld bytes, rodata %ld bytes, backtrace stack %ld bytes\n", a.c_str(),
             s[i].total.code, s[i].total.rodata, walk_only_stack[a]);
    }
    if (walk_only_stack[a] < 0) status = 1;

    // Where each step's bytes are: the first link's objects, then the objects each step changes.
    details << "\n### " << a << "\n\n";
    details << "- walk-only backtrace stack (sfu_print_backtrace): " << walk_only_stack[a] << " bytes"
            << (p.unbounded ? " (unbounded)" : "") << ": ";
    for (size_t i = 0; i < p.chain.size(); i++) details << (i ? " -> " : "") << p.chain[i];
    details << "\n";
    const std::map<std::string, Bytes> none;
    const std::map<std::string, Bytes> *before = &none;
    for (size_t i = 0; i < links.size(); i++) {
      if (links[i].kind != "step") continue;
      details << "- " << links[i].name << ", code / rodata / bss by object:";
      std::set<std::string> objects;
      for (const auto &[o, b] : s[i].by_object) objects.insert(o);
      for (const auto &[o, b] : *before) objects.insert(o);
      bool any = false;
      for (const std::string &o : objects) {
        Bytes now = s[i].by_object.count(o) ? s[i].by_object.at(o) : Bytes();
        Bytes then = before->count(o) ? before->at(o) : Bytes();
        Bytes b = now - then;
        if (b.code == 0 && b.rodata == 0 && b.bss == 0) continue;
        details << (any ? "; " : " ") << o << " " << (before == &none ? "" : b.code > 0 ? "+" : "") << b.code
                << " / " << b.rodata << " / " << b.bss;
        any = true;
      }
      details << (any ? "\n" : " no change\n");
      before = &s[i].by_object;
    }
  }

  md << "## Footprint per feature, linked\n\n"
     << "What each feature adds to a kernel, from the link (bench/footprint_links.sh): "
        "bench/footprint_probe.c, a freestanding probe making a kernel's calls, is linked `-nostdlib "
        "-static --gc-sections` against a build of libsfu.a per configuration, and the linker map's "
        "input sections from libsfu.a that the link kept are counted (the probe's own code is not): "
        "`.text*` as code, `.rodata*` and `.data.rel.ro*` as read-only data, `.bss*` as bss. Every line "
        "is against the line above it: the walk core is a whole link, each later line is its link "
        "less the link before, one feature more each time, so the lines add up to each total below. "
        "The chain starts from configs/walk-only.config with its SFrame versions and validation "
        "turned off, reaches walk-only.config itself, then gives the options walk-only.config turns "
        "off back their Kconfig defaults one feature at a time, and ends at the defaults (`other`: "
        "what walk-only.config sets besides, such as its build for size). A line's figure depends on "
        "the lines above it (code two features share is counted where the first one brings it), and "
        "the lines between walk-only and `other` are measured as walk-only.config builds the core "
        "(for size, when it says so); add the lines down to a configuration to know what it "
        "costs. Figures are bytes, code / rodata / bss.\n\n"
     << "| feature | what the step adds |";
  for (const std::string &a : archs) md << " " << a << " |";
  md << "\n| --- | --- |";
  for (size_t i = 0; i < archs.size(); i++) md << " ---: |";
  md << "\n";
  Bytes zero;
  std::map<std::string, Bytes> running;
  for (size_t i = 0; i < links.size(); i++) {
    const Link &l = links[i];
    if (l.kind == "step") {
      md << "| " << l.name << " | " << l.what << " |";
      for (const std::string &a : archs) {
        running[a] += delta[a][i];
        md << " " << cell(delta[a][i]) << " |";
      }
      md << "\n";
      continue;
    }
    md << "| **= " << l.name << "** | sum of the lines above; the link of " << l.what << " |";
    for (const std::string &a : archs) {
      const Bytes &link = sizes[a][i].total;
      md << " **" << cell(running[a]) << "**" << (running[a].code == link.code && running[a].rodata == link.rodata &&
                                                              running[a].bss == link.bss
                                                          ? " (link: same)"
                                                          : " (link: " + cell(link) + ")")
         << " |";
      if (!(running[a].code == link.code && running[a].rodata == link.rodata && running[a].bss == link.bss))
        status = 1;
    }
    md << "\n";
  }
  md << "\nThe walk-only link in the form `make bench` prints it, code + read-only data against "
        "issue 24's target of 8 KB, and the stack of its sfu_print_backtrace (the deepest "
        "sum of gcc's frame sizes over the walk-only build's call graph; the sink's putc and the "
        "kernel's sfu_hook_read_nofault are calls through pointers or outside the core, not counted):\n\n"
     << "| arch | code | rodata | code + rodata | backtrace stack |\n| --- | ---: | ---: | ---: | ---: |\n";
  for (const std::string &a : archs)
    for (size_t i = 0; i < links.size(); i++)
      if (links[i].name == "walk-only") {
        const Bytes &b = sizes[a][i].total;
        md << "| " << a << " | " << b.code << " | " << b.rodata << " | " << b.code + b.rodata << " | "
           << walk_only_stack[a] << " |\n";
      }
  // What the counted sections leave out, when the link has any.
  for (const std::string &a : archs) {
    const Bytes &b = sizes[a].back().total;
    if (b.data || b.unwind)
      md << "\nNot in the figures, " << a << ", last link: " << b.data << " bytes of `.data`, " << b.unwind
         << " of the library's own unwind tables (`.sframe`, `.eh_frame`, kept when the kernel's script "
            "keeps them).";
  }
  md << "\n\nWhere each step's bytes are, by object of libsfu.a (the walk core whole, each later step "
        "as its change):\n"
     << details.str() << "\n";
  (void)zero;
  return status;
}

}  // namespace

int main(int argc, char **argv) {
  const char *out_path = nullptr, *links_dir = nullptr;
  struct Arch {
    std::string name, size_tool, lib, ci_dir;
  };
  std::vector<Arch> archs;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--out") && i + 1 < argc) {
      out_path = argv[++i];
    } else if (!strcmp(argv[i], "--links") && i + 1 < argc) {
      links_dir = argv[++i];
    } else if (!strcmp(argv[i], "--arch") && i + 4 < argc) {
      archs.push_back({argv[i + 1], argv[i + 2], argv[i + 3], argv[i + 4]});
      i += 4;
    } else {
      fprintf(stderr, "usage: %s --out FILE [--links DIR] (--arch NAME SIZE_TOOL LIBSFU_A CI_DIR)...\n", argv[0]);
      return 2;
    }
  }
  if (!out_path || archs.empty()) return 2;

  const char *roots[] = {"sfu_walk_next", "sfu_backtrace", "sfu_walk_start", "sfu_print_backtrace"};
  std::ostringstream md, details;
  int status = 0;
  if (links_dir) {
    std::vector<std::string> names;
    for (const Arch &a : archs) names.push_back(a.name);
    status = links_report(links_dir, names, md);
  }
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
