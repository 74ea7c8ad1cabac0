#include "support/random_tables.h"

#include <algorithm>
#include <set>
#include <utility>

#include "sframe/format.h"

namespace sfu::test {
namespace {

constexpr unsigned kHeaderSize = 28;

using sframe::abi_aarch64;

uint8_t code_for(int64_t v) { return v >= -128 && v < 128 ? 0 : v >= -32768 && v < 32768 ? 1 : 2; }

// Default-form words: CFA offset, then RA and FP offsets (AMD64: FP only). s390x V2 may name a
// register instead (odd word); s390x may pad a missing RA with 0.
std::vector<int32_t> default_words(const GenTable &t, Rng &rng) {
  bool amd64 = t.abi == SFU_ABI_AMD64_LE, s390x = t.abi == SFU_ABI_S390X_BE;
  size_t count = 1 + rng.below(amd64 ? 2 : 3);
  bool big_values = rng.one_in(6);
  std::vector<int32_t> w;
  w.push_back(int32_t(s390x ? rng.range(-20, big_values ? 100000 : 100) : rng.range(0, big_values ? 1 << 20 : 200)));
  while (w.size() < count) {
    int32_t v = -8 * int32_t(1 + rng.below(big_values ? 1 << 18 : 40));
    if (s390x && t.version == 2 && rng.one_in(5)) v = int32_t(rng.below(32) << 1 | 1);
    w.push_back(v);
  }
  if (s390x && count == 3 && rng.one_in(4)) w[1] = 0;
  return w;
}

// Flex words: CFA pair; then nothing, an RA pair, a 0 pad and an FP pair, or both pairs.
std::vector<int32_t> flex_words(Rng &rng) {
  auto reg = [&] { return uint32_t(rng.one_in(8) ? rng.below(256) : rng.below(32)); };
  auto offset = [&] { return int32_t(rng.range(-4096, 4096)); };
  std::vector<int32_t> w = {flex_control(true, rng.one_in(3), reg()), offset()};
  int shape = int(rng.below(4));
  if (shape == 1 || shape == 3) {
    int32_t ctl = flex_control(rng.one_in(2), rng.one_in(2), reg());
    if (ctl == 0) ctl = flex_control(false, true, 0);  // a 0 control word would read as padding
    w.insert(w.end(), {ctl, offset()});
  }
  if (shape == 2) w.push_back(0);
  if (shape >= 2) w.insert(w.end(), {flex_control(rng.one_in(2), rng.one_in(2), reg()), offset()});
  return w;
}

}  // namespace

int32_t flex_control(bool reg_p, bool deref, uint32_t reg) {
  return int32_t((reg_p ? (reg << 3) | 1 : 0) | (deref ? 2 : 0));
}

GenTable generate(Rng &rng, const GenShape &shape) {
  GenTable t;
  t.version = uint8_t(1 + rng.below(3));
  static const uint8_t abis[] = {SFU_ABI_AMD64_LE, SFU_ABI_AARCH64_LE, SFU_ABI_AARCH64_BE, SFU_ABI_S390X_BE};
  do t.abi = abis[rng.below(4)];
  while (t.abi == SFU_ABI_S390X_BE && t.version == 1);
  bool amd64 = t.abi == SFU_ABI_AMD64_LE;
  t.flags = rng.one_in(5) ? 0 : SFU_F_FDE_SORTED;
  if (t.version < 3 && rng.one_in(3)) t.flags |= SFU_F_FRAME_POINTER;
  if (t.version >= 2 && !rng.one_in(3)) t.flags |= SFU_F_FDE_FUNC_START_PCREL;
  t.fixed_ra = amd64 ? -8 : 0;
  t.fixed_fp = rng.one_in(4) ? -16 : 0;
  t.sec_addr = 0x400000 + rng.below(0x10000) * 8;

  uint64_t at = t.sec_addr - 0x8000 + rng.below(0x10000);
  size_t nfuncs = rng.below(shape.max_funcs + 1);
  for (size_t i = 0; i < nfuncs; i++) {
    GenFunc f;
    bool prev_empty = !t.funcs.empty() && t.funcs.back().size == 0;
    uint64_t gap = rng.one_in(3) ? 0 : rng.below(shape.max_gap);
    if (prev_empty && gap == 0) gap = 1;  // starts must rise strictly
    f.start = at + gap;
    f.size = t.version == 3 && rng.one_in(20) ? 0 : rng.one_in(4) ? 1 + rng.below(8) : 1 + rng.below(shape.max_size);
    if (rng.one_in(30) && shape.huge_functions) f.size = 70000 + rng.below(1000);  // rows need 4-byte starts
    at = f.start + f.size;
    f.pcmask = f.size > 0 && shape.pcmask_one_in && rng.one_in(shape.pcmask_one_in);
    f.rep_size = f.pcmask && t.version >= 2 ? uint8_t(1 + rng.below(32)) : 0;
    f.key_b = abi_aarch64(t.abi) && rng.one_in(4);
    f.signal = t.version == 3 && rng.one_in(8);
    f.flex = t.version == 3 && rng.one_in(4);
    uint32_t limit = f.pcmask ? (t.version == 1 ? 256 : f.rep_size) : std::max<uint32_t>(f.size, 1);
    size_t nrows = std::min<size_t>(rng.below(shape.max_rows + 1), limit);
    std::set<uint32_t> starts;
    if (nrows && !rng.one_in(8)) starts.insert(0);
    while (starts.size() < nrows) starts.insert(uint32_t(rng.below(limit)));
    uint32_t max_start = starts.empty() ? 0 : *starts.rbegin();
    f.fre_type = max_start < 256 ? 0 : max_start < 65536 ? 1 : 2;
    if (rng.one_in(4)) f.fre_type = uint8_t(std::min<uint64_t>(2, f.fre_type + 1 + rng.below(2)));
    for (uint32_t s : starts) {
      GenRow r;
      r.start = s;
      bool outermost = t.version >= 2 && rng.one_in(10);  // no words: RA undefined
      if (!outermost) r.w = f.flex ? flex_words(rng) : default_words(t, rng);
      r.base_sp = !f.flex && !rng.one_in(3);  // producers write 0 for flex rows
      r.ra_signed = abi_aarch64(t.abi) && rng.one_in(3);
      uint8_t code = 0;
      for (int32_t v : r.w) code = std::max(code, code_for(v));
      if (!r.w.empty() && rng.one_in(4)) code = uint8_t(std::min<uint64_t>(2, code + 1 + rng.below(2)));
      r.size_code = code;
      f.rows.push_back(r);
    }
    t.funcs.push_back(f);
  }
  return t;
}

// Lays the table out: header, junk auxiliary header, then the FDE and FRE sub-sections in
// either order with junk gaps, the functions' row chains in a random order.
std::vector<uint8_t> encode(const GenTable &t, Rng &rng) {
  bool big = t.big();
  bool v3 = t.version == 3;
  uint32_t fde_size = t.version == 1 ? 17 : t.version == 2 ? 20 : 16;

  std::vector<std::vector<uint8_t>> chains(t.funcs.size());
  uint32_t num_fres = 0;
  for (size_t i = 0; i < t.funcs.size(); i++) {
    const GenFunc &f = t.funcs[i];
    std::vector<uint8_t> &c = chains[i];
    auto append = [&](uint64_t v, unsigned width) {
      c.resize(c.size() + width);
      put_uint(c, c.size() - width, v, width, big);
    };
    uint8_t info = uint8_t(f.fre_type | (f.pcmask << 4) | (f.key_b << 5) | (f.signal << 7));
    if (v3) {
      append(f.rows.size(), 2);
      append(info, 1);
      append(f.flex ? 1 : 0, 1);  // FDE type
      append(f.rep_size, 1);
    }
    for (const GenRow &r : f.rows) {
      append(r.start, 1u << f.fre_type);
      append(uint8_t(r.base_sp | (r.w.size() << 1) | (r.size_code << 5) | (r.ra_signed << 7)), 1);
      for (int32_t v : r.w) append(uint32_t(v), 1u << r.size_code);
    }
    num_fres += uint32_t(f.rows.size());
  }
  std::vector<size_t> order(t.funcs.size());
  for (size_t i = 0; i < order.size(); i++) order[i] = i;
  for (size_t i = order.size(); i > 1; i--) std::swap(order[i - 1], order[rng.below(i)]);
  std::vector<uint8_t> fres;
  std::vector<uint32_t> chain_off(t.funcs.size());
  for (size_t i : order) {
    chain_off[i] = uint32_t(fres.size());
    fres.insert(fres.end(), chains[i].begin(), chains[i].end());
  }

  uint8_t aux = uint8_t(rng.one_in(4) ? rng.below(12) : 0);
  uint32_t gap1 = uint32_t(rng.one_in(4) ? rng.below(9) : 0), gap2 = uint32_t(rng.one_in(4) ? rng.below(9) : 0);
  bool fres_first = rng.one_in(4);
  uint32_t hdr_end = kHeaderSize + aux, fde_bytes = uint32_t(t.funcs.size()) * fde_size;
  uint32_t fde_off = fres_first ? gap1 + uint32_t(fres.size()) + gap2 : gap1;
  uint32_t fre_off = fres_first ? gap1 : gap1 + fde_bytes + gap2;
  std::vector<uint8_t> b(hdr_end + gap1 + fde_bytes + gap2 + fres.size());
  for (uint8_t &x : b) x = uint8_t(rng.next());  // junk in the aux header and gaps
  put_uint(b, 0, 0xdee2, 2, big);
  b[2] = t.version;
  b[3] = t.flags;
  b[4] = t.abi;
  b[5] = uint8_t(t.fixed_fp);
  b[6] = uint8_t(t.fixed_ra);
  b[7] = aux;
  put_uint(b, 8, t.funcs.size(), 4, big);
  put_uint(b, 12, num_fres, 4, big);
  put_uint(b, 16, fres.size(), 4, big);
  put_uint(b, 20, fde_off, 4, big);
  put_uint(b, 24, fre_off, 4, big);
  std::copy(fres.begin(), fres.end(), b.begin() + hdr_end + fre_off);
  for (size_t i = 0; i < t.funcs.size(); i++) {
    const GenFunc &f = t.funcs[i];
    uint32_t at = hdr_end + fde_off + uint32_t(i) * fde_size;
    uint64_t base = t.sec_addr + ((t.flags & SFU_F_FDE_FUNC_START_PCREL) ? at : 0);
    uint64_t rel = f.start - base;
    if (v3) {
      put_uint(b, at, rel, 8, big);
      put_uint(b, at + 8, f.size, 4, big);
      put_uint(b, at + 12, chain_off[i], 4, big);
    } else {
      put_uint(b, at, rel, 4, big);
      put_uint(b, at + 4, f.size, 4, big);
      put_uint(b, at + 8, chain_off[i], 4, big);
      put_uint(b, at + 12, f.rows.size(), 4, big);
      b[at + 16] = uint8_t(f.fre_type | (f.pcmask << 4) | (f.key_b << 5));
      if (t.version == 2) {
        b[at + 17] = f.rep_size;
        put_uint(b, at + 18, 0, 2, big);
      }
    }
  }
  return b;
}

sfu_table_desc describe(const GenTable &t, const std::vector<uint8_t> &bytes) {
  uint64_t lo = t.funcs.empty() ? 0 : t.funcs.front().start, hi = 0;
  for (const GenFunc &f : t.funcs) {
    lo = std::min(lo, f.start);
    hi = std::max(hi, f.start + f.size + 1);
  }
  sfu_table_desc d{};
  d.section = bytes.data();
  d.size = bytes.size();
  d.section_addr = t.sec_addr;
  d.text_start = lo;
  d.text_end = hi;
  return d;
}

uint64_t plausible_word(Rng &rng, const GenTable &t, const std::vector<sfu_stack> &stacks) {
  switch (rng.below(8)) {
    case 0: case 1: case 2: case 3:  // half of them: into a function, as a return address is
      if (!t.funcs.empty()) {
        const GenFunc &f = t.funcs[rng.below(t.funcs.size())];
        return f.start + rng.below(uint64_t(f.size) + 2);
      }
      [[fallthrough]];
    case 4: case 5: {
      const sfu_stack &s = stacks[rng.below(stacks.size())];
      return (s.lo + rng.below(s.hi - s.lo + 1)) & ~uint64_t(7);
    }
    case 6:
      return rng.below(64);
    default:
      return rng.next();
  }
}

}  // namespace sfu::test
