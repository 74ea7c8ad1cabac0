// The objdump --sframe text. Columns show the raw encoding (which word holds what, "U" for the
// RA padding word, "[s]" for a signed RA), so this reads the FDEs and FREs directly rather
// than the decoded rules sfu_table_find gives.
#include "tools/sframe/dump.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

#include "sframe/table.h"

namespace sfu::tools {
namespace {

using namespace sfu::sframe;

// printf, appended to a string.
void vput(std::string &out, const char *fmt, va_list ap) {
  va_list again;
  va_copy(again, ap);
  int n = vsnprintf(nullptr, 0, fmt, ap);
  if (n > 0) {
    size_t at = out.size();
    out.resize(at + size_t(n) + 1);  // room for the terminator vsnprintf writes
    vsnprintf(&out[at], size_t(n) + 1, fmt, again);
    out.resize(at + size_t(n));
  }
  va_end(again);
}

__attribute__((format(printf, 2, 3))) void put(std::string &out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vput(out, fmt, ap);
  va_end(ap);
}

__attribute__((format(printf, 1, 2))) std::string text(const char *fmt, ...) {
  std::string s;
  va_list ap;
  va_start(ap, fmt);
  vput(s, fmt, ap);
  va_end(ap);
  return s;
}

// The CFA offset as objdump prints it: decoded on s390x (validation keeps it in int32 range).
int32_t cfa_offset(const sfu_table &t, int32_t w) {
  return abi_s390x(t.abi) ? int32_t(s390x_cfa_decode(w)) : w;
}

std::string reg_name(const sfu_table &t, uint32_t reg) {
  return reg == abi_sp_reg(t.abi) ? "sp" : reg == abi_fp_reg(t.abi) ? "fp" : text("r%u", reg);
}

// A default-form RA or FP word: a CFA offset, or on V2 s390x an odd word naming a register.
std::string offset_rule(const sfu_table &t, int32_t w) {
  if (abi_s390x(t.abi) && t.version == kVersion2 && s390x_v2_is_regnum(w))
    return text("r%u", s390x_v2_regnum(w));
  return text("c%+d", w);
}

// A flexible rule [control, offset]. Without reg_p the base is the CFA and objdump ignores
// deref_p in the text.
std::string flex_rule(const sfu_table &t, uint32_t ctl, int32_t offset) {
  if (!flex_reg_p(ctl)) return text("c%+d", offset);
  std::string reg = reg_name(t, flex_reg(ctl));
  return flex_deref_p(ctl) ? text("(%s%+d)", reg.c_str(), offset) : text("%s%+d", reg.c_str(), offset);
}

struct Columns {
  std::string cfa, fp, ra;
};

Columns default_columns(const sfu_table &t, const Fre &f) {
  Columns c;
  c.cfa = text("%s+%d", fre_base_sp(f.info) ? "sp" : "fp", cfa_offset(t, f.word(0)));
  // AMD64 has no RA word (its RA is at the fixed offset), so FP moves up to word 1.
  uint32_t fp_word = t.abi == SFU_ABI_AMD64_LE ? 1 : 2;
  c.fp = f.count > fp_word ? offset_rule(t, f.word(fp_word)) : "u";
  if (t.fixed_ra_offset)
    c.ra = "f";
  else if (f.count > 1)
    c.ra = f.word(1) == 0 && abi_s390x(t.abi) ? "U" : offset_rule(t, f.word(1));  // padding: s390x only
  else
    c.ra = "u";
  return c;
}

// Flexible rows: CFA [0,1]; RA [2,3], or a single 0 word at 2 (padding); FP after that.
// Validation guarantees the count matches (odd exactly when the padding word is there).
Columns flex_columns(const sfu_table &t, const Fre &f) {
  Columns c;
  c.cfa = flex_rule(t, f.raw[0], cfa_offset(t, f.word(1)));
  uint32_t fp_at;
  if (f.count == 2) {
    c.ra = t.fixed_ra_offset ? "f" : "u";
    fp_at = 2;
  } else if (f.raw[2] == 0) {
    c.ra = "U";
    fp_at = 3;
  } else {
    c.ra = flex_rule(t, f.raw[2], f.word(3));
    fp_at = 4;
  }
  c.fp = f.count >= fp_at + 2 ? flex_rule(t, f.raw[fp_at], f.word(fp_at + 1)) : "u";
  return c;
}

void put_header(const sfu_table &t, std::string &out) {
  // The title's newline is the one that opens the next string, as in objdump.
  put(out, "Contents of the SFrame section .sframe:");
  put(out, "\n  Header :\n\n");
  put(out, "    Version: SFRAME_VERSION_%u\n", t.version);
  // One flag per line, a comma after each but the last; validation already refused flags the
  // version does not define (FRAME_POINTER in V3).
  static const struct {
    uint8_t bit;
    const char *name;
  } kFlags[] = {
      {SFU_F_FDE_SORTED, "SFRAME_F_FDE_SORTED"},
      {SFU_F_FRAME_POINTER, "SFRAME_F_FRAME_POINTER"},
      {SFU_F_FDE_FUNC_START_PCREL, "SFRAME_F_FDE_FUNC_START_PCREL"},
  };
  const char *prefix = "Flags: ";
  uint8_t left = t.flags;
  for (const auto &flag : kFlags) {
    if (!(left & flag.bit)) continue;
    left &= uint8_t(~flag.bit);
    put(out, "%11s%s%s\n", prefix, flag.name, left ? "," : "");
    prefix = " ";
  }
  if (t.flags == 0) put(out, "%11sNONE\n", prefix);
  if (t.fixed_fp_offset) put(out, "    CFA fixed FP offset: %d\n", t.fixed_fp_offset);
  if (t.fixed_ra_offset) put(out, "    CFA fixed RA offset: %d\n", t.fixed_ra_offset);
  put(out, "    Num FDEs: %d\n", int(t.num_fdes));
  put(out, "    Num FREs: %d\n", int(t.num_fres));
  put(out, "\n  Function Index :\n");
}

sfu_error put_function(const sfu_table &t, uint32_t index, std::string &out) {
  Fde f;
  if (sfu_error e = read_fde(t, index, f)) return e;
  put(out, "\n    func idx [%d]: pc = 0x%" PRIx64 ", size = %d bytes", int(index), f.start,
      int(f.size));
  std::string attr;
  if (t.version == kVersion3 && fde_signal(f.info)) attr += "S";
  if (f.flex()) attr += "F";
  if (!attr.empty()) put(out, ", attr = \"%s\"", attr.c_str());
  if (abi_aarch64(t.abi) && fde_pauth_key_b(f.info)) put(out, ", pauth = B key");
  put(out, "\n    %-7s%-8s %-10s%-10s%-13s", "STARTPC", f.pcmask() ? "[m]" : "   ", "CFA", "FP",
      "RA");

  uint32_t at = f.fres_at;
  for (uint32_t j = 0; j < f.num_fres; j++) {
    Fre fre;
    if (sfu_error e = read_fre(t, f, at, fre)) return e;
    at = fre.end;
    // PCMASK rows start inside the repeating block: objdump prints the bare offset.
    uint64_t addr = f.pcmask() ? fre.start : f.start + fre.start;
    put(out, "\n    %016" PRIx64, addr);
    if (fre.count == 0) {  // the outermost frame
      put(out, "  RA undefined");
      continue;
    }
    Columns c = f.flex() ? flex_columns(t, fre) : default_columns(t, fre);
    c.ra += fre_ra_signed(fre.info) ? "[s]" : "   ";
    put(out, "  %-10s%-10s%-13s", c.cfa.c_str(), c.fp.c_str(), c.ra.c_str());
  }
  put(out, "\n");
  return SFU_OK;
}

}  // namespace

sfu_error dump_table(const sfu_table &table, std::string &out) {
  put_header(table, out);
  for (uint32_t i = 0; i < table.num_fdes; i++)
    if (sfu_error e = put_function(table, i, out)) return e;
  return SFU_OK;
}

}  // namespace sfu::tools
