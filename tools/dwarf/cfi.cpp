// DWARF CFI reader: walks the records of an .eh_frame or .debug_frame section, decodes each CIE
// once (cached by offset), and runs every FDE's instructions after its CIE's initial ones into
// rows. Every read goes through a Reader bounded by the record, so hostile input gives a named
// error, never a read outside the section.
#include "tools/dwarf/cfi.h"

#include <algorithm>
#include <cstdint>
#include <unordered_map>

#include "tools/dwarf/reader.h"
#include "tools/elf/elf_file.h"

namespace sfu::tools::cfi {
namespace {

// DW_CFA_* (DWARF 5, 6.4.2), with the GNU and AArch64 extensions that compilers emit.
enum : uint8_t {
  kCfaNop = 0x00,
  kCfaSetLoc = 0x01,
  kCfaAdvanceLoc1 = 0x02,
  kCfaAdvanceLoc2 = 0x03,
  kCfaAdvanceLoc4 = 0x04,
  kCfaOffsetExtended = 0x05,
  kCfaRestoreExtended = 0x06,
  kCfaUndefined = 0x07,
  kCfaSameValue = 0x08,
  kCfaRegister = 0x09,
  kCfaRememberState = 0x0a,
  kCfaRestoreState = 0x0b,
  kCfaDefCfa = 0x0c,
  kCfaDefCfaRegister = 0x0d,
  kCfaDefCfaOffset = 0x0e,
  kCfaDefCfaExpression = 0x0f,
  kCfaExpression = 0x10,
  kCfaOffsetExtendedSf = 0x11,
  kCfaDefCfaSf = 0x12,
  kCfaDefCfaOffsetSf = 0x13,
  kCfaValOffset = 0x14,
  kCfaValOffsetSf = 0x15,
  kCfaValExpression = 0x16,
  kCfaAarch64NegateRaState = 0x2d,  // the same number is DW_CFA_GNU_window_save on SPARC
  kCfaGnuArgsSize = 0x2e,
  kCfaGnuNegativeOffsetExtended = 0x2f,
  // Primary opcodes: the top two bits, with the operand in the low six.
  kCfaAdvanceLoc = 0x40,
  kCfaOffset = 0x80,
  kCfaRestore = 0xc0,
};

// The CFA register and offset while the CFA is an expression. DWARF says def_cfa_register and
// def_cfa_offset need a register-based CFA; libgcc (and gdb) keep register and offset apart
// from the expression instead: def_cfa_offset only updates the offset, def_cfa_register goes
// back to register + that offset. Hand-written assembly relies on it (libgcrypt switches from
// an expression to "def_cfa_register rsp" and means the offset from before).
struct KeptCfa {
  uint32_t reg = 0;
  int64_t offset = 0;
};

// The rules in force at one point of a CFA program.
struct State {
  CfaRule cfa;
  KeptCfa kept;
  RuleMap regs;
  bool ra_signed = false;
  uint64_t args_size = 0;
};

// What DW_CFA_remember_state saves. libgcc keeps the CFA and the AArch64 RA state with the
// register rules (they live in the same structure), but not the args size.
struct Saved {
  CfaRule cfa;
  KeptCfa kept;
  RuleMap regs;
  bool ra_signed;
};

struct Cie {
  uint8_t address_size = 8;
  uint64_t code_align = 1;
  int64_t data_align = 1;
  uint32_t ra_reg = 0;
  bool has_z = false;             // FDEs then carry augmentation data too
  uint8_t fde_enc = kPeAbsptr;    // 'R'
  uint8_t lsda_enc = kPeOmit;     // 'L'
  bool signal_frame = false;      // 'S'
  bool pauth_key_b = false;       // 'B'
  State initial;                  // after the initial instructions: what restore goes back to
  std::vector<RuleEvent> events;  // the initial instructions' effects (Section::keep_events)
};

// A record's header.
struct Record {
  uint64_t offset = 0;  // of the length field
  uint64_t id_off = 0;  // of the CIE id or CIE pointer
  uint64_t end = 0;     // one past the record's last byte
  bool dwarf64 = false;
  uint64_t id = 0;
  bool terminator = false;  // a zero length word

