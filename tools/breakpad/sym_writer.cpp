// The Breakpad symbol-file model and its text. See sym_writer.h.
#include "tools/breakpad/sym_writer.h"

#include <cinttypes>
#include <cstdio>
#include <functional>
#include <set>

namespace sfu::tools::breakpad {
namespace {

void append_hex(std::string &out, uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "%" PRIx64, v);
  out += buf;
}

void append_dec(std::string &out, int64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "%" PRId64, v);
  out += buf;
}

// Pre-order over an inline tree, as Breakpad's InlineDFS.
void each_inline(const std::vector<SymInline> &inlines, const std::function<void(const SymInline &)> &f) {
  for (const SymInline &in : inlines) {
    f(in);
    each_inline(in.children, f);
  }
}

void append_rules(std::string &out, const SymRules &rules) {
  bool first = true;
  for (const auto &[name, rule] : rules) {
    if (!first) out += ' ';
    first = false;
    out += name;
    out += ": ";
    out += rule;
  }
}

}  // namespace

const SymSourceFile *SymModule::file(const std::string &name) {
  auto &slot = files_[name];
  if (!slot) slot = std::make_unique<SymSourceFile>(SymSourceFile{name});
  return slot.get();
}

SymOrigin *SymModule::origin(const std::string &name) {
  origins_.push_back(SymOrigin{name});
  return &origins_.back();
}

bool SymModule::in_module(uint64_t address) const {
  if (loaded.empty()) return true;
  for (const SymRange &r : loaded)
    if (address >= r.address && address - r.address < r.size) return true;
  return false;
}

bool SymModule::add_function(std::unique_ptr<SymFunction> f) {
  if (!in_module(f->address)) return false;
  // A function with a size beats a PUBLIC record at its start.
  auto pub = publics_.find(f->address);
  if (pub != publics_.end()) {
    if (multiple_field) {
      bool mismatch = pub->second.name != f->name;
      // A partial DWARF name inside the symbol's full one is the same function.
      if (mismatch && (f->name == "<name omitted>" || pub->second.name.find(f->name) != std::string::npos))
        mismatch = false;
      f->multiple = f->multiple || mismatch || pub->second.multiple;
    }
    publics_.erase(pub);
  }
  if (multiple_field) {
    auto at = functions_.lower_bound({f->address, std::string()});
    if (at != functions_.end() && at->first.first == f->address) {
      at->second->multiple = true;
      return false;
    }
  }
  auto key = std::make_pair(f->address, f->name);
  if (functions_.count(key)) return false;
  functions_.emplace(std::move(key), std::move(f));
  return true;
}

SymFunction *SymModule::find_function(uint64_t address, const std::string &name) {
  auto it = functions_.find({address, name});
  return it == functions_.end() ? nullptr : it->second.get();
}

void SymModule::rename_function(SymFunction *f, const std::string &name) {
  auto it = functions_.find({f->address, f->name});
  if (it == functions_.end() || it->second.get() != f) {
    f->name = name;
    return;
  }
  std::unique_ptr<SymFunction> held = std::move(it->second);
  functions_.erase(it);
  held->name = name;
  auto key = std::make_pair(held->address, held->name);
  if (!functions_.count(key)) functions_.emplace(std::move(key), std::move(held));
}

void SymModule::add_public(SymPublic p) {
  if (!in_module(p.address)) return;
  auto [it, added] = publics_.emplace(p.address, p);
  if (!added && multiple_field) it->second.multiple = true;
}

void SymModule::add_stack_entry(SymStackEntry e) {
  if (in_module(e.address)) stack_.push_back(std::move(e));
}

std::string SymModule::write() const {
  std::string out;
  out += "MODULE " + os + " " + arch + " " + id + " " + name + "\n";
  if (!code_id.empty()) out += "INFO CODE_ID " + code_id + "\n";
  for (const std::string &line : info) out += "INFO " + line + "\n";

  // FILE numbers: the files cited by the functions' lines and inline call sites, by name.
  std::set<const SymSourceFile *> cited;
  std::set<std::string> origin_names;
  for (const auto &[key, f] : functions_) {
    for (const SymLine &l : f->lines) cited.insert(l.file);
    each_inline(f->inlines, [&](const SymInline &in) {
      if (in.call_file) cited.insert(in.call_file);
      origin_names.insert(in.origin->name);
    });
  }
  std::map<const SymSourceFile *, int> file_ids;
  for (const auto &[fname, file] : files_)
    if (cited.count(file.get())) {
      int id = int(file_ids.size());
      file_ids[file.get()] = id;
      out += "FILE ";
      append_dec(out, id);
      out += " " + fname + "\n";
    }
  // INLINE_ORIGIN numbers: the distinct names, in order.
  std::map<std::string, int> origin_ids;
  for (const std::string &n : origin_names) {
    int id = int(origin_ids.size());
    origin_ids[n] = id;
    out += "INLINE_ORIGIN ";
    append_dec(out, id);
    out += " " + n + "\n";
  }

  for (const auto &[key, f] : functions_) {
    auto line = f->lines.begin();
    for (const SymRange &r : f->ranges) {
      out += f->multiple ? "FUNC m " : "FUNC ";
      append_hex(out, r.address - load_address);
      out += ' ';
      append_hex(out, r.size);
      out += " 0 " + f->name + "\n";
      each_inline(f->inlines, [&](const SymInline &in) {
        out += "INLINE ";
        append_dec(out, in.nest_level);
        out += ' ';
        append_dec(out, in.call_line);
        out += ' ';
        append_dec(out, in.call_file ? file_ids.at(in.call_file) : -1);
        out += ' ';
        append_dec(out, origin_ids.at(in.origin->name));
        for (const SymRange &ir : in.ranges) {
          out += ' ';
          append_hex(out, ir.address - load_address);
          out += ' ';
          append_hex(out, ir.size);
        }
        out += '\n';
      });
      for (; line != f->lines.end() && line->address >= r.address && line->address - r.address < r.size; ++line) {
        append_hex(out, line->address - load_address);
        out += ' ';
        append_hex(out, line->size);
        out += ' ';
        append_dec(out, int32_t(line->number));  // Breakpad holds line numbers in an int
        out += ' ';
        append_dec(out, file_ids.at(line->file));
        out += '\n';
      }
    }
  }

  for (const auto &[addr, p] : publics_) {
    out += p.multiple ? "PUBLIC m " : "PUBLIC ";
    append_hex(out, addr - load_address);
    out += " 0 " + p.name + "\n";
  }

  for (const SymStackEntry &e : stack_) {
    out += "STACK CFI INIT ";
    append_hex(out, e.address - load_address);
    out += ' ';
    append_hex(out, e.size);
    out += ' ';
    append_rules(out, e.initial);
    out += '\n';
    for (const auto &[addr, rules] : e.changes) {
      out += "STACK CFI ";
      append_hex(out, addr - load_address);
      out += ' ';
      append_rules(out, rules);
      out += '\n';
    }
  }
  return out;
}

}  // namespace sfu::tools::breakpad
