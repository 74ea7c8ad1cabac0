// Corruption tests: real corpus sections and generated tables, damaged systematically, must be
// either refused with a named error or accepted and then answer every lookup sanely.
//
// Every damaged copy lives in its own exact-size heap allocation, so ASan reports any read
// past the section. For each copy:
//   - sfu_table_open and sfu_table_init return a named error or SFU_OK, and init agrees
//     exactly with open followed by sfu_table_validate;
//   - a refused table answers lookups with table-not-initialized;
//   - an opened table answers every PC of the original's range (and a few far ones) with a
//     lookup-time error or a sane row (row_problem);
//   - a table validation accepted answers consistently with an independent parse of its FDEs
//     (parse_layout): the right function, only ok / no-function / no-row, rows that reproduce.
// Generated tables (random but well formed, every version and ABI: support/random_tables.h)
// must decode exactly as a model of the format says, and are damaged the same way. Seeds are
// fixed: every run does the same ~150,000 sections and ~20 million lookups, in about ten seconds
// under ASan.
#include <gtest/gtest.h>
#include <stdint.h>
#include <string.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "config.h"
#include "sfu/sframe.h"
#include "support/corpus.h"
#include "support/error_classes.h"
#include "support/random_tables.h"

namespace {

using Bytes = std::vector<uint8_t>;
using sfu::test::encode;
using sfu::test::flex_control;
using sfu::test::GenFunc;
using sfu::test::generate;
using sfu::test::GenRow;
using sfu::test::GenTable;
using sfu::test::get_uint;
using sfu::test::is_lookup_error;
using sfu::test::is_named;
using sfu::test::put_uint;
using sfu::test::Rng;

std::string hex(uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

// ---------------------------------------------------------------------------------------------
// An independent reading of the header and FDE index, written from the format notes rather than
// from the decoder. It locates fields to damage and is the oracle for accepted tables.

constexpr unsigned kHeaderSize = 28;

struct RefFde {
  uint64_t start = 0;  // absolute
  uint32_t size = 0;
  uint32_t field_at = 0;  // section offset of the FDE entry
  uint32_t fre_off = 0;
  uint32_t attr_at = 0;  // V3: section offset of the attribute record (if inside the section)
  bool has_attr = false;
  bool covers(uint64_t pc) const { return pc >= start && pc - start < size; }
  uint64_t end() const { return start + size; }
};

struct Layout {
  bool big = false;
  uint8_t version = 0, flags = 0, abi = 0, aux_len = 0;
  uint32_t num_fdes = 0, num_fres = 0, fre_len = 0, fde_off = 0, fre_off = 0;
  uint32_t hdr_end = 0, fde_size = 0;
  uint64_t fdes_at = 0, fres_at = 0;
  std::vector<RefFde> fdes;
  bool sorted() const { return flags & SFU_F_FDE_SORTED; }
  // No two functions share an address (validation only checks this on sorted tables).
  bool disjoint() const {
    for (size_t i = 0; i < fdes.size(); i++)
      for (size_t j = i + 1; j < fdes.size(); j++)
        if (fdes[i].start < fdes[j].end() && fdes[j].start < fdes[i].end()) return false;
    return true;
  }
};

std::optional<Layout> parse_layout(const uint8_t *p, size_t n, uint64_t sec_addr) {
  if (n < kHeaderSize) return std::nullopt;
  Layout l;
  if (p[0] == 0xe2 && p[1] == 0xde)
    l.big = false;
  else if (p[0] == 0xde && p[1] == 0xe2)
    l.big = true;
  else
    return std::nullopt;
  l.version = p[2];
  l.flags = p[3];
  l.abi = p[4];
  l.aux_len = p[7];
  if (l.version < 1 || l.version > 3) return std::nullopt;
  l.num_fdes = uint32_t(get_uint(p, 8, 4, l.big));
  l.num_fres = uint32_t(get_uint(p, 12, 4, l.big));
  l.fre_len = uint32_t(get_uint(p, 16, 4, l.big));
  l.fde_off = uint32_t(get_uint(p, 20, 4, l.big));
  l.fre_off = uint32_t(get_uint(p, 24, 4, l.big));
  l.hdr_end = kHeaderSize + l.aux_len;
  l.fde_size = l.version == 1 ? 17 : l.version == 2 ? 20 : 16;
  l.fdes_at = uint64_t(l.hdr_end) + l.fde_off;
  l.fres_at = uint64_t(l.hdr_end) + l.fre_off;
  if (l.fdes_at + uint64_t(l.num_fdes) * l.fde_size > n) return std::nullopt;
  if (l.fres_at + l.fre_len > n) return std::nullopt;
  bool pcrel = l.flags & SFU_F_FDE_FUNC_START_PCREL;
  for (uint32_t i = 0; i < l.num_fdes; i++) {
    RefFde f;
    f.field_at = uint32_t(l.fdes_at + uint64_t(i) * l.fde_size);
    int64_t rel;
    if (l.version == 3) {
      rel = int64_t(get_uint(p, f.field_at, 8, l.big));
      f.size = uint32_t(get_uint(p, f.field_at + 8, 4, l.big));
      f.fre_off = uint32_t(get_uint(p, f.field_at + 12, 4, l.big));
      uint64_t attr = l.fres_at + f.fre_off;
      f.has_attr = uint64_t(f.fre_off) + 5 <= l.fre_len;
      f.attr_at = f.has_attr ? uint32_t(attr) : 0;
    } else {
      rel = int32_t(uint32_t(get_uint(p, f.field_at, 4, l.big)));
      f.size = uint32_t(get_uint(p, f.field_at + 4, 4, l.big));
      f.fre_off = uint32_t(get_uint(p, f.field_at + 8, 4, l.big));
    }
    f.start = sec_addr + (pcrel ? f.field_at : 0) + uint64_t(rel);
    l.fdes.push_back(f);
  }
  return l;
}

// ---------------------------------------------------------------------------------------------
// One damaged section as the decoder sees it, and the PCs to ask about.

struct Where {
  uint64_t sec_addr = 0;
  uint64_t text_start = 0, text_end = 0;  // text_end 0: no text check
};

struct Probe {
  uint64_t lo = 0, hi = 0;      // every PC in [lo, hi]
  std::vector<uint64_t> extra;  // and these
};

// Lookups from the lowest function start - 8 to the highest end + 8 of the undamaged table,
// plus 0, ~0 and a few far away.
Probe probe_for(const Layout &l, uint64_t sec_addr) {
  Probe p;
  uint64_t lo = ~0ull, hi = 0;
  for (const RefFde &f : l.fdes) {
    lo = std::min(lo, f.start);
    hi = std::max(hi, f.end());
  }
  if (l.fdes.empty()) lo = hi = sec_addr;
  p.lo = lo >= 8 ? lo - 8 : 0;
  p.hi = hi + 8;
  p.extra = {0, ~0ull, 1ull << 63, sec_addr, p.hi + 0x10000, p.lo > 0x10000 ? p.lo - 0x10000 : 1};
  return p;
}

// A copy of the bytes in an allocation of exactly their length: a read past the end is an
// ASan report, not a silent read of the next byte of a bigger buffer.
class ExactCopy {
 public:
  explicit ExactCopy(const Bytes &b) : p_(new uint8_t[b.size()]) {
    if (!b.empty()) memcpy(p_.get(), b.data(), b.size());
  }
  const uint8_t *data() const { return p_.get(); }

 private:
  std::unique_ptr<uint8_t[]> p_;
};

sfu_table_desc make_desc(const uint8_t *p, size_t n, const Where &w) {
  sfu_table_desc d;
  d.section = p;
  d.size = n;
  d.section_addr = w.sec_addr;
  d.text_start = w.text_start;
  d.text_end = w.text_end;
  d.abi = SFU_ABI_ANY;
  return d;
}

// ---------------------------------------------------------------------------------------------
// What a result may be.

std::string describe(sfu_error e, const sfu_row &r) {
  if (e != SFU_OK) return sfu_error_name(e);
  std::ostringstream s;
  s << "ok func " << hex(r.func_start) << "+" << r.func_size << " row " << r.row_start << " cfa "
    << int(r.cfa.kind) << "/" << int(r.cfa.reg) << "/" << r.cfa.offset << " ra " << int(r.ra.kind)
    << "/" << int(r.ra.reg) << "/" << r.ra.offset << " fp " << int(r.fp.kind) << "/" << int(r.fp.reg)
    << "/" << r.fp.offset << " flags " << hex(r.flags);
  return s.str();
}

// ---------------------------------------------------------------------------------------------
// The harness: runs one damaged section through open, init, validate and the lookups, and
// keeps counts and the first failures (each with what reproduces it).

class Harness {
 public:
  bool lookups = true;  // off for the refusal census, which only needs init

  std::map<std::string, size_t> refusals;  // init's error name -> mutations it refused
  size_t runs = 0, accepted = 0, opened = 0, finds = 0;

  void run(const std::string &label, const Bytes &bytes, const Where &where, const Probe &probe) {
    runs++;
    ExactCopy copy(bytes);
    sfu_table_desc desc = make_desc(copy.data(), bytes.size(), where);

    sfu_table opened_t;
    memset(&opened_t, 0xa5, sizeof opened_t);  // open must not rely on a zeroed table
    sfu_error e_open = sfu_table_open(&opened_t, &desc);
    if (!is_named(e_open)) return fail(label, "open returned unnamed " + std::to_string(e_open));

    sfu_error e_val = e_open;
    sfu_table validated_t = opened_t;
    if (e_open == SFU_OK) {
      opened++;
      e_val = sfu_table_validate(&validated_t);
      if (!is_named(e_val)) return fail(label, "validate returned unnamed " + std::to_string(e_val));
    }
    if (e_open != SFU_OK) expect_closed(label, opened_t, "open refused");
    if (e_open == SFU_OK && e_val != SFU_OK) expect_closed(label, validated_t, "validate refused");

    sfu_table init_t;
    memset(&init_t, 0x5a, sizeof init_t);
    sfu_error e_init = sfu_table_init(&init_t, &desc);
    sfu_error want_init = e_open != SFU_OK ? e_open : sfu::config::kValidateOnRegister ? e_val : SFU_OK;
    if (e_init != want_init)
      return fail(label, std::string("init returned ") + sfu_error_name(e_init) + ", open+validate " +
                             sfu_error_name(want_init));
    if (e_init != SFU_OK) {
      refusals[sfu_error_name(e_init)]++;
      expect_closed(label, init_t, "init refused");
    } else {
      accepted++;
    }
    if (!lookups || e_open != SFU_OK) return;

    // Sweep the validated table with the checks its promise allows, else the merely opened one.
    if (e_val != SFU_OK) return sweep(label, opened_t, where, probe, nullptr);
    std::optional<Layout> oracle = parse_layout(copy.data(), bytes.size(), where.sec_addr);
    if (!oracle) return fail(label, "validate accepted a table the reference parse refuses");
    sweep(label, validated_t, where, probe, &*oracle);
    if (e_init == SFU_OK) same_answers(label, validated_t, init_t, probe);
  }

  size_t failures() const { return failures_; }
  std::string report() const {
    std::ostringstream s;
    s << failures_ << " failures in " << runs << " runs; first ones:\n";
    for (const std::string &m : messages_) s << "  " << m << "\n";
    return s.str();
  }
  std::string stats() const {
    std::ostringstream s;
    s << runs << " sections, " << opened << " opened, " << accepted << " accepted, " << finds
      << " lookups";
    return s.str();
  }

  void fail(const std::string &label, const std::string &what) {
    if (failures_++ < kMaxMessages) messages_.push_back(label + ": " + what);
  }

 private:
  static constexpr size_t kMaxMessages = 30;
  size_t failures_ = 0;
  std::vector<std::string> messages_;

  void expect_closed(const std::string &label, const sfu_table &t, const char *why) {
    sfu_row row;
    sfu_error e = sfu_table_find(&t, 0, &row);
    if (e != SFU_E_NOT_INITIALIZED)
      fail(label, std::string(why) + ", but a lookup returned " + sfu_error_name(e));
  }

  template <typename F>
  void for_each_pc(const Probe &p, F f) {
    for (uint64_t pc = p.lo;; pc++) {
      f(pc);
      if (pc == p.hi) break;
    }
    for (uint64_t pc : p.extra) f(pc);
  }

  void sweep(const std::string &label, const sfu_table &t, const Where &w, const Probe &probe,
             const Layout *oracle) {
    uint64_t prev_pc = 0, prev_func = 0;
    uint32_t prev_row_start = 0;
    bool prev_ok = false;
    uint64_t checked_func = ~0ull;
    uint32_t checked_row = ~0u;
    // An unsorted table may hold overlapping functions: a PC then belongs to whichever the
    // scan meets first, so a row's start PC can belong to another function.
    bool unique_owner = oracle && (oracle->sorted() || oracle->disjoint());
    for_each_pc(probe, [&](uint64_t pc) {
      sfu_row row;
      memset(&row, 0x77, sizeof row);
      sfu_error e = sfu_table_find(&t, pc, &row);
      finds++;
      auto bad = [&](const std::string &what) {
        if (failures_ >= kMaxMessages) return void(failures_++);  // counting is enough
        fail(label, "pc " + hex(pc) + ": " + describe(e, row) + ": " + what);
      };
      if (!is_named(e)) return bad("unnamed error");
      if (e != SFU_OK && !is_lookup_error(e)) return bad("not a lookup-time error");
      bool in_text = w.text_end == 0 || (pc >= w.text_start && pc < w.text_end);
      if (!in_text && e != SFU_E_NO_FUNCTION) return bad("pc outside text must be no-function");
      if (e == SFU_OK) {
        if (const char *why = sfu::test::row_problem(t, pc, row)) return bad(why);
      }
      if (!oracle) return;

      // Validated: only these three answers, and the function is the one the FDEs say.
      if (e != SFU_OK && e != SFU_E_NO_FUNCTION && e != SFU_E_NO_ROW)
        return bad("validated table gave a record error");
      if (in_text) {
        const RefFde *want = expected_function(*oracle, pc);
        if (!want && e != SFU_E_NO_FUNCTION) return bad("no FDE covers pc");
        if (want && e == SFU_E_NO_FUNCTION) return bad("FDE at " + hex(want->start) + " covers pc");
        if (e == SFU_OK && !matches_some_fde(*oracle, row, pc, want)) return bad("row names the wrong function");
      }
      if (e != SFU_OK) {
        prev_ok = false;
        return;
      }
      bool pcmask = row.flags & SFU_ROW_PCMASK;
      // Rows rise within a function: the next PC never goes back to an earlier row.
      if (!pcmask && prev_ok && prev_pc + 1 == pc && prev_func == row.func_start &&
          row.row_start < prev_row_start)
        return bad("row start went back from " + std::to_string(prev_row_start));
      // The row's own start PC gives the same row.
      if (!pcmask && unique_owner && (row.func_start != checked_func || row.row_start != checked_row)) {
        checked_func = row.func_start;
        checked_row = row.row_start;
        sfu_row again;
        sfu_error e2 = sfu_table_find(&t, row.func_start + row.row_start, &again);
        finds++;
        if (e2 != SFU_OK || !sfu::test::same_row_exactly(row, again))
          return bad("its start pc gives " + describe(e2, again));
      }
      prev_ok = true;
      prev_pc = pc;
      prev_func = row.func_start;
      prev_row_start = row.row_start;
    });
  }

  // Sorted tables: the last FDE starting at or before pc, if it covers pc. Unsorted: any
  // covering FDE (validation does not forbid overlaps there); nullptr if none.
  static const RefFde *expected_function(const Layout &l, uint64_t pc) {
    if (l.sorted()) {
      const RefFde *last = nullptr;
      for (const RefFde &f : l.fdes)
        if (f.start <= pc) last = &f;
      return last && last->covers(pc) ? last : nullptr;
    }
    for (const RefFde &f : l.fdes)
      if (f.covers(pc)) return &f;
    return nullptr;
  }
  static bool matches_some_fde(const Layout &l, const sfu_row &r, uint64_t pc, const RefFde *want) {
    if (l.sorted()) return r.func_start == want->start && r.func_size == want->size;
    for (const RefFde &f : l.fdes)
      if (f.covers(pc) && r.func_start == f.start && r.func_size == f.size) return true;
    return false;
  }

  // init's table must answer exactly as the opened one did (spot check, to keep it cheap).
  void same_answers(const std::string &label, const sfu_table &a, const sfu_table &b, const Probe &p) {
    for (uint64_t pc : {p.lo, p.lo + (p.hi - p.lo) / 2, p.hi - 8}) {
      sfu_row ra, rb;
      sfu_error ea = sfu_table_find(&a, pc, &ra), eb = sfu_table_find(&b, pc, &rb);
      finds += 2;
      if (ea != eb || (ea == SFU_OK && !sfu::test::same_row_exactly(ra, rb)))
        fail(label, "pc " + hex(pc) + ": opened table gives " + describe(ea, ra) + ", init's " +
                        describe(eb, rb));
    }
  }
};

// ---------------------------------------------------------------------------------------------
// The corpus, loaded once.

struct Original {
  std::string name;
  Bytes bytes;
  Where where;  // section address, no text check
  Layout layout;
  Probe probe;
};

bool version_enabled(uint8_t v) {
  return (v == 1 && sfu::config::kVersion1) || (v == 2 && sfu::config::kVersion2) ||
         (v == 3 && sfu::config::kVersion3);
}

const std::vector<Original> &originals() {
  static const std::vector<Original> all = [] {
    std::vector<Original> out;
    for (const std::string &name : sfu::test::corpus_case_names()) {
      sfu::test::CorpusCase c = sfu::test::load_corpus_case(name);
      if (c.section.empty()) continue;
      std::optional<Layout> l = parse_layout(c.section.data(), c.section.size(), c.section_base);
      if (!l) throw std::runtime_error("reference parse refuses corpus case " + name);
      Original o{name, c.section, {}, *l, {}};
      o.where.sec_addr = c.section_base;
      o.probe = probe_for(*l, c.section_base);
      out.push_back(std::move(o));
    }
    return out;
  }();
  return all;
}

// The text range [lowest start, highest end) of the undamaged table.
Where with_tight_text(const Original &o) {
  Where w = o.where;
  w.text_start = ~0ull;
  for (const RefFde &f : o.layout.fdes) {
    w.text_start = std::min(w.text_start, f.start);
    w.text_end = std::max(w.text_end, f.end());
  }
  return w;
}

// ---------------------------------------------------------------------------------------------
// Mutators. Each calls visit(label, bytes, where) for every damaged copy of one original.

using Visit = std::function<void(const std::string &, const Bytes &, const Where &)>;

// Every byte replaced by 0x00, 0xff, x^0x01, x^0x80, x+1 and x-1 (each distinct new value once).
void mutate_every_byte(const Original &o, const Visit &visit) {
  Bytes b = o.bytes;
  for (size_t i = 0; i < b.size(); i++) {
    uint8_t x = o.bytes[i];
    std::set<uint8_t> values = {0x00, 0xff, uint8_t(x ^ 0x01), uint8_t(x ^ 0x80), uint8_t(x + 1), uint8_t(x - 1)};
    values.erase(x);
    for (uint8_t v : values) {
      b[i] = v;
      visit(o.name + " byte " + hex(i) + " = " + hex(v), b, o.where);
    }
    b[i] = x;
  }
}

// The section cut at every length, 0 included.
void mutate_truncate(const Original &o, const Visit &visit) {
  for (size_t n = 0; n < o.bytes.size(); n++) {
    Bytes b(o.bytes.begin(), o.bytes.begin() + n);
    visit(o.name + " truncated to " + std::to_string(n), b, o.where);
  }
}

struct Field {
  const char *name;
  uint32_t at;
  unsigned width;
};

// Sets one field to each value (masked to its width; signed values wrap), each distinct value
// different from the original once.
void set_field(const Original &o, const std::string &what, const Field &f, const std::vector<int64_t> &values,
               const Where &w, const Visit &visit) {
  const Layout &l = o.layout;
  uint64_t mask = f.width == 8 ? ~0ull : (1ull << (8 * f.width)) - 1;
  uint64_t orig = get_uint(o.bytes.data(), f.at, f.width, l.big);
  std::set<uint64_t> seen;
  Bytes b = o.bytes;
  for (int64_t v : values) {
    uint64_t m = uint64_t(v) & mask;
    if (m == orig || !seen.insert(m).second) continue;
    put_uint(b, f.at, m, f.width, l.big);
    std::string text = what + " " + f.name + " = " + hex(m) + (w.text_end ? " (text checked)" : "");
    visit(o.name + " " + text, b, w);
  }
}

// Every header field set to boundary values: 0, 1, max, section size and its neighbours, and
// for the offsets values pointing at (or just before) the end of the section.
void mutate_header_fields(const Original &o, const Visit &visit) {
  const Layout &l = o.layout;
  int64_t n = int64_t(o.bytes.size()), after_hdr = n - l.hdr_end;
  int64_t fde_bytes = int64_t(l.num_fdes) * l.fde_size;
  std::vector<int64_t> common = {0, 1, -1, 0x7f, 0x80, 0x7fffffff, n, n - 1, n + 1};
  const Field fields[] = {{"magic", 0, 2},     {"version", 2, 1},   {"flags", 3, 1},
                          {"abi", 4, 1},       {"fixed_fp", 5, 1},  {"fixed_ra", 6, 1},
                          {"aux_len", 7, 1},   {"num_fdes", 8, 4},  {"num_fres", 12, 4},
                          {"fre_len", 16, 4},  {"fde_off", 20, 4},  {"fre_off", 24, 4}};
  for (const Field &f : fields) {
    std::vector<int64_t> v = common;
    uint64_t orig = get_uint(o.bytes.data(), f.at, f.width, l.big);
    v.push_back(int64_t(orig) + 1);
    v.push_back(int64_t(orig) - 1);
    std::string name = f.name;
    if (f.width == 1 && name != "aux_len")  // small enumerations: every low value and high bits
      for (int64_t x : {2, 3, 4, 5, 6, 7, 8, 0x40, 0xf8}) v.push_back(x);
    if (name == "magic") v.insert(v.end(), {0xdee2, 0xe2de, 0xdee3, 0xdfe2});
    if (name == "aux_len") v.insert(v.end(), {after_hdr + l.aux_len, after_hdr + l.aux_len - 1});
    if (name == "num_fdes") v.insert(v.end(), {(after_hdr - l.fde_off) / l.fde_size, after_hdr / l.fde_size + 1});
    if (name == "fre_len" || name == "fde_off" || name == "fre_off")
      v.insert(v.end(), {after_hdr, after_hdr - 1, after_hdr + 1});
    if (name == "fde_off") v.insert(v.end(), {after_hdr - fde_bytes, after_hdr - fde_bytes + 1, int64_t(l.fre_off)});
    if (name == "fre_off")
      v.insert(v.end(), {after_hdr - l.fre_len, after_hdr - l.fre_len + 1, int64_t(l.fde_off),
                         int64_t(l.fde_off) + fde_bytes - 1});
    set_field(o, "header", f, v, o.where, visit);
  }
}

// Each FDE's start, size, FRE offset, row count, info bytes and repeat size set to boundary
// values, with and without a text range to check them against.
void mutate_fde_fields(const Original &o, const Visit &visit) {
  const Layout &l = o.layout;
  int64_t n = int64_t(o.bytes.size());
  for (const Where &w : {o.where, with_tight_text(o)}) {
    for (size_t i = 0; i < l.fdes.size(); i++) {
      const RefFde &f = l.fdes[i];
      std::string what = "fde " + std::to_string(i);
      bool v3 = l.version == 3;
      // Start: relative, as stored. Values that land on a neighbour, overlap it, or wrap.
      int64_t base = int64_t(o.where.sec_addr + ((l.flags & SFU_F_FDE_FUNC_START_PCREL) ? f.field_at : 0));
      std::vector<int64_t> starts = {0, 1, -1, INT32_MAX, INT32_MIN, n, -n};
      if (v3) starts.insert(starts.end(), {INT64_MAX, INT64_MIN, -base, -base - int64_t(f.size) / 2});
      for (const RefFde &g : l.fdes)
        if (&g != &f)
          starts.insert(starts.end(), {int64_t(g.start) - base, int64_t(g.end()) - base - 1,
                                       int64_t(g.end()) - base, int64_t(g.start) - base - 1});
      set_field(o, what, {"start", f.field_at, v3 ? 8u : 4u}, starts, w, visit);

      std::vector<int64_t> sizes = {0, 1, -1, INT32_MAX, n, int64_t(f.size) + 1, int64_t(f.size) - 1};
      if (i + 1 < l.fdes.size()) sizes.push_back(int64_t(l.fdes[i + 1].start - f.start) + 1);
      set_field(o, what, {"size", f.field_at + (v3 ? 8u : 4u), 4}, sizes, w, visit);

      int64_t fl = l.fre_len;
      set_field(o, what, {"fre_off", f.field_at + (v3 ? 12u : 8u), 4},
                {0, 1, -1, fl, fl - 1, fl + 1, fl - 5, fl - 4, n, int64_t(f.fre_off) + 1, int64_t(f.fre_off) - 1},
                w, visit);

      // The row count, info and repeat size live in the FDE (V1/V2) or the attribute record (V3).
      uint32_t count_at = v3 ? f.attr_at : f.field_at + 12;
      uint32_t info_at = v3 ? f.attr_at + 2 : f.field_at + 16;
      if (v3 && !f.has_attr) continue;
      uint64_t rows = get_uint(o.bytes.data(), count_at, v3 ? 2 : 4, l.big);
      set_field(o, what, {"num_fres", count_at, v3 ? 2u : 4u},
                {0, 1, -1, int64_t(rows) + 1, int64_t(rows) - 1, int64_t(l.num_fres), n, 0x7fffffff}, w, visit);
      uint8_t info = o.bytes[info_at];
      std::vector<int64_t> infos;
      for (int t = 0; t < 16; t++) infos.push_back((info & 0xf0) | t);  // every FRE type
      for (int bit = 4; bit < 8; bit++) infos.push_back(info ^ (1 << bit));
      set_field(o, what, {"info", info_at, 1}, infos, w, visit);
      if (v3) set_field(o, what, {"info2", f.attr_at + 3, 1}, {1, 2, 0x1f, 0x20, 0x80, 0xff}, w, visit);
      if (l.version >= 2)
        set_field(o, what, {"rep_size", v3 ? f.attr_at + 4 : f.field_at + 17, 1}, {0, 1, 2, 0xff}, w, visit);
    }
  }
}

// Random bytes after a header that looks valid: counts and offsets chosen to fit the section,
// sometimes keeping the real FDEs or the real FREs. Deterministic per case.
void mutate_garbage(const Original &o, const Visit &visit, int per_case) {
  const Layout &l = o.layout;
  uint64_t seed = 0xcbf29ce484222325ull;  // FNV-1a of the case name: same seed on every host
  for (char c : o.name) seed = (seed ^ uint8_t(c)) * 0x100000001b3ull;
  Rng rng(seed);
  for (int k = 0; k < per_case; k++) {
    Bytes b = o.bytes;
    int mode = int(rng.below(4));
    // 0: everything after the header random; 1: FRE data random; 2: FDE entries random;
    // 3: everything after the header random, counts and offsets random but inside.
    for (size_t i = l.hdr_end; i < b.size(); i++) {
      bool in_fdes = i >= l.fdes_at && i < l.fdes_at + uint64_t(l.num_fdes) * l.fde_size;
      bool in_fres = i >= l.fres_at && i < l.fres_at + l.fre_len;
      if (mode == 0 || mode == 3 || (mode == 1 && in_fres) || (mode == 2 && in_fdes)) b[i] = uint8_t(rng.next());
    }
    if (mode == 3) {
      uint32_t room = uint32_t(b.size() - l.hdr_end);
      uint32_t fdes = uint32_t(rng.below(room / l.fde_size + 1));
      uint32_t fde_off = uint32_t(rng.below(room - fdes * l.fde_size + 1));
      uint32_t fre_len = uint32_t(rng.below(room + 1));
      uint32_t fre_off = uint32_t(rng.below(room - fre_len + 1));
      put_uint(b, 8, fdes, 4, l.big);
      put_uint(b, 12, rng.below(room), 4, l.big);
      put_uint(b, 16, fre_len, 4, l.big);
      put_uint(b, 20, fde_off, 4, l.big);
      put_uint(b, 24, fre_off, 4, l.big);
    }
    visit(o.name + " garbage mode " + std::to_string(mode) + " #" + std::to_string(k), b, o.where);
  }
}

// ---------------------------------------------------------------------------------------------
// Generated tables (support/random_tables.h): the row the format notes give each PC of the
// model, independent of the decoder. Validation must accept every generated table; damaged
// copies go through the harness like corpus sections.

sfu_rule model_rule(sfu_rule_kind kind, uint8_t reg, int32_t offset) {
  sfu_rule r;
  r.kind = uint8_t(kind);
  r.reg = reg;
  r.offset = offset;
  return r;
}

// The answer the format notes give for pc, independent of the decoder.
sfu_error model_find(const GenTable &t, uint64_t pc, sfu_row &row) {
  const GenFunc *f = nullptr;
  for (const GenFunc &g : t.funcs)
    if (g.covers(pc)) f = &g;
  if (!f) return SFU_E_NO_FUNCTION;
  uint64_t off = pc - f->start;
  uint64_t key = !f->pcmask ? off : t.version == 1 ? off & 0xff : off % f->rep_size;
  const GenRow *r = nullptr;
  for (const GenRow &g : f->rows)
    if (g.start <= key) r = &g;
  if (!r) return SFU_E_NO_ROW;

  bool amd64 = t.abi == SFU_ABI_AMD64_LE, s390x = t.abi == SFU_ABI_S390X_BE, arm = sfu::sframe::abi_aarch64(t.abi);
  row.func_start = f->start;
  row.func_size = f->size;
  row.row_start = r->start;
  row.flags = (r->ra_signed ? SFU_ROW_RA_SIGNED : 0) | (f->signal ? SFU_ROW_SIGNAL_FRAME : 0) |
              (arm && f->key_b ? SFU_ROW_PAUTH_KEY_B : 0) | (f->pcmask ? SFU_ROW_PCMASK : 0) |
              (f->flex ? SFU_ROW_FLEX : 0);
  const std::vector<int32_t> &w = r->w;
  if (w.empty()) {
    row.flags |= SFU_ROW_OUTERMOST;
    row.cfa = model_rule(SFU_RULE_UNDEFINED, 0, 0);
    row.ra = model_rule(SFU_RULE_UNDEFINED, 0, 0);
    row.fp = model_rule(SFU_RULE_UNCHANGED, 0, 0);
    return SFU_OK;
  }
  int32_t cfa_word = w[f->flex ? 1 : 0];
  int32_t cfa_offset = s390x ? cfa_word * 8 + 160 : cfa_word;
  sfu_rule fixed_ra = t.fixed_ra ? model_rule(SFU_RULE_AT_CFA, 0, t.fixed_ra) : model_rule(SFU_RULE_UNCHANGED, 0, 0);
  sfu_rule fixed_fp = t.fixed_fp ? model_rule(SFU_RULE_AT_CFA, 0, t.fixed_fp) : model_rule(SFU_RULE_UNCHANGED, 0, 0);
  if (f->flex) {
    // [control, offset] pairs: bit 0 register base (number in bits 3+), bit 1 loaded from.
    auto pair = [&](size_t i, int32_t off) {
      uint32_t ctl = uint32_t(w[i]);
      bool reg_p = ctl & 1, deref = ctl & 2;
      sfu_rule_kind kind = reg_p ? (deref ? SFU_RULE_AT_REGISTER : SFU_RULE_REGISTER)
                                 : (deref ? SFU_RULE_AT_CFA : SFU_RULE_CFA_PLUS);
      return model_rule(kind, reg_p ? uint8_t(ctl >> 3) : 0, off);
    };
    row.cfa = pair(0, cfa_offset);
    bool has_ra = w.size() == 4 || w.size() == 6;
    row.ra = has_ra ? pair(2, w[3]) : fixed_ra;
    size_t fp_at = w.size() == 5 ? 3 : 4;
    row.fp = w.size() > fp_at ? pair(fp_at, w[fp_at + 1]) : fixed_fp;
    return SFU_OK;
  }
  uint8_t sp = amd64 ? 7 : arm ? 31 : 15, fp = amd64 ? 6 : arm ? 29 : 11;
  row.cfa = model_rule(SFU_RULE_REGISTER, r->base_sp ? sp : fp, cfa_offset);
  // V2 s390x: an odd RA/FP word is a register number, shifted left once.
  auto slot = [&](int32_t v) {
    if (s390x && t.version == 2 && (v & 1)) return model_rule(SFU_RULE_REGISTER, uint8_t(v >> 1), 0);
    return model_rule(SFU_RULE_AT_CFA, 0, v);
  };
  size_t fp_word = amd64 ? 1 : 2;
  if (amd64 || w.size() < 2)
    row.ra = fixed_ra;
  else
    row.ra = w[1] == 0 ? model_rule(SFU_RULE_UNCHANGED, 0, 0) : slot(w[1]);
  row.fp = w.size() > fp_word ? slot(w[fp_word]) : fixed_fp;
  return SFU_OK;
}

// Rules compare on kind and offset, and on the register only where the kind names one.
bool model_rule_matches(const sfu_rule &want, const sfu_rule &got) {
  bool has_reg = want.kind == SFU_RULE_REGISTER || want.kind == SFU_RULE_AT_REGISTER;
  return want.kind == got.kind && want.offset == got.offset && (!has_reg || want.reg == got.reg);
}
bool model_row_matches(const sfu_row &want, const sfu_row &got) {
  return want.func_start == got.func_start && want.func_size == got.func_size &&
         want.row_start == got.row_start && want.flags == got.flags && model_rule_matches(want.cfa, got.cfa) &&
         model_rule_matches(want.ra, got.ra) && model_rule_matches(want.fp, got.fp);
}

Probe probe_for_generated(const GenTable &t) {
  Probe p;
  if (t.funcs.empty()) {
    p.lo = t.sec_addr - 8;
    p.hi = t.sec_addr + 8;
  } else {
    p.lo = t.funcs.front().start - 8;
    p.hi = t.funcs.back().start + t.funcs.back().size + 8;
    if (p.hi - p.lo > 4096) p.hi = p.lo + 4096;  // the long functions: their head is enough
  }
  p.extra = {0, ~0ull, t.sec_addr, p.hi + 0x10000};
  return p;
}

// ---------------------------------------------------------------------------------------------
// Stale stack: a lookup must give the same answer whatever garbage its stack frame starts with.
// Run a lookup after filling the stack below us with a pattern.

__attribute__((noinline)) void scribble_stack(uint8_t pattern) {
  uint8_t junk[4096];
  memset(junk, pattern, sizeof junk);
  asm volatile("" : : "r"(junk) : "memory");  // keep the stores
}

__attribute__((noinline)) sfu_error find_on_scribbled_stack(const sfu_table *t, uint64_t pc, sfu_row *row,
                                                            uint8_t pattern) {
  scribble_stack(pattern);
  return sfu_table_find(t, pc, row);
}

// ---------------------------------------------------------------------------------------------
// Tests

void run_all(Harness &h, void (*mutator)(const Original &, const Visit &)) {
  for (const Original &o : originals())
    mutator(o, [&](const std::string &label, const Bytes &b, const Where &w) { h.run(label, b, w, o.probe); });
}

#define EXPECT_CLEAN(h)                                \
  do {                                                 \
    EXPECT_EQ((h).failures(), 0u) << (h).report();     \
    std::cout << "[ stats    ] " << (h).stats() << "\n"; \
  } while (0)

TEST(Corruption, CorpusIsThereAndTheReferenceParseMatchesObjdump) {
  ASSERT_GE(originals().size(), 50u) << "corpus at " << sfu::test::corpus_dir();
  for (const Original &o : originals()) {
    std::ifstream in(sfu::test::corpus_dir() + "/" + o.name + "/objdump.txt");
    std::vector<std::pair<uint64_t, uint32_t>> listed, parsed;
    for (std::string line; std::getline(in, line);) {
      // "    func idx [0]: pc = 0x1020, size = 16 bytes[, attr = ...]"
      unsigned long long pc;
      unsigned size;
      size_t at = line.find("func idx [");
      if (at != std::string::npos && sscanf(line.c_str() + at, "func idx [%*u]: pc = 0x%llx, size = %u bytes", &pc, &size) == 2)
        listed.emplace_back(pc, size);
    }
    for (const RefFde &f : o.layout.fdes) parsed.emplace_back(f.start, f.size);
    EXPECT_FALSE(listed.empty()) << o.name;
    EXPECT_EQ(parsed, listed) << o.name;
  }
}

TEST(Corruption, UndamagedCorpusIsAccepted) {
  Harness h;
  for (const Original &o : originals()) {
    h.run(o.name, o.bytes, o.where, o.probe);
    h.run(o.name + " (text checked)", o.bytes, with_tight_text(o), o.probe);
  }
  EXPECT_CLEAN(h);
  size_t want = 0;
  for (const Original &o : originals()) want += version_enabled(o.layout.version) ? 2 : 0;
  EXPECT_EQ(h.accepted, sfu::config::kValidateOnRegister ? want : h.runs) << "every case, both ways";
}

TEST(Corruption, EveryByteReplaced) {
  Harness h;
  run_all(h, mutate_every_byte);
  EXPECT_CLEAN(h);
}

TEST(Corruption, TruncatedAtEveryLength) {
  Harness h;
  run_all(h, mutate_truncate);
  EXPECT_CLEAN(h);
  // Nothing shorter than the sub-sections it declares can be opened.
  EXPECT_EQ(h.opened, 0u);
}

TEST(Corruption, HeaderFieldsAtBoundaries) {
  Harness h;
  run_all(h, mutate_header_fields);
  EXPECT_CLEAN(h);
}

TEST(Corruption, FdeFieldsAtBoundaries) {
  Harness h;
  run_all(h, mutate_fde_fields);
  EXPECT_CLEAN(h);
}

TEST(Corruption, RandomBytesAfterAValidLookingHeader) {
  Harness h;
  for (const Original &o : originals())
    mutate_garbage(o, [&](const std::string &label, const Bytes &b, const Where &w) { h.run(label, b, w, o.probe); },
                   40);
  EXPECT_CLEAN(h);
}

// Exact refusals for damage whose first symptom is unambiguous.
TEST(Corruption, HeaderDamageGetsItsOwnName) {
  struct Case {
    const char *what;
    std::function<void(Bytes &, const Layout &)> damage;
    sfu_error want;
  };
  auto u32 = [](uint32_t at, uint32_t v) {
    return [=](Bytes &b, const Layout &l) { put_uint(b, at, v, 4, l.big); };
  };
  const Case cases[] = {
      {"magic 0", [](Bytes &b, const Layout &) { b[0] = b[1] = 0; }, SFU_E_BAD_MAGIC},
      {"version 0", [](Bytes &b, const Layout &) { b[2] = 0; }, SFU_E_BAD_VERSION},
      {"version 4", [](Bytes &b, const Layout &) { b[2] = 4; }, SFU_E_BAD_VERSION},
      {"flags 0x80", [](Bytes &b, const Layout &) { b[3] |= 0x80; }, SFU_E_UNKNOWN_FLAGS},
      {"abi 0", [](Bytes &b, const Layout &) { b[4] = 0; }, SFU_E_BAD_ABI},
      {"abi 5", [](Bytes &b, const Layout &) { b[4] = 5; }, SFU_E_BAD_ABI},
      {"abi of the other byte order", [](Bytes &b, const Layout &l) { b[4] = l.big ? SFU_ABI_AARCH64_LE : SFU_ABI_AARCH64_BE; },
       SFU_E_ABI_BYTE_ORDER},
      {"fixed RA flipped", [](Bytes &b, const Layout &l) { b[6] = l.abi == SFU_ABI_AMD64_LE ? 0 : 0xf8; },
       SFU_E_BAD_FIXED_RA_OFFSET},
      {"aux_len 255", [](Bytes &b, const Layout &) { b[7] = 255; }, SFU_E_AUXHDR_OUT_OF_BOUNDS},
      {"num_fdes max", u32(8, 0xffffffff), SFU_E_FDES_OUT_OF_BOUNDS},
      {"fde_off max", u32(20, 0xffffffff), SFU_E_FDES_OUT_OF_BOUNDS},
      {"fre_len max", u32(16, 0xffffffff), SFU_E_FRES_OUT_OF_BOUNDS},
      {"fre_off max", u32(24, 0xffffffff), SFU_E_FRES_OUT_OF_BOUNDS},
      {"fre_off = fde_off", [](Bytes &b, const Layout &l) { put_uint(b, 24, l.fde_off, 4, l.big); }, SFU_E_SUBSECTIONS_OVERLAP},
      {"num_fres + 1", [](Bytes &b, const Layout &l) { put_uint(b, 12, l.num_fres + 1, 4, l.big); }, SFU_E_FRE_COUNT_MISMATCH},
      {"num_fres - 1", [](Bytes &b, const Layout &l) { put_uint(b, 12, l.num_fres - 1, 4, l.big); }, SFU_E_FRE_COUNT_MISMATCH},
  };
  for (const Original &o : originals()) {
    if (!version_enabled(o.layout.version)) continue;
    for (const Case &c : cases) {
      Bytes b = o.bytes;
      c.damage(b, o.layout);
      ExactCopy copy(b);
      sfu_table_desc d = make_desc(copy.data(), b.size(), o.where);
      sfu_table t;
      sfu_error got = sfu_table_init(&t, &d);
      bool needs_validation = c.want == SFU_E_FRE_COUNT_MISMATCH;
      sfu_error want = needs_validation && !sfu::config::kValidateOnRegister ? SFU_OK : c.want;
      EXPECT_STREQ(sfu_error_name(got), sfu_error_name(want)) << o.name << ": " << c.what;
    }
  }
}

// Changes that keep the meaning must keep the answers: a validator that refuses too much is
// as wrong as one that refuses too little.
TEST(Corruption, MeaningPreservingChangesAreAccepted) {
  struct Variant {
    std::string what;
    Bytes bytes;
    Where where;
    size_t lead = 0;  // bytes before the section in its buffer (alignment test)
    int64_t shift = 0;  // functions move by this much
  };
  size_t compared = 0;
  for (const Original &o : originals()) {
    if (!version_enabled(o.layout.version)) continue;
    const Layout &l = o.layout;
    std::vector<Variant> variants;
    {
      Variant v{"sorted flag cleared", o.bytes, o.where};
      v.bytes[3] &= uint8_t(~SFU_F_FDE_SORTED);
      variants.push_back(v);
    }
    variants.push_back({"section moved up 0x10000", o.bytes, {o.where.sec_addr + 0x10000, 0, 0}, 0, 0x10000});
    variants.push_back({"at an odd address", o.bytes, o.where, 1});
    variants.push_back({"tight text range", o.bytes, with_tight_text(o)});
    if (l.version < 3) {
      Variant v{"frame-pointer flag toggled", o.bytes, o.where};
      v.bytes[3] ^= SFU_F_FRAME_POINTER;
      variants.push_back(v);
    }
    for (uint8_t aux : {1, 7, 200}) {
      // Insert an auxiliary header: offsets count from its end, so only PC-relative starts
      // move, and a section address lowered by the same amount puts them back.
      Variant v{"aux header of " + std::to_string(aux), o.bytes, o.where};
      v.bytes.insert(v.bytes.begin() + l.hdr_end, aux, uint8_t(0xcc));
      v.bytes[7] = uint8_t(l.aux_len + aux);
      if (l.flags & SFU_F_FDE_FUNC_START_PCREL) v.where.sec_addr -= aux;
      variants.push_back(v);
    }
    for (const Variant &v : variants) {
      Bytes buf(v.lead);
      buf.insert(buf.end(), v.bytes.begin(), v.bytes.end());
      ExactCopy copy(buf), orig_copy(o.bytes);
      sfu_table_desc d = make_desc(copy.data() + v.lead, v.bytes.size(), v.where);
      sfu_table_desc od = make_desc(orig_copy.data(), o.bytes.size(), o.where);
      sfu_table t, ot;
      ASSERT_EQ(sfu_table_init(&ot, &od), SFU_OK) << o.name;
      sfu_error e = sfu_table_init(&t, &d);
      EXPECT_STREQ(sfu_error_name(e), "ok") << o.name << ": " << v.what;
      if (e != SFU_OK) continue;
      for (uint64_t pc = o.probe.lo; pc <= o.probe.hi; pc++) {
        sfu_row want, got;
        sfu_error ew = sfu_table_find(&ot, pc, &want);
        sfu_error eg = sfu_table_find(&t, pc + v.shift, &got);
        want.func_start += v.shift;
        bool same = ew == eg && (ew != SFU_OK || sfu::test::same_row_exactly(want, got));
        // With a text range, PCs outside it have no function; the rest must not change.
        if (v.where.text_end && (pc < v.where.text_start || pc >= v.where.text_end))
          same = eg == SFU_E_NO_FUNCTION;
        compared++;
        if (!same) {
          ADD_FAILURE() << o.name << ": " << v.what << ": pc " << hex(pc) << ": " << describe(eg, got)
                        << ", undamaged: " << describe(ew, want);
          break;
        }
      }
    }
    // A text range one byte short at either end refuses the table.
    Where w = with_tight_text(o);
    for (Where narrow : {Where{w.sec_addr, w.text_start + 1, w.text_end}, Where{w.sec_addr, w.text_start, w.text_end - 1}}) {
      ExactCopy copy(o.bytes);
      sfu_table_desc d = make_desc(copy.data(), o.bytes.size(), narrow);
      sfu_table t;
      sfu_error want = sfu::config::kValidateOnRegister ? SFU_E_FUNCTION_OUTSIDE_TEXT : SFU_OK;
      EXPECT_STREQ(sfu_error_name(sfu_table_init(&t, &d)), sfu_error_name(want))
          << o.name << ": text " << hex(narrow.text_start) << "-" << hex(narrow.text_end);
    }
  }
  EXPECT_GT(compared, 10000u);
}

TEST(Corruption, GeneratedTablesDecodeAsModelled) {
  Rng rng(20260101);
  size_t tables = 0, rows_checked = 0, failures = 0;
  std::map<uint8_t, size_t> by_version, by_abi;
  std::map<std::string, size_t> seen;  // row features the generator must keep producing
  for (int i = 0; i < 600; i++) {
    GenTable t = generate(rng);
    if (!version_enabled(t.version)) continue;
    Bytes b = encode(t, rng);
    bool text = rng.one_in(3) && !t.funcs.empty();
    Where w{t.sec_addr, text ? t.funcs.front().start : 0, text ? t.funcs.back().start + t.funcs.back().size : 0};
    if (w.text_end == w.text_start) w.text_end = 0;
    ExactCopy copy(b);
    sfu_table_desc d = make_desc(copy.data(), b.size(), w);
    sfu_table tab;
    sfu_error e = sfu_table_init(&tab, &d);
    std::string label = "generated table #" + std::to_string(i) + " (v" + std::to_string(t.version) + " abi " +
                        std::to_string(t.abi) + " flags " + hex(t.flags) + ")";
    if (e != SFU_OK) {
      ADD_FAILURE() << label << ": refused: " << sfu_error_name(e);
      if (++failures > 10) break;
      continue;
    }
    tables++;
    by_version[t.version]++;
    by_abi[t.abi]++;
    Probe p = probe_for_generated(t);
    for (uint64_t pc = p.lo; pc <= p.hi; pc++) {
      sfu_row want, got;
      sfu_error ew = w.text_end && (pc < w.text_start || pc >= w.text_end) ? SFU_E_NO_FUNCTION : model_find(t, pc, want);
      sfu_error eg = sfu_table_find(&tab, pc, &got);
      rows_checked++;
      if (ew == SFU_OK) {
        seen["flex"] += (want.flags & SFU_ROW_FLEX) != 0;
        seen["pcmask"] += (want.flags & SFU_ROW_PCMASK) != 0;
        seen["outermost"] += (want.flags & SFU_ROW_OUTERMOST) != 0;
        seen["register RA"] += want.ra.kind == SFU_RULE_REGISTER;
        seen["loaded CFA"] += want.cfa.kind == SFU_RULE_AT_REGISTER;
        seen["text checked"] += w.text_end != 0;
      }
      if (ew != eg || (ew == SFU_OK && !model_row_matches(want, got))) {
        ADD_FAILURE() << label << ": pc " << hex(pc) << ": got " << describe(eg, got) << ", want "
                      << describe(ew, want);
        failures++;
        break;
      }
    }
    if (failures > 10) break;
  }
  EXPECT_GT(tables, 300u);
  EXPECT_EQ(by_version.size(), size_t(sfu::config::kVersion1 + sfu::config::kVersion2 + sfu::config::kVersion3));
  EXPECT_EQ(by_abi.size(), 4u);
  if (sfu::config::kVersion3) {
    for (const char *feature : {"flex", "pcmask", "outermost", "register RA", "loaded CFA", "text checked"})
      EXPECT_GT(seen[feature], 0u) << feature;
  }
  std::cout << "[ stats    ] " << tables << " tables, " << rows_checked << " lookups\n";
}

// s390x stores CFA offsets as (offset - 160) / 8, so a 4-byte word can mean an offset that
// does not fit sfu_rule::offset. Such a table must be refused (or decoded exactly), never
// answered with a wrapped offset.
TEST(Corruption, S390xCfaOffsetsOutsideInt32AreNotWrapped) {
  if (!sfu::config::kVersion2 || !sfu::config::kVersion3) GTEST_SKIP() << "needs V2 and V3";
  Rng rng(390);
  for (uint8_t version : {2, 3}) {
    for (bool flex : {false, true}) {
      if (flex && version == 2) continue;
      for (int32_t word : {268435435, 268435436, -268435476, -268435477, INT32_MAX, INT32_MIN}) {
        GenTable t;
        t.version = version;
        t.abi = SFU_ABI_S390X_BE;
        t.fixed_ra = 0;
        t.sec_addr = 0x10000;
        GenFunc f;
        f.start = 0x11000;
        f.size = 16;
        f.flex = flex;
        GenRow r;
        r.size_code = 2;
        r.w = flex ? std::vector<int32_t>{flex_control(true, false, 15), word} : std::vector<int32_t>{word};
        f.rows.push_back(r);
        t.funcs.push_back(f);
        Bytes b = encode(t, rng);
        int64_t meant = int64_t(word) * 8 + 160;
        bool fits = meant >= INT32_MIN && meant <= INT32_MAX;
        std::string what = "V" + std::to_string(version) + (flex ? " flex" : "") + " CFA word " +
                           std::to_string(word) + " (offset " + std::to_string(meant) + ")";
        ExactCopy copy(b);
        sfu_table_desc d = make_desc(copy.data(), b.size(), Where{t.sec_addr, 0, 0});
        // Only a validated table promises right rows, so that is what is checked.
        sfu_table tab;
        sfu_error e = sfu_table_init(&tab, &d);
        if (!sfu::config::kValidateOnRegister) continue;
        sfu_row row;
        sfu_error found = e == SFU_OK ? sfu_table_find(&tab, f.start, &row) : e;
        if (fits) {
          EXPECT_STREQ(sfu_error_name(found), "ok") << what;
          EXPECT_EQ(found == SFU_OK ? row.cfa.offset : 0, meant) << what;
        } else if (found == SFU_OK) {
          ADD_FAILURE() << what << ": accepted, and a lookup gives CFA offset " << row.cfa.offset;
        }
      }
    }
  }
}

TEST(Corruption, GeneratedTablesDamaged) {
  Rng rng(77);
  Harness h;
  for (int i = 0; i < 300; i++) {
    GenTable t = generate(rng);
    Bytes b = encode(t, rng);
    std::optional<Layout> l = parse_layout(b.data(), b.size(), t.sec_addr);
    ASSERT_TRUE(l) << "generated table #" << i;
    Probe p = probe_for(*l, t.sec_addr);
    if (p.hi - p.lo > 2048) p.hi = p.lo + 2048;
    Where w{t.sec_addr, 0, 0};
    std::string name = "generated table #" + std::to_string(i) + " seed 77";
    for (int k = 0; k < 30; k++) {
      Bytes m = b;
      // One to three random bytes, each set to a random or a boundary value.
      int changes = 1 + int(rng.below(3));
      std::string what;
      for (int c = 0; c < changes; c++) {
        size_t at = rng.below(m.size());
        static const uint8_t boundary[] = {0x00, 0xff, 0x7f, 0x80, 0x01};
        m[at] = rng.one_in(2) ? uint8_t(rng.next()) : boundary[rng.below(5)];
        what += " [" + hex(at) + "]=" + hex(m[at]);
      }
      h.run(name + what, m, w, p);
    }
    for (int k = 0; k < 3; k++) {
      Bytes m(b.begin(), b.begin() + rng.below(b.size()));
      h.run(name + " truncated to " + std::to_string(m.size()), m, w, p);
    }
  }
  EXPECT_CLEAN(h);
}

// A lookup on an opened (not validated) table whose FDEs are damaged must not depend on what
// its stack held before: the answer is a function of the section bytes.
TEST(Corruption, LookupsDoNotReadStaleStack) {
  size_t compared = 0, failures = 0;
  for (const Original &o : originals()) {
    if (!version_enabled(o.layout.version) || o.layout.fdes.size() < 2) continue;
    mutate_fde_fields(o, [&](const std::string &label, const Bytes &b, const Where &w) {
      if (failures > 10) return;
      ExactCopy copy(b);
      sfu_table_desc d = make_desc(copy.data(), b.size(), w);
      sfu_table t;
      if (sfu_table_open(&t, &d) != SFU_OK) return;
      for (const RefFde &f : o.layout.fdes) {
        for (uint64_t pc : {f.start, f.start + f.size / 2, f.end() - 1}) {
          sfu_row r0, r1;
          memset(&r0, 0, sizeof r0);
          memset(&r1, 0, sizeof r1);
          sfu_error e0 = find_on_scribbled_stack(&t, pc, &r0, 0x00);
          sfu_error e1 = find_on_scribbled_stack(&t, pc, &r1, 0xff);
          compared++;
          if (e0 != e1 || (e0 == SFU_OK && !sfu::test::same_row_exactly(r0, r1))) {
            ADD_FAILURE() << label << ": pc " << hex(pc) << ": stack of 0x00 gives " << describe(e0, r0)
                          << ", of 0xff " << describe(e1, r1);
            failures++;
            return;
          }
        }
      }
    });
  }
  EXPECT_GT(compared, 1000u);
}

// The census: every deterministic mutation through init only, counted by refusal. It fails if
// the refusals collapse onto a few names (say, everything caught by one early check).
TEST(Corruption, RefusalsAreSpreadOverManyNames) {
  Harness h;
  h.lookups = false;
  for (auto *m : {mutate_every_byte, mutate_truncate, mutate_header_fields, mutate_fde_fields}) run_all(h, m);
  EXPECT_CLEAN(h);
  std::ostringstream census;
  size_t refused = 0;
  for (const auto &[name, count] : h.refusals) {
    census << "  " << name << ": " << count << "\n";
    refused += count;
  }
  std::cout << "[ census   ] " << refused << " of " << h.runs << " refused:\n" << census.str();
  EXPECT_GE(h.refusals.size(), 10u) << census.str();
  EXPECT_GT(h.accepted, 0u);
  // Each of these is reachable from corpus damage; losing one means a check went missing.
  if (sfu::config::kValidateOnRegister && sfu::config::kVersion1 && sfu::config::kVersion2 && sfu::config::kVersion3)
    for (const char *name :
         {"empty-section", "truncated-header", "bad-magic", "bad-version", "unknown-flags", "bad-abi",
          "abi-byte-order-mismatch", "bad-fixed-ra-offset", "auxhdr-out-of-bounds", "fde-subsection-out-of-bounds",
          "fre-subsection-out-of-bounds", "subsections-overlap", "fde-attributes-out-of-bounds", "bad-fde-info",
          "bad-fre-type", "bad-fde-type", "pcmask-zero-repeat-size", "function-outside-text", "fdes-not-sorted",
          "functions-overlap", "fre-out-of-bounds", "bad-offset-size", "bad-data-word-count",
          "fre-start-not-rising", "fre-start-outside-function", "fre-count-mismatch", "fre-length-mismatch"}) {
      EXPECT_TRUE(h.refusals.count(name)) << "no mutation refused as " << name << "\n" << census.str();
    }
}

}  // namespace
