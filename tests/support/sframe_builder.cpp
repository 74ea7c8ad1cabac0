#include "support/sframe_builder.h"

#include <stdexcept>

#include "sframe/format.h"
#include "sfu/sframe.h"

namespace sfu::test {
namespace {


struct Writer {
  std::vector<uint8_t> &out;
  bool big;
  void put(uint64_t v, int n) {
    for (int i = 0; i < n; i++) {
      int shift = big ? 8 * (n - 1 - i) : 8 * i;
      out.push_back(uint8_t(v >> shift));
    }
  }
};

int smallest_word_size(const std::vector<int32_t> &words) {
  int size = 1;
  for (int32_t w : words) {
    if (w < -128 || w > 127) size = size < 2 ? 2 : size;
    if (w < -32768 || w > 32767) size = 4;
  }
  return size;
}

int smallest_fre_type(const FdeSpec &f) {
  uint32_t max = 0;
  for (const FreSpec &r : f.fres) max = r.start > max ? r.start : max;
  return max <= 0xff ? 0 : max <= 0xffff ? 1 : 2;
}

}  // namespace

void patch(std::vector<uint8_t> &sec, uint32_t off, uint64_t v, int n) {
  bool big = sec.size() > 1 && sec[0] == 0xde;
  for (int i = 0; i < n; i++) {
    int shift = big ? 8 * (n - 1 - i) : 8 * i;
    sec.at(off + i) = uint8_t(v >> shift);
  }
}

std::vector<uint8_t> build_section(const TableSpec &spec, Layout *layout) {
  bool big = sframe::abi_big_endian(spec.abi);
  uint32_t fde_size = spec.version == 1 ? 17 : spec.version == 2 ? 20 : 16;
  uint8_t flags = spec.flags >= 0 ? uint8_t(spec.flags) : uint8_t(spec.version == 3 ? 0x5 : 0x1);
  bool pcrel = flags & SFU_F_FDE_FUNC_START_PCREL;

  // FRE sub-section first, so FDEs can point into it.
  std::vector<uint8_t> fres;
  Writer fw{fres, big};
  std::vector<uint32_t> chain_off, fre_off;
  uint32_t num_fres = 0;
  for (const FdeSpec &f : spec.fdes) {
    chain_off.push_back(uint32_t(fres.size()));
    int fre_type = f.fre_type >= 0 ? f.fre_type : smallest_fre_type(f);
    uint8_t info = uint8_t(fre_type | (f.pcmask << 4) | (f.pauth_key_b << 5) | (f.signal << 7));
    if (spec.version == 3) {
      fw.put(f.fres.size(), 2);
      fw.put(info, 1);
      fw.put(f.flex ? 1 : 0, 1);
      fw.put(f.rep_size, 1);
    }
    for (const FreSpec &r : f.fres) {
      fre_off.push_back(uint32_t(fres.size()));
      int ws = r.word_size ? r.word_size : smallest_word_size(r.words);
      int code = ws == 1 ? 0 : ws == 2 ? 1 : 2;
      fw.put(r.start, 1 << fre_type);
      fw.put(uint8_t(r.base_sp | (r.words.size() << 1) | (code << 5) | (r.ra_signed << 7)), 1);
      for (int32_t w : r.words) fw.put(uint32_t(w), ws);
    }
    num_fres += uint32_t(f.fres.size());
  }

  std::vector<uint8_t> sec;
  Writer w{sec, big};
  w.put(0xdee2, 2);
  w.put(spec.version, 1);
  w.put(flags, 1);
  w.put(spec.abi, 1);
  w.put(uint8_t(spec.fixed_fp), 1);
  w.put(uint8_t(spec.fixed_ra), 1);
  w.put(spec.auxhdr_len, 1);
  w.put(spec.fdes.size(), 4);
  w.put(num_fres, 4);
  w.put(fres.size(), 4);
  uint32_t fdes_len = uint32_t(spec.fdes.size()) * fde_size;
  w.put(0, 4);         // FDEs right after the header
  w.put(fdes_len, 4);  // FREs right after the FDEs
  for (int i = 0; i < spec.auxhdr_len; i++) w.put(0, 1);
  uint32_t fdes_at = uint32_t(sec.size());
  for (size_t i = 0; i < spec.fdes.size(); i++) {
    const FdeSpec &f = spec.fdes[i];
    uint32_t field_at = fdes_at + uint32_t(i) * fde_size;
    uint64_t base = spec.section_addr + (pcrel ? field_at : 0);
    uint64_t rel = f.start - base;
    int fre_type = f.fre_type >= 0 ? f.fre_type : smallest_fre_type(f);
    uint8_t info = uint8_t(fre_type | (f.pcmask << 4) | (f.pauth_key_b << 5));
    if (spec.version == 3) {
      w.put(rel, 8);
      w.put(f.size, 4);
      w.put(chain_off[i], 4);
    } else {
      w.put(rel, 4);
      w.put(f.size, 4);
      w.put(chain_off[i], 4);
      w.put(f.fres.size(), 4);
      w.put(info, 1);
      if (spec.version == 2) {
        w.put(f.rep_size, 1);
        w.put(0, 2);
      }
    }
  }
  uint32_t fres_at = uint32_t(sec.size());
  sec.insert(sec.end(), fres.begin(), fres.end());
  if (layout) {
    layout->fdes_at = fdes_at;
    layout->fres_at = fres_at;
    layout->fde_size = fde_size;
    layout->chain_at.clear();
    layout->fre_at.clear();
    for (uint32_t c : chain_off) layout->chain_at.push_back(fres_at + c);
    for (uint32_t r : fre_off) layout->fre_at.push_back(fres_at + r);
  }
  return sec;
}

FdeSpec fde_spec(uint64_t start, uint32_t size, std::vector<FreSpec> rows, bool signal) {
  FdeSpec f;
  f.start = start;
  f.size = size;
  f.fres = std::move(rows);
  f.signal = signal;
  return f;
}

TableSpec table_spec(uint8_t version, uint8_t abi, std::vector<FdeSpec> fdes) {
  TableSpec t;
  t.version = version;
  t.abi = abi;
  t.fixed_ra = abi == SFU_ABI_AMD64_LE ? -8 : 0;
  t.section_addr = 0x200000;
  t.fdes = std::move(fdes);
  return t;
}

TableSpec sample_table(uint8_t version, uint8_t abi) {
  TableSpec t;
  t.version = version;
  t.abi = abi;
  t.fixed_ra = abi == SFU_ABI_AMD64_LE ? -8 : 0;
  FdeSpec a, b;
  a.start = t.section_addr + 0x1000;
  a.size = 0x40;
  b.start = a.start + 0x40;
  b.size = 0x20;
  if (abi == SFU_ABI_AMD64_LE) {  // push %rbp; mov %rsp,%rbp; ...; leave
    a.fres = {{0, {8}}, {1, {16, -16}}, {4, {16, -16}, false}, {0x3f, {8, -16}}};
    b.fres = {{0, {8}}, {4, {32}}};
  } else if (abi == SFU_ABI_S390X_BE) {  // CFA offsets stored as (off - 160) / 8
    a.fres = {{0, {0}}, {6, {20, -48, -72}}, {0x3e, {0}}};
    b.fres = {{0, {0}}, {4, {2, 0, -72}}};
  } else {  // AArch64: stp x29, x30, [sp, -16]!; mov x29, sp; ...
    a.fres = {{0, {0}}, {4, {16, -8, -16}}, {8, {16, -8, -16}, false}, {0x3c, {0}}};
    b.fres = {{0, {0}}, {4, {32, -24, -32}}};
  }
  t.fdes = {a, b};
  return t;
}

}  // namespace sfu::test
