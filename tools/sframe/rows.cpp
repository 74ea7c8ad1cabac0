// Reading a validated table through the decoder's own views, so tools see exactly the rows the
// runtime would apply.
#include "tools/sframe/rows.h"

#include <algorithm>
#include <cstdio>

#include "sframe/table.h"

namespace sfu::tools {

using namespace sfu::sframe;

sfu_error read_sframe_functions(const std::vector<uint8_t> &bytes, uint64_t addr, uint8_t &abi,
                                std::vector<SframeFunction> &out) {
  out.clear();
  sfu_table_desc desc{bytes.data(), bytes.size(), addr, 0, 0, SFU_ABI_ANY};
  sfu_table t;
  sfu_error e = sfu_table_open(&t, &desc);
  if (e == SFU_OK) e = sfu_table_validate(&t);
  if (e != SFU_OK) return e;
  abi = t.abi;
  for (uint32_t i = 0; i < t.num_fdes; i++) {
    Fde f;
    if (sfu_error e2 = read_fde(t, i, f)) return e2;
    SframeFunction fn;
    fn.start = f.start;
    fn.size = f.size;
    fn.pcmask = f.pcmask();
    // Validation refused a V2/V3 PCMASK function with repeat size 0.
    if (fn.pcmask) fn.repeat = t.version == kVersion1 ? kV1PcmaskMask + 1 : f.rep_size;
    uint32_t at = f.fres_at;
    for (uint32_t j = 0; j < f.num_fres; j++) {
      Fre fre;
      sfu_row row;
      if (sfu_error e2 = read_fre(t, f, at, fre)) return e2;
      if (sfu_error e2 = row_from_fre(t, f, fre, row)) return e2;
      at = fre.end;
      fn.rows.push_back(row);
    }
    out.push_back(std::move(fn));
  }
  std::stable_sort(out.begin(), out.end(), [](const SframeFunction &a, const SframeFunction &b) { return a.start < b.start; });
  return SFU_OK;
}

bool read_image_sframe(const ElfImage &image, uint8_t &abi, std::vector<SframeFunction> &out, std::string &error) {
  ElfSection sec;
  if (!elf_section_bytes(image, ".sframe", sec, error)) return false;
  sfu_error e = read_sframe_functions(sec.bytes, sec.addr, abi, out);
  if (e == SFU_E_EMPTY) return true;
  if (e != SFU_OK) error = std::string("invalid SFrame section: ") + sfu_error_name(e);
  return e == SFU_OK;
}

const SframeFunction *sframe_function_at(const std::vector<SframeFunction> &fns, uint64_t pc) {
  auto it = std::upper_bound(fns.begin(), fns.end(), pc,
                             [](uint64_t p, const SframeFunction &f) { return p < f.start; });
  if (it == fns.begin()) return nullptr;
  const SframeFunction &f = *(it - 1);
  return pc - f.start < f.size ? &f : nullptr;
}

const sfu_row *sframe_row_at(const SframeFunction &fn, uint64_t pc) {
  uint64_t key = pc - fn.start;
  if (fn.pcmask) key = fn.repeat ? key % fn.repeat : 0;
  auto it = std::upper_bound(fn.rows.begin(), fn.rows.end(), key,
                             [](uint64_t off, const sfu_row &r) { return off < r.row_start; });
  return it == fn.rows.begin() ? nullptr : &*(it - 1);
}

std::string rule_text(const sfu_rule &r) {
  char buf[48];
  switch (r.kind) {
    case SFU_RULE_UNCHANGED: return "same";
    case SFU_RULE_UNDEFINED: return "undefined";
    case SFU_RULE_AT_CFA: snprintf(buf, sizeof buf, "[cfa%+d]", int(r.offset)); break;
    case SFU_RULE_CFA_PLUS: snprintf(buf, sizeof buf, "cfa%+d", int(r.offset)); break;
    case SFU_RULE_REGISTER: snprintf(buf, sizeof buf, "r%u%+d", unsigned(r.reg), int(r.offset)); break;
    case SFU_RULE_AT_REGISTER: snprintf(buf, sizeof buf, "[r%u%+d]", unsigned(r.reg), int(r.offset)); break;
    default: snprintf(buf, sizeof buf, "kind%u?", unsigned(r.kind)); break;
  }
  return buf;
}

std::string row_text(const sfu_row &row) {
  if (row.flags & SFU_ROW_OUTERMOST) return "outermost (RA undefined)";
  std::string s = "CFA " + rule_text(row.cfa) + ", RA " + rule_text(row.ra) + ", FP " + rule_text(row.fp);
  if (row.flags & SFU_ROW_RA_SIGNED) s += " (RA signed)";
  return s;
}

}  // namespace sfu::tools