  uint64_t body() const { return id_off + (dwarf64 ? 8 : 4); }
};

// What the reader holds, in bytes, as the budget counts it (cfi.h): a rule in a map is a tree
// node (the pair, four words of links and colour, an allocator header), an expression its bytes
// and a header; a shared rule set its map, control block and place in the table of sets.
uint64_t expr_bytes(const std::vector<uint8_t> &e) { return e.empty() ? 0 : e.size() + kHeapHeader; }

uint64_t rules_bytes(const RuleMap &m) {
  uint64_t n = 0;
  for (const auto &[reg, rule] : m) n += kRuleBytes + expr_bytes(rule.expr);
  return n;
}

// What copying, hashing or comparing a rule set costs in work (cfi.h): a unit per rule and per 8
// bytes of expression.
uint64_t rules_work(const RuleMap &m) {
  uint64_t n = m.size();
  for (const auto &[reg, rule] : m) n += rule.expr.size() / 8;
  return n;
}

// A hash of a rule set, for the table that keeps each distinct set once.
uint64_t hash_rules(const RuleMap &m) {
  uint64_t h = 0x9e3779b97f4a7c15;
  auto mix = [&h](uint64_t v) {
    h ^= v + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccd;
  };
  for (const auto &[reg, rule] : m) {
    mix(reg);
    mix(rule.kind);
    mix(uint64_t(rule.value));
    for (uint8_t b : rule.expr) mix(b);
  }
  return h;
}

// Augmentation strings come from the file: keep details printable.
std::string printable(const std::string &s) {
  std::string out;
  for (char ch : s) out += (ch >= 0x20 && ch < 0x7f) ? ch : '?';
  return out;
}

class Parser {
 public:
  Parser(const Section &s, Error &err) : s_(s), err_(err) {}

  bool run(std::vector<Fde> &out) {
    Reader top = reader(0, 0, 8);
    if (s_.address_size != 4 && s_.address_size != 8)
      return top.fail(ErrorCode::kBadAddressSize, 0,
                      "section address size " + std::to_string(s_.address_size));
    if (s_.bytes == nullptr && s_.size != 0)
      return top.fail(ErrorCode::kTruncated, 0, "section has a size but no bytes");
    scan_starts();
    for (uint64_t off = 0; off < s_.size;) {
      Record rec;
      if (!read_header(off, rec, err_)) return false;
      off = rec.end;
      if (rec.terminator && s_.stop_at_terminator && s_.eh_frame) break;
      if (rec.terminator) continue;
      if (!within_budget(top, rec.offset)) return false;
      const Cie *cie;
      if (is_cie(rec)) {
        if (!cie_at(rec, cie)) return false;
      } else if (!find_cie(rec, cie) || !read_fde(rec, *cie, out)) {
        return false;
      }
    }
    return true;
  }

 private:
  Reader reader(uint64_t begin, uint64_t end, uint8_t address_size) const {
    return Reader(s_.bytes, begin, end, s_.big_endian, address_size, err_);
  }

  // Record boundaries, so that a CIE pointer can be checked to land on one. Stops quietly at
  // the first bad header: the main pass reports it when it gets there.
  void scan_starts() {
    Error scratch;
    for (uint64_t off = 0; off < s_.size;) {
      Record rec;
      if (!read_header(off, rec, scratch)) break;
      if (!rec.terminator) starts_.push_back(off);
      off = rec.end;
    }
  }

  // The length (32-bit, or 0xffffffff then 64-bit) and the id that follows it. A zero length
  // is .eh_frame's terminator; it is skipped like padding, as readelf and gdb do.
  bool read_header(uint64_t off, Record &rec, Error &err) const {
    Reader r(s_.bytes, off, s_.size, s_.big_endian, 8, err);
    rec.offset = off;
    uint64_t len;
    if (!r.fixed(4, len, "record length")) return false;
    if (len == 0) {
      rec.terminator = true;
      rec.end = r.pos();
      return true;
    }
    if (len == 0xffffffff) {
      rec.dwarf64 = true;
      if (!r.fixed(8, len, "64-bit record length")) return false;
    } else if (len >= 0xfffffff0) {
      return r.fail(ErrorCode::kBadLength, off, "reserved length " + Reader::hex(len));
    }
    if (len > r.left())
      return r.fail(ErrorCode::kTruncated, off,
                    "record of " + std::to_string(len) + " bytes, " + std::to_string(r.left()) +
                        " left in the section");
    unsigned id_size = rec.dwarf64 ? 8 : 4;
    if (len < id_size)
      return r.fail(ErrorCode::kBadLength, off,
                    "record of " + std::to_string(len) + " bytes has no room for its id");
    rec.id_off = r.pos();
    rec.end = r.pos() + len;
    return r.fixed(id_size, rec.id, "CIE id");
  }

  bool is_cie(const Record &rec) const {
    if (s_.eh_frame) return rec.id == 0;
    return rec.id == (rec.dwarf64 ? ~uint64_t(0) : uint64_t(0xffffffff));
  }

