// Line number programs (.debug_line, DWARF 2-5). See line_table.h.
#include "tools/dwarf/line_table.h"

#include <algorithm>

#include "tools/dwarf/reader.h"

namespace sfu::tools::dwarf {
namespace {

using cfi::Reader;

bool is_absolute(const std::string &path) { return !path.empty() && path[0] == '/'; }

// One field of a DWARF 5 directory or file entry, in `form`: a string or a number (an MD5 or
// a block is stepped over).
struct EntryField {
  std::string text;
  uint64_t number = 0;
};

bool read_entry_field(const DebugInfoReader &info, const Unit &unit, Reader &r, uint64_t form, EntryField &out,
                      DebugError &err) {
  uint64_t at = r.pos(), n;
  const char *s = nullptr;
  // String lookups report the field's offset; the field is in .debug_line, not .debug_info.
  auto from_strings = [&](bool ok) {
    if (!ok) {
      if (err.section == info.sections().info.name) err.section = info.sections().line.name;
      return false;
    }
    out.text = s;
    return true;
  };
  switch (form) {
    case kFormString:
      if (!r.cstring(s, "file name")) return false;
      out.text = s;
      return true;
    case kFormLineStrp:
      return r.offset(unit.offset_size, n, "string offset") &&
             from_strings(info.string_at(info.sections().line_str, n, at, s, err));
    case kFormStrp:
      return r.offset(unit.offset_size, n, "string offset") &&
             from_strings(info.string_at(info.sections().str, n, at, s, err));
    case kFormStrx: if (!r.uleb(n, "string index")) return false; break;
    case kFormStrx1: if (!r.fixed(1, n, "string index")) return false; break;
    case kFormStrx2: if (!r.fixed(2, n, "string index")) return false; break;
    case kFormStrx3: if (!r.fixed(3, n, "string index")) return false; break;
    case kFormStrx4: if (!r.fixed(4, n, "string index")) return false; break;
    case kFormUdata: return r.uleb(out.number, "entry number");
    case kFormData1: return r.fixed(1, out.number, "entry number");
    case kFormData2: return r.fixed(2, out.number, "entry number");
    case kFormData4: return r.fixed(4, out.number, "entry number");
    case kFormData8: return r.fixed(8, out.number, "entry number");
    case kFormData16: return r.skip(16, "entry MD5");
    case kFormBlock: return r.uleb(n, "block length") && r.skip(n, "entry block");
    default: return r.fail(kErrUnknownForm, at, "form " + Reader::hex(form) + " in a line table entry");
  }
  return from_strings(info.indexed_string(unit, n, at, s, err));
}

// A DWARF 5 directory or file table: the entry formats, then the entries.
bool read_entries(const DebugInfoReader &info, const Unit &unit, Reader &r, bool files, LineTable &out,
                  DebugError &err) {
  uint8_t format_count;
  if (!r.u8(format_count, "entry format count")) return false;
  std::vector<std::pair<uint64_t, uint64_t>> formats(format_count);
  for (auto &[type, form] : formats)
    if (!r.uleb(type, "entry content type") || !r.uleb(form, "entry form")) return false;
  uint64_t count, count_at = r.pos();
  if (!r.uleb(count, "entry count")) return false;
  if (count > r.left()) return r.fail(kErrBadLineHeader, count_at, std::to_string(count) + " entries cannot fit");
  for (uint64_t i = 0; i < count; i++) {
    LineFile entry;
    for (auto [type, form] : formats) {
      EntryField f;
      if (!read_entry_field(info, unit, r, form, f, err)) return false;
      if (type == kLnctPath) entry.name = f.text;
      if (type == kLnctDirectoryIndex) entry.dir = f.number;
    }
    if (files)
      out.files.push_back(entry);
    else
      out.dirs.push_back(entry.name);
  }
  return true;
}

}  // namespace

bool read_line_table(const DebugInfoReader &info, const Unit &unit, uint64_t offset, LineTable &out,
                     DebugError &err) {
  out = LineTable{};
  out.offset = offset;
  const Section &sec = info.sections().line;
  err.section = sec.name;
  bool big = info.sections().big_endian;
  Reader r(sec.data, offset, sec.size, big, unit.address_size, err.error);
  if (!sec.present()) return r.fail(kErrMissingSection, offset, "no .debug_line");
  if (offset >= sec.size) return r.fail(kErrBadLineHeader, offset, "offset past the end of .debug_line");
  uint64_t length;
  unsigned offset_size = 4;
  if (!r.fixed(4, length, "line table length")) return false;
  if (length == 0xffffffff) {
    offset_size = 8;
    if (!r.fixed(8, length, "line table length")) return false;
  } else if (length >= 0xfffffff0) {
    return r.fail(kErrBadUnitLength, offset, "reserved length " + Reader::hex(length));
  }
  if (length > r.left())
    return r.fail(kErrBadUnitLength, offset, "length " + Reader::hex(length) + ", " + Reader::hex(r.left()) + " bytes left");
  Reader h(sec.data, r.pos(), r.pos() + length, big, unit.address_size, err.error);
  uint64_t version, header_length;
  if (!h.fixed(2, version, "line table version")) return false;
  if (version < 2 || version > 5) return h.fail(kErrBadVersion, h.pos() - 2, "version " + std::to_string(version));
  out.version = uint16_t(version);
  out.address_size = unit.address_size;
  if (version >= 5) {
    uint8_t seg;
    if (!h.u8(out.address_size, "address size")) return false;
    if (out.address_size != 4 && out.address_size != 8)
      return h.fail(kErrBadAddressSize, h.pos() - 1, "address size " + std::to_string(out.address_size));
    if (!h.u8(seg, "segment selector size")) return false;
    if (seg != 0) return h.fail(kErrBadAddressSize, h.pos() - 1, "segment selector size " + std::to_string(seg));
    h.set_address_size(out.address_size);
  }
  if (!h.offset(offset_size, header_length, "header length")) return false;
  uint64_t program = h.pos() + header_length;
  if (header_length > h.left()) return h.fail(kErrBadLineHeader, h.pos() - offset_size, "header runs past the table");
  uint8_t default_is_stmt;
  if (!h.u8(out.min_inst_length, "minimum instruction length")) return false;
  if (version >= 4 && !h.u8(out.max_ops_per_insn, "maximum operations per instruction")) return false;
  if (out.max_ops_per_insn == 0) return h.fail(kErrBadLineHeader, h.pos() - 1, "maximum operations per instruction 0");
  if (!h.u8(default_is_stmt, "default is_stmt")) return false;
  out.default_is_stmt = default_is_stmt != 0;
  uint8_t line_base;
  if (!h.u8(line_base, "line base") || !h.u8(out.line_range, "line range")) return false;
  out.line_base = int8_t(line_base);
  if (out.line_range == 0) return h.fail(kErrBadLineHeader, h.pos() - 1, "line range 0");
  if (!h.u8(out.opcode_base, "opcode base")) return false;
  if (out.opcode_base == 0) return h.fail(kErrBadLineHeader, h.pos() - 1, "opcode base 0");
  std::vector<uint8_t> opcode_lengths(out.opcode_base, 0);
  for (unsigned i = 1; i < out.opcode_base; i++)
    if (!h.u8(opcode_lengths[i], "standard opcode length")) return false;
  if (version >= 5) {
    if (!read_entries(info, unit, h, false, out, err) || !read_entries(info, unit, h, true, out, err)) return false;
  } else {
    out.dirs.emplace_back();
    out.files.emplace_back();
    for (;;) {
      const char *dir;
      if (!h.cstring(dir, "include directory")) return false;
      if (!*dir) break;
      out.dirs.push_back(dir);
    }
    for (;;) {
      const char *name;
      if (!h.cstring(name, "file name")) return false;
      if (!*name) break;
      LineFile f;
      f.name = name;
      uint64_t ignored;
      if (!h.uleb(f.dir, "file directory") || !h.uleb(ignored, "file time") || !h.uleb(ignored, "file size"))
        return false;
      out.files.push_back(f);
    }
  }
  if (h.pos() > program) return h.fail(kErrBadLineHeader, h.pos(), "file tables run past the header length");
  h.seek(program);

  // The state machine (DWARF 5, 6.2.2).
  LineRow row;
  uint64_t op_index = 0;
  auto reset = [&] {
    row = LineRow{};
    row.is_stmt = out.default_is_stmt;
    op_index = 0;
  };
  reset();
  auto advance = [&](uint64_t operation_advance) {
    if (out.max_ops_per_insn == 1) {
      row.address += out.min_inst_length * operation_advance;
    } else {
      row.address += out.min_inst_length * ((op_index + operation_advance) / out.max_ops_per_insn);
      op_index = (op_index + operation_advance) % out.max_ops_per_insn;
    }
  };
  auto emit = [&] {
    out.rows.push_back(row);
    row.discriminator = 0;
  };
  while (!h.at_end()) {
    uint64_t op_at = h.pos();
    uint8_t op = 0;
    h.u8(op, "opcode");
    if (op >= out.opcode_base) {
      uint8_t adjusted = op - out.opcode_base;
      advance(adjusted / out.line_range);
      row.line += uint32_t(int32_t(out.line_base) + adjusted % out.line_range);
      emit();
      continue;
    }
    uint64_t v;
    int64_t sv;
    switch (op) {
      case 0: {  // extended
        uint64_t len;
        if (!h.uleb(len, "extended opcode length")) return false;
        if (len == 0 || len > h.left())
          return h.fail(cfi::ErrorCode::kTruncated, op_at,
                        "extended opcode of " + std::to_string(len) + " bytes, " + std::to_string(h.left()) + " left");
        uint64_t end = h.pos() + len;
        uint8_t sub = 0;
        h.u8(sub, "extended opcode");
        switch (sub) {
          case kLneEndSequence:
            row.end_sequence = true;
            emit();
            reset();
            break;
          case kLneSetAddress:
            if (len - 1 != 4 && len - 1 != 8)
              return h.fail(kErrBadAddressSize, op_at, "DW_LNE_set_address of " + std::to_string(len - 1) + " bytes");
            h.fixed(unsigned(len - 1), row.address, "address");
            op_index = 0;
            break;
          case kLneDefineFile: {
            LineFile f;
            const char *name;
            uint64_t ignored;
            if (!h.cstring(name, "file name") || !h.uleb(f.dir, "file directory") || !h.uleb(ignored, "file time") ||
                !h.uleb(ignored, "file size"))
              return false;
            f.name = name;
            out.files.push_back(f);
            break;
          }
          case kLneSetDiscriminator:
            if (!h.uleb(v, "discriminator")) return false;
            row.discriminator = uint32_t(v);
            break;
          default:
            out.skipped_extended = true;
            break;
        }
        if (h.pos() > end) return h.fail(kErrBadLineHeader, op_at, "extended opcode operands run past its length");
        h.seek(end);
        break;
      }
      case kLnsCopy: emit(); break;
      case kLnsAdvancePc:
        if (!h.uleb(v, "address advance")) return false;
        advance(v);
        break;
      case kLnsAdvanceLine:
        if (!h.sleb(sv, "line advance")) return false;
        row.line += uint32_t(sv);
        break;
      case kLnsSetFile:
        if (!h.uleb(v, "file number")) return false;
        row.file = uint32_t(v);
        row.file_set = true;
        break;
      case kLnsSetColumn:
        if (!h.uleb(v, "column")) return false;
        row.column = uint32_t(v);
        break;
      case kLnsNegateStmt: row.is_stmt = !row.is_stmt; break;
      case kLnsSetBasicBlock: break;
      case kLnsConstAddPc: advance((255 - out.opcode_base) / out.line_range); break;
      case kLnsFixedAdvancePc:
        if (!h.fixed(2, v, "address advance")) return false;
        row.address += v;
        op_index = 0;
        break;
      case kLnsSetPrologueEnd:
      case kLnsSetEpilogueBegin: break;
      case kLnsSetIsa:
        if (!h.uleb(v, "ISA")) return false;
        break;
      default:  // a standard opcode this version does not define: its operands are ULEB128s
        for (unsigned i = 0; i < opcode_lengths[op]; i++)
          if (!h.uleb(v, "opcode operand")) return false;
        break;
    }
  }
  return true;
}

bool line_file_path(const LineTable &table, uint64_t index, const char *comp_dir, std::string &out) {
  if (index >= table.files.size() || (table.version < 5 && index == 0)) return false;
  const LineFile &f = table.files[index];
  if (is_absolute(f.name)) {
    out = f.name;
    return true;
  }
  const std::string *subdir = nullptr;
  if (f.dir < table.dirs.size() && (table.version >= 5 || f.dir != 0)) subdir = &table.dirs[f.dir];
  const char *dir = nullptr;
  if (!subdir || !is_absolute(*subdir)) dir = comp_dir;
  if (!dir) {
    if (!subdir) {
      out = f.name;
      return true;
    }
    out = *subdir + "/" + f.name;
    return true;
  }
  out = std::string(dir) + "/" + (subdir ? *subdir + "/" : std::string()) + f.name;
  return true;
}

void LineLookup::build(const LineTable &table) {
  seqs_.clear();
  std::vector<Sequence> seqs;
  for (const LineRow &row : table.rows) {
    Sequence *cur = seqs.empty() ? nullptr : &seqs.back();
    if (cur && cur->rows.back().address == row.address && cur->rows.back().end_sequence == row.end_sequence) {
      cur->rows.back() = row;  // the later row at one address wins
    } else if (!cur || cur->rows.back().end_sequence) {
      seqs.emplace_back();
      seqs.back().low = row.address;
      seqs.back().rows.push_back(row);
    } else if (row.end_sequence || row.address > cur->rows.back().address) {
      cur->rows.push_back(row);
    } else {  // out of order: before the first row at or after its address
      auto at = std::lower_bound(cur->rows.begin(), cur->rows.end(), row.address,
                                 [](const LineRow &r, uint64_t a) { return r.address < a; });
      cur->rows.insert(at, row);
      cur->low = std::min(cur->low, row.address);
    }
  }
  for (Sequence &s : seqs) s.high = s.rows.back().address;
  std::vector<size_t> order(seqs.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (seqs[a].low != seqs[b].low) return seqs[a].low < seqs[b].low;
    if (seqs[a].high != seqs[b].high) return seqs[a].high > seqs[b].high;
    return a < b;
  });
  uint64_t last_high = 0;
  for (size_t i : order) {
    Sequence &s = seqs[i];
    if (!seqs_.empty() && s.low < last_high) {
      if (s.high <= last_high) continue;  // nested in the one before
      s.low = last_high;                  // overlapping: trimmed
    }
    last_high = s.high;
    seqs_.push_back(std::move(s));
  }
}

const LineRow *LineLookup::find(uint64_t addr) const {
  auto seq = std::upper_bound(seqs_.begin(), seqs_.end(), addr, [](uint64_t a, const Sequence &s) { return a < s.low; });
  if (seq == seqs_.begin()) return nullptr;
  --seq;
  if (addr < seq->low || addr >= seq->high) return nullptr;
  const std::vector<LineRow> &rows = seq->rows;
  auto it = std::upper_bound(rows.begin(), rows.end(), addr, [](uint64_t a, const LineRow &r) { return a < r.address; });
  if (it == rows.begin() || it == rows.end()) return nullptr;
  return &*(it - 1);
}

void LineLookup::ranges(std::vector<std::pair<uint64_t, uint64_t>> &out) const {
  for (const Sequence &s : seqs_)
    if (s.low < s.high) out.emplace_back(s.low, s.high);
}

}  // namespace sfu::tools::dwarf