  // The CIE an FDE points at: .eh_frame counts back from the pointer field, .debug_frame gives
  // a section offset. Either must land on the start of a record that is a CIE.
  bool find_cie(const Record &fde, const Cie *&cie) {
    Reader r = reader(fde.id_off, fde.end, 8);
    uint64_t target = fde.id;
    if (s_.eh_frame) {
      if (fde.id > fde.id_off)
        return r.fail(ErrorCode::kBadCiePointer, fde.id_off,
                      "CIE pointer " + Reader::hex(fde.id) + " reaches before the section");
      target = fde.id_off - fde.id;
    }
    if (!std::binary_search(starts_.begin(), starts_.end(), target))
      return r.fail(ErrorCode::kBadCiePointer, fde.id_off,
                    "CIE pointer leads to offset " + Reader::hex(target) + ", no record starts there");
    Record rec;
    if (!read_header(target, rec, err_)) return false;
    if (!is_cie(rec))
      return r.fail(ErrorCode::kCieIsFde, fde.id_off,
                    "CIE pointer leads to the FDE at " + Reader::hex(target));
    return cie_at(rec, cie);
  }

  bool cie_at(const Record &rec, const Cie *&cie) {
    auto it = cies_.find(rec.offset);
    if (it == cies_.end()) {
      Cie c;
      if (!read_cie(rec, c)) return false;
      static_assert(sizeof(Cie) <= kCieBytes, "a CIE is counted as kCieBytes");
      memory_ += kCieBytes + rules_bytes(c.initial.regs) + expr_bytes(c.initial.cfa.expr);
      it = cies_.emplace(rec.offset, std::move(c)).first;
    }
    cie = &it->second;
    return true;
  }

  bool read_cie(const Record &rec, Cie &c) {
    Reader r = reader(rec.body(), rec.end, s_.address_size);
    uint64_t at = r.pos();
    uint8_t version;
    if (!r.u8(version, "CIE version")) return false;
    // .eh_frame has versions 1 and 3 only (LSB); libgcc would misread version 4's extra fields.
    bool known = version == 1 || version == 3 || (version == 4 && !s_.eh_frame);
    if (!known)
      return r.fail(ErrorCode::kBadCieVersion, at, "version " + std::to_string(version));

    uint64_t aug_off = r.pos();
    const uint8_t *first = s_.bytes + aug_off, *last = s_.bytes + rec.end;
    const uint8_t *nul = std::find(first, last, uint8_t(0));
    if (nul == last)
      return r.fail(ErrorCode::kTruncated, aug_off, "augmentation string has no terminating NUL");
    std::string aug(first, nul);
    r.seek(aug_off + aug.size() + 1);

    c.address_size = s_.address_size;
    if (version == 4) {
      uint8_t asize, ssize;
      at = r.pos();
      if (!r.u8(asize, "CIE address size")) return false;
      if (asize != 4 && asize != 8)
        return r.fail(ErrorCode::kBadAddressSize, at, "address size " + std::to_string(asize));
      at = r.pos();
      if (!r.u8(ssize, "CIE segment selector size")) return false;
      if (ssize != 0)
        return r.fail(ErrorCode::kBadAddressSize, at,
                      "segment selector size " + std::to_string(ssize));
      c.address_size = asize;
      r.set_address_size(asize);
    }
    if (!r.uleb(c.code_align, "code alignment factor")) return false;
    if (!r.sleb(c.data_align, "data alignment factor")) return false;
    at = r.pos();
    uint64_t ra;
    if (version == 1) {
      uint8_t ra8;
      if (!r.u8(ra8, "return address register")) return false;
      ra = ra8;
    } else if (!r.uleb(ra, "return address register")) {
      return false;
    }
    if (ra >= kRegisterLimit)
      return r.fail(ErrorCode::kBadRegister, at, "return address register " + std::to_string(ra));
    c.ra_reg = uint32_t(ra);

    if (!aug.empty()) {
      if (aug[0] != 'z')
        return r.fail(ErrorCode::kBadAugmentation, aug_off,
                      "augmentation \"" + printable(aug) + "\" without 'z'");
      c.has_z = true;
      at = r.pos();
      uint64_t len;
      if (!r.uleb(len, "augmentation data length")) return false;
      if (len > r.left())
        return r.fail(ErrorCode::kTruncated, at,
                      "augmentation data of " + std::to_string(len) + " bytes, " +
                          std::to_string(r.left()) + " left");
      uint64_t data_end = r.pos() + len;
      Reader a = reader(r.pos(), data_end, c.address_size);
      if (!read_augmentation(aug, a, c)) return false;
      r.seek(data_end);
    }
    return execute(c, r.pos(), rec.end, c.initial, nullptr, s_.keep_events ? &c.events : nullptr);
  }

  // The letters after 'z' and their data. An unknown letter ends the walk: its data cannot be
  // told from what follows, and the 'z' length already says where the data ends.
  bool read_augmentation(const std::string &aug, Reader &a, Cie &c) {
    PointerBase base{s_.addr, false, 0};
    for (size_t i = 1; i < aug.size(); i++) {
      uint64_t at = a.pos();
      uint8_t enc;
      switch (aug[i]) {
        case 'R':
          if (!a.u8(enc, "FDE pointer encoding")) return false;
          // FDE addresses must be read, so no omit and nothing to dereference.
          if (!valid_pointer_encoding(enc, false, false))
            return a.fail(ErrorCode::kBadPointerEncoding, at, "FDE encoding " + Reader::hex(enc));
          c.fde_enc = enc;
          break;
        case 'P':
          if (!a.u8(enc, "personality encoding")) return false;
          if (!valid_pointer_encoding(enc, true, true))
            return a.fail(ErrorCode::kBadPointerEncoding, at,
                          "personality encoding " + Reader::hex(enc));
          // Skipped, never dereferenced: the personality routine does not change the rules.
          if (enc != kPeOmit && !a.skip_pointer(enc, base, "personality pointer")) return false;
          break;
        case 'L':
          if (!a.u8(enc, "LSDA encoding")) return false;
          if (!valid_pointer_encoding(enc, true, true))
            return a.fail(ErrorCode::kBadPointerEncoding, at, "LSDA encoding " + Reader::hex(enc));
          c.lsda_enc = enc;
          break;
        case 'S':
          c.signal_frame = true;
          break;
        case 'B':
          c.pauth_key_b = true;
          break;
        default:
          return true;
      }
    }
    return true;
  }

  bool read_fde(const Record &rec, const Cie &c, std::vector<Fde> &out) {
    Reader r = reader(rec.body(), rec.end, c.address_size);
    uint64_t start, range;
    if (s_.eh_frame) {
      if (!r.pointer(c.fde_enc, PointerBase{s_.addr, false, 0}, start, "FDE start")) return false;
      // The length uses the value format only: it is a size, not an address.
      if (!r.value(c.fde_enc & 0x0f, range, "FDE length")) return false;
      range &= r.mask();
    } else {
      // .debug_frame: target addresses of the address size (DWARF 5, 6.4.1).
      if (!r.fixed(c.address_size, start, "FDE start")) return false;
      if (!r.fixed(c.address_size, range, "FDE length")) return false;
      // lld's tombstone for a discarded function's FDE: all ones. Nothing to read there.
      if (start == r.mask()) return true;
    }
    if (range > r.mask() - start)
      return r.fail(ErrorCode::kFdeRangeOverflow, rec.offset,
                    "start " + Reader::hex(start) + " + length " + Reader::hex(range) + " wraps");
    if (c.has_z) {
      uint64_t at = r.pos(), len;
      if (!r.uleb(len, "FDE augmentation data length")) return false;
      if (len > r.left())
        return r.fail(ErrorCode::kTruncated, at,
                      "FDE augmentation data of " + std::to_string(len) + " bytes, " +
                          std::to_string(r.left()) + " left");
      Reader a = reader(r.pos(), r.pos() + len, c.address_size);
      if (c.lsda_enc != kPeOmit &&
          !a.skip_pointer(c.lsda_enc, PointerBase{s_.addr, false, 0}, "LSDA pointer"))
        return false;
      r.seek(r.pos() + len);
    }
    Fde f;
    f.offset = rec.offset;
    f.start = start;
    f.end = start + range;
    f.ra_reg = c.ra_reg;
    f.signal_frame = c.signal_frame;
    f.pauth_key_b = c.pauth_key_b;
    // Each FDE starts from a copy of its CIE's rules (and events): work, however small the FDE,
    // charged before the copy is made.
    work_ += 1 + rules_work(c.initial.regs) + c.initial.cfa.expr.size() / 8;
    memory_ += sizeof(Fde);
    if (s_.keep_events) {
      work_ += c.events.size();
      for (const RuleEvent &e : c.events)
        memory_ += sizeof(RuleEvent) + expr_bytes(e.cfa.expr) + expr_bytes(e.rule.expr);
    }
    if (!within_budget(r, rec.offset)) return false;
    State st = c.initial;
    if (s_.keep_events) {
      f.events = c.events;
      for (RuleEvent &e : f.events) e.address = start;
    }
    rows_charged_ = 0;
    if (!execute(c, r.pos(), rec.end, st, &f, s_.keep_events ? &f.events : nullptr)) return false;
    f.rows.shrink_to_fit();  // held as long as the FDE: no room for rows that never come
    memory_ = memory_ - rows_charged_ + sizeof(Row) * f.rows.size();
    rows_charged_ = 0;
    out.push_back(std::move(f));
    return true;
  }

  // The budgets, checked between instructions: what the rows, rule sets, FDEs, CIEs and events
  // read so far hold (memory_, bytes), and the rules copied, hashed and compared so far (work_).
  // Both grow with the input: each is refused by name past a base plus a multiple of the
  // section's size, long before real CFI comes near it (libLLVM's 5 MB .eh_frame holds about 16
  // bytes per byte, and does about 1 unit of work per byte; docs/host-tools.md). A check comes
  // between instructions, after each row and before a rows' vector grows, so neither goes past
  // its limit by more than one rule set (at most kRegisterLimit rules).
  bool within_budget(Reader &r, uint64_t at) {
    memory_peak_ = std::max(memory_peak_, memory_);
    if (memory_ > memory_limit_)
      return r.fail(ErrorCode::kTooManyRules, at,
                    "the rows and rules read so far would hold " + std::to_string(memory_) +
                        " bytes, past the budget of " + std::to_string(memory_limit_) +
                        (s_.memory_budget ? std::string(" (given)")
                                          : " (" + std::to_string(kMemoryBase >> 20) + " MiB + " +
                                                std::to_string(per_byte()) + " per section byte)"));
    if (work_ > work_limit_)
      return r.fail(ErrorCode::kTooManyRules, at,
                    "the rules copied and compared so far pass the budget of " + std::to_string(work_limit_) +
                        (s_.work_budget ? std::string(" (given)")
                                        : " (2^" + std::to_string(kWorkBaseLog2) + " + " +
                                              std::to_string(kWorkPerByte) + " per section byte)"));
    return true;
  }

  // The shared copy of `m`: the one already kept when a row had these rules before.
  RuleSet intern(const RuleMap &m) {
    if (m.empty()) return RuleSet();
    uint64_t cost = rules_work(m);
    work_ += cost;  // the hash
    std::vector<std::shared_ptr<const RuleMap>> &same_hash = sets_[hash_rules(m)];
    for (const auto &kept : same_hash) {
      work_ += cost;
      if (*kept == m) return RuleSet(kept);
    }
    work_ += cost;
    memory_ += kSetBytes + rules_bytes(m);
    same_hash.push_back(std::make_shared<const RuleMap>(m));
    return RuleSet(same_hash.back());
  }

  // Appends [from, to) under `st`, extending the last row when the rules did not change. A row
  // holds its own fields and shares its register rules with every row that has the same
  // (intern), so memory grows with the rows, not with the rows times the rules.
  bool emit(Fde &f, uint64_t from, uint64_t to, const State &st, Reader &r, uint64_t at) {
    if (to <= from) return true;
    bool same_regs = false;
    if (!f.rows.empty()) {
      const Row &last = f.rows.back();
      work_ += 1 + rules_work(st.regs) + st.cfa.expr.size() / 8;
      same_regs = last.regs == st.regs;
      if (same_regs && last.end == from && last.cfa == st.cfa && last.ra_signed == st.ra_signed &&
          last.args_size == st.args_size) {
        f.rows.back().end = to;
        return true;
      }
    }
    Row row;
    row.start = from;
    row.end = to;
    row.cfa = st.cfa;
    row.regs = same_regs ? f.rows.back().regs : intern(st.regs);
    row.ra_signed = st.ra_signed;
    row.args_size = st.args_size;
    memory_ += expr_bytes(row.cfa.expr);
    // The rows' vector doubles: while it grows, the old buffer and the new one are both held.
    // Each growth is charged whole until the FDE ends (read_fde then charges what it keeps).
    if (f.rows.size() == f.rows.capacity()) {
      uint64_t grown = sizeof(Row) * std::max<uint64_t>(1, 2 * f.rows.capacity());
      memory_ += grown;
      rows_charged_ += grown;
      if (!within_budget(r, at)) return false;  // before the new buffer is allocated
    }
    f.rows.push_back(std::move(row));
    return within_budget(r, at);
  }

  // Runs the instructions in [begin, end) on `st`: a CIE's initial instructions when `fde` is
  // null (no location, nothing to restore to), else an FDE's, emitting its rows; with `events`,
  // also each instruction's effect on the rules.
  bool execute(const Cie &c, uint64_t begin, uint64_t end, State &st, Fde *fde, std::vector<RuleEvent> *events) {
    Reader r = reader(begin, end, c.address_size);
    std::vector<Saved> stack;
    uint64_t loc = fde ? fde->start : 0;
    const State *initial = fde ? &c.initial : nullptr;

    auto reg = [&](uint32_t &out, const char *what) {
      uint64_t at = r.pos(), v;
      if (!r.uleb(v, what)) return false;
      if (v >= kRegisterLimit)
        return r.fail(ErrorCode::kBadRegister, at, std::string(what) + " " + std::to_string(v));
      out = uint32_t(v);
      return true;
    };
    // Offsets: unsigned or signed operand, times the data alignment factor or not.
    auto offset = [&](bool is_signed, bool factored, int64_t &out, const char *what) {
      uint64_t at = r.pos();
      int64_t v;
      if (is_signed) {
        if (!r.sleb(v, what)) return false;
      } else {
        uint64_t u;
        if (!r.uleb(u, what)) return false;
        if (u > uint64_t(INT64_MAX))
          return r.fail(ErrorCode::kOffsetOverflow, at, std::string(what) + " " + Reader::hex(u));
        v = int64_t(u);
      }
      if (!factored) {
        out = v;
      } else if (__builtin_mul_overflow(v, c.data_align, &out)) {
        return r.fail(ErrorCode::kOffsetOverflow, at,
                      std::string(what) + " " + std::to_string(v) + " times " +
                          std::to_string(c.data_align));
      }
      return true;
    };
    auto block = [&](std::vector<uint8_t> &out, const char *what) {
      uint64_t at = r.pos(), len;
      if (!r.uleb(len, what)) return false;
      if (len > r.left())
        return r.fail(ErrorCode::kExpressionOutOfBounds, at,
                      std::string(what) + " of " + std::to_string(len) + " bytes, " +
                          std::to_string(r.left()) + " left");
      out.assign(s_.bytes + r.pos(), s_.bytes + r.pos() + len);
      r.seek(r.pos() + len);
      return true;
    };
    auto advance_to = [&](uint64_t to, uint64_t at) {
      if (!fde)
        return r.fail(ErrorCode::kAdvanceOutOfRange, at, "location change in a CIE");
      if (to < loc)
        return r.fail(ErrorCode::kAdvanceOutOfRange, at,
                      "back from " + Reader::hex(loc) + " to " + Reader::hex(to));
      if (to > fde->end)
        return r.fail(ErrorCode::kAdvanceOutOfRange, at,
                      "to " + Reader::hex(to) + ", past the FDE end " + Reader::hex(fde->end));
      if (!emit(*fde, loc, to, st, r, at)) return false;
      loc = to;
      return true;
    };
    auto advance = [&](uint64_t delta, uint64_t at) {
      uint64_t bytes, to;
      if (__builtin_mul_overflow(delta, c.code_align, &bytes) ||
          __builtin_add_overflow(loc, bytes, &to))
        return r.fail(ErrorCode::kAdvanceOutOfRange, at,
                      "advance of " + Reader::hex(delta) + " units wraps");
      return advance_to(to, at);
    };
    auto restore = [&](uint32_t n) {
      auto it = initial ? initial->regs.find(n) : st.regs.end();
      if (initial && it != initial->regs.end())
        st.regs[n] = it->second;
      else
        st.regs.erase(n);
    };

    // Records what the instruction at `at` did, charged to the budget as rows are.
    auto note = [&](RuleEvent::Kind kind, uint32_t n, uint64_t at) {
      if (!events) return true;
      RuleEvent e;
      e.kind = kind;
      e.address = loc;
      e.reg = n;
      if (kind == RuleEvent::kCfa) {
        e.cfa = st.cfa;
      } else if (kind == RuleEvent::kRegister) {
        auto it = st.regs.find(n);
        e.has_rule = it != st.regs.end();
        if (e.has_rule) e.rule = it->second;
      }
      work_ += 1;
      memory_ += sizeof(RuleEvent) + expr_bytes(e.cfa.expr) + expr_bytes(e.rule.expr);
      events->push_back(std::move(e));
      return within_budget(r, at);
    };

    while (!r.at_end()) {
      uint64_t at = r.pos();
      if (!within_budget(r, at)) return false;
      uint8_t op;
      if (!r.u8(op, "opcode")) return false;
      uint32_t n, n2;
      int64_t off;
      uint64_t u;
      RegRule rule;
      switch (op & 0xc0) {
        case kCfaAdvanceLoc:
          if (!advance(op & 0x3f, at)) return false;
          continue;
        case kCfaOffset:
          if (!offset(false, true, off, "DW_CFA_offset offset")) return false;
          st.regs[op & 0x3f] = RegRule{RegRule::kOffset, off, {}};
          if (!note(RuleEvent::kRegister, op & 0x3f, at)) return false;
          continue;
        case kCfaRestore:
          restore(op & 0x3f);
          if (!note(RuleEvent::kRegister, op & 0x3f, at)) return false;
          continue;
        default:
          break;
      }
      switch (op) {
        case kCfaNop:
          break;
        case kCfaSetLoc:
          if (s_.eh_frame) {
            PointerBase base{s_.addr, fde != nullptr, fde ? fde->start : 0};
            if (!r.pointer(c.fde_enc, base, u, "DW_CFA_set_loc address")) return false;
          } else if (!r.fixed(c.address_size, u, "DW_CFA_set_loc address")) {
            return false;
          }
          if (!advance_to(u, at)) return false;
          break;
        case kCfaAdvanceLoc1:
        case kCfaAdvanceLoc2:
        case kCfaAdvanceLoc4: {
          unsigned size = op == kCfaAdvanceLoc1 ? 1 : op == kCfaAdvanceLoc2 ? 2 : 4;
          if (!r.fixed(size, u, "advance delta") || !advance(u, at)) return false;
          break;
        }
        case kCfaOffsetExtended:
        case kCfaOffsetExtendedSf:
        case kCfaValOffset:
        case kCfaValOffsetSf:
        case kCfaGnuNegativeOffsetExtended: {
          bool is_signed = op == kCfaOffsetExtendedSf || op == kCfaValOffsetSf;
          if (!reg(n, "register") || !offset(is_signed, true, off, "offset")) return false;
          if (op == kCfaGnuNegativeOffsetExtended) {
            if (off == INT64_MIN)
              return r.fail(ErrorCode::kOffsetOverflow, at, "negated offset overflows");
            off = -off;
          }
          bool val = op == kCfaValOffset || op == kCfaValOffsetSf;
          st.regs[n] = RegRule{val ? RegRule::kValOffset : RegRule::kOffset, off, {}};
          if (!note(RuleEvent::kRegister, n, at)) return false;
          break;
        }
        case kCfaRestoreExtended:
          if (!reg(n, "register")) return false;
          restore(n);
          if (!note(RuleEvent::kRegister, n, at)) return false;
          break;
        case kCfaUndefined:
        case kCfaSameValue:
          if (!reg(n, "register")) return false;
          st.regs[n] = RegRule{op == kCfaUndefined ? RegRule::kUndefined : RegRule::kSameValue, 0, {}};
          if (!note(RuleEvent::kRegister, n, at)) return false;
          break;
        case kCfaRegister:
          if (!reg(n, "register") || !reg(n2, "source register")) return false;
          st.regs[n] = RegRule{RegRule::kRegister, n2, {}};
          if (!note(RuleEvent::kRegister, n, at)) return false;
          break;
        case kCfaRememberState:
          if (stack.size() >= kMaxStateDepth)
            return r.fail(ErrorCode::kRememberStateTooDeep, at,
                          "more than " + std::to_string(kMaxStateDepth) + " remembered states");
          // A full copy: work (at most kMaxStateDepth of them are held at once).
          work_ += 1 + rules_work(st.regs) + st.cfa.expr.size() / 8;
          stack.push_back(Saved{st.cfa, st.kept, st.regs, st.ra_signed});
          if (!note(RuleEvent::kRemember, 0, at)) return false;
          break;
        case kCfaRestoreState:
          if (stack.empty())
            return r.fail(ErrorCode::kRestoreStateEmpty, at, "no state remembered");
          st.cfa = std::move(stack.back().cfa);
          st.kept = stack.back().kept;
          st.regs = std::move(stack.back().regs);
          st.ra_signed = stack.back().ra_signed;
          stack.pop_back();
          if (!note(RuleEvent::kRestoreState, 0, at)) return false;
          break;
        case kCfaDefCfa:
        case kCfaDefCfaSf: {
          bool sf = op == kCfaDefCfaSf;
          if (!reg(n, "CFA register") || !offset(sf, sf, off, "CFA offset")) return false;
          st.cfa = CfaRule{CfaRule::kRegOffset, n, off, {}};
          if (!note(RuleEvent::kCfa, 0, at)) return false;
          break;
        }
        case kCfaDefCfaRegister:
          if (!reg(n, "CFA register")) return false;
          if (st.cfa.kind == CfaRule::kRegOffset)
            st.cfa.reg = n;
          else
            st.cfa = CfaRule{CfaRule::kRegOffset, n, st.kept.offset, {}};  // KeptCfa
          if (!note(RuleEvent::kCfa, 0, at)) return false;
          break;
        case kCfaDefCfaOffset:
        case kCfaDefCfaOffsetSf: {
          bool sf = op == kCfaDefCfaOffsetSf;
          if (!offset(sf, sf, off, "CFA offset")) return false;
          if (st.cfa.kind == CfaRule::kRegOffset)
            st.cfa.offset = off;
          else
            st.kept.offset = off;  // the expression stays in force (KeptCfa)
          if (!note(RuleEvent::kCfa, 0, at)) return false;
          break;
        }
        case kCfaDefCfaExpression: {
          CfaRule cfa;
          cfa.kind = CfaRule::kExpression;
          if (!block(cfa.expr, "CFA expression")) return false;
          if (st.cfa.kind == CfaRule::kRegOffset) st.kept = KeptCfa{st.cfa.reg, st.cfa.offset};
          st.cfa = std::move(cfa);
          if (!note(RuleEvent::kCfa, 0, at)) return false;
          break;
        }
        case kCfaExpression:
        case kCfaValExpression:
          if (!reg(n, "register") || !block(rule.expr, "expression")) return false;
          rule.kind = op == kCfaExpression ? RegRule::kExpression : RegRule::kValExpression;
          st.regs[n] = std::move(rule);
          if (!note(RuleEvent::kRegister, n, at)) return false;
          break;
        case kCfaGnuArgsSize:
          if (!r.uleb(u, "args size")) return false;
          st.args_size = u;
          break;
        case kCfaAarch64NegateRaState:
          if (s_.machine == kEmAarch64) {
            st.ra_signed = !st.ra_signed;
            break;
          }
          return r.fail(ErrorCode::kUnknownCfaOpcode, at,
                        "opcode 0x2d (DW_CFA_GNU_window_save) on machine " +
                            std::to_string(s_.machine));
        default:
          return r.fail(ErrorCode::kUnknownCfaOpcode, at, "opcode " + Reader::hex(op));
      }
    }
    return (!fde || emit(*fde, loc, fde->end, st, r, fde->offset)) && within_budget(r, end);
  }

  public:
  Usage usage() const { return Usage{memory_peak_, work_, memory_limit_, work_limit_}; }

  private:
  const Section &s_;
  Error &err_;
  uint64_t memory_ = 0, work_ = 0;
  uint64_t rows_charged_ = 0;  // the growths of the current FDE's rows, charged in memory_
  uint64_t memory_peak_ = 0;
  uint64_t per_byte() const { return kMemoryPerByte + (s_.keep_events ? kEventMemoryPerByte : 0); }
  uint64_t memory_limit_ = s_.memory_budget ? s_.memory_budget : kMemoryBase + per_byte() * s_.size;
  uint64_t work_limit_ = s_.work_budget ? s_.work_budget : (uint64_t(1) << kWorkBaseLog2) + kWorkPerByte * s_.size;
  std::unordered_map<uint64_t, std::vector<std::shared_ptr<const RuleMap>>> sets_;  // by hash_rules
  std::vector<uint64_t> starts_;  // record offsets, increasing
  std::map<uint64_t, Cie> cies_;  // by offset
};

}  // namespace

bool read_cfi(const Section &section, std::vector<Fde> &out, Error &err, Usage *usage) {
  out.clear();
  err = Error{};
  Parser p(section, err);
  bool ok = p.run(out);
  if (usage) *usage = p.usage();
  return ok;
}

bool simple_expression(const std::vector<uint8_t> &expr, uint32_t &reg, int64_t &offset, bool &deref) {
  constexpr uint8_t kOpBreg0 = 0x70, kOpBreg31 = 0x8f, kOpBregx = 0x92, kOpDeref = 0x06;
  Error ignored;
  Reader r(expr.data(), 0, expr.size(), false, 8, ignored);
  uint8_t op;
  uint64_t n;
  if (!r.u8(op, "op")) return false;
  if (op >= kOpBreg0 && op <= kOpBreg31) {
    n = op - kOpBreg0;
  } else if (op != kOpBregx || !r.uleb(n, "register") || n >= kRegisterLimit) {
    return false;
  }
  int64_t off;
  if (!r.sleb(off, "offset")) return false;
  bool d = false;
  if (!r.at_end()) {
    uint8_t next;
    if (!r.u8(next, "op") || next != kOpDeref || !r.at_end()) return false;
    d = true;
  }
  reg = uint32_t(n);
  offset = off;
  deref = d;
  return true;
}

}  // namespace sfu::tools::cfi
