// DWARF expression evaluation for PC-dependent CFAs. See cfa_expression.h.
#include "tools/sframe/cfa_expression.h"

#include <algorithm>

#include "sframe/format.h"
#include "tools/text/bytes.h"

namespace sfu::tools {
namespace {

struct ExprReader {
  const std::vector<uint8_t> &e;
  bool big;  // the target's byte order
  size_t at = 0;
  bool ok = true;
  uint64_t fixed(unsigned n, bool is_signed) {
    if (at + n > e.size()) return ok = false, 0;
    uint64_t v = load_bytes(e.data() + at, n, big);
    at += n;
    if (is_signed && n < 8 && (v >> (8 * n - 1)) & 1) v |= ~uint64_t(0) << (8 * n);
    return v;
  }
  uint64_t leb(bool is_signed) {
    uint64_t v = 0;
    unsigned shift = 0;
    uint8_t b = 0x80;
    while (b & 0x80) {
      if (at >= e.size() || shift >= 64) return ok = false, 0;
      b = e[at++];
      v |= uint64_t(b & 0x7f) << shift;
      shift += 7;
    }
    if (is_signed && shift < 64 && (b & 0x40)) v |= ~uint64_t(0) << shift;
    return v;
  }
};

// One evaluation with every register but the PC worth `base`; `reads` collects the registers read.
bool evaluate(const std::vector<uint8_t> &expr, bool big, uint32_t pc_reg, uint64_t pc, uint64_t base,
              std::vector<uint32_t> &reads, uint64_t &result) {
  ExprReader r{expr, big};
  std::vector<uint64_t> st;
  auto reg_value = [&](uint32_t reg) {
    if (reg == pc_reg) return pc;
    reads.push_back(reg);
    return base;
  };
  auto pop = [&](uint64_t &v) {
    if (st.empty()) return false;
    v = st.back();
    st.pop_back();
    return true;
  };
  while (r.ok && r.at < expr.size()) {
    uint8_t op = expr[r.at++];
    uint64_t a = 0, b = 0;
    if (op >= 0x30 && op <= 0x4f) {  // DW_OP_lit0..31
      st.push_back(op - 0x30);
    } else if (op >= 0x50 && op <= 0x6f) {  // DW_OP_reg0..31 (value of the register)
      st.push_back(reg_value(op - 0x50));
    } else if (op >= 0x70 && op <= 0x8f) {  // DW_OP_breg0..31 offset
      uint64_t v = reg_value(op - 0x70);
      st.push_back(v + r.leb(true));
    } else if (op == 0x92) {  // DW_OP_bregx reg offset
      uint64_t reg = r.leb(false);
      if (reg > 0xffffffff) return false;
      uint64_t v = reg_value(uint32_t(reg));
      st.push_back(v + r.leb(true));
    } else if (op >= 0x08 && op <= 0x0f) {  // DW_OP_const1u .. const8s
      static const unsigned kSize[] = {1, 1, 2, 2, 4, 4, 8, 8};
      st.push_back(r.fixed(kSize[op - 0x08], op & 1));
    } else if (op == 0x10 || op == 0x11) {  // DW_OP_constu, DW_OP_consts
      st.push_back(r.leb(op == 0x11));
    } else if (op == 0x12) {  // dup
      if (st.empty()) return false;
      st.push_back(st.back());
    } else if (op == 0x13) {  // drop
      if (!pop(a)) return false;
    } else if (op == 0x14) {  // over
      if (st.size() < 2) return false;
      st.push_back(st[st.size() - 2]);
    } else if (op == 0x16) {  // swap
      if (st.size() < 2) return false;
      std::swap(st[st.size() - 1], st[st.size() - 2]);
    } else if (op == 0x23) {  // plus_uconst
      if (!pop(a)) return false;
      st.push_back(a + r.leb(false));
    } else if (op == 0x1f || op == 0x20) {  // neg, not
      if (!pop(a)) return false;
      st.push_back(op == 0x1f ? 0 - a : ~a);
    } else {
      if (!pop(b) || !pop(a)) return false;
      int64_t sa = int64_t(a), sb = int64_t(b);
      switch (op) {
        case 0x1a: st.push_back(a & b); break;
        case 0x1c: st.push_back(a - b); break;
        case 0x1e: st.push_back(a * b); break;
        case 0x21: st.push_back(a | b); break;
        case 0x22: st.push_back(a + b); break;
        case 0x24: st.push_back(b >= 64 ? 0 : a << b); break;
        case 0x25: st.push_back(b >= 64 ? 0 : a >> b); break;
        case 0x26: st.push_back(b >= 64 ? uint64_t(sa >> 63) : uint64_t(sa >> b)); break;
        case 0x27: st.push_back(a ^ b); break;
        case 0x29: st.push_back(sa == sb); break;
        case 0x2a: st.push_back(sa >= sb); break;
        case 0x2b: st.push_back(sa > sb); break;
        case 0x2c: st.push_back(sa <= sb); break;
        case 0x2d: st.push_back(sa < sb); break;
        case 0x2e: st.push_back(sa != sb); break;
        default: return false;  // loads, branches, division, anything else
      }
    }
  }
  return r.ok && st.size() == 1 && (result = st.back(), true);
}

}  // namespace

bool cfa_expression_at(const std::vector<uint8_t> &expr, uint8_t abi, uint64_t pc, uint32_t &reg,
                       int64_t &offset) {
  uint32_t pc_reg = abi == SFU_ABI_AMD64_LE ? 16 : sframe::abi_aarch64(abi) ? 32 : UINT32_MAX;
  // Twice, with the other registers at two bases: the value must move with exactly one of them.
  constexpr uint64_t kBaseA = 0x100000000, kBaseB = 0x300000000;
  std::vector<uint32_t> reads_a, reads_b;
  uint64_t a = 0, b = 0;
  bool big = sframe::abi_big_endian(abi);
  if (!evaluate(expr, big, pc_reg, pc, kBaseA, reads_a, a) || !evaluate(expr, big, pc_reg, pc, kBaseB, reads_b, b))
    return false;
  std::sort(reads_a.begin(), reads_a.end());
  reads_a.erase(std::unique(reads_a.begin(), reads_a.end()), reads_a.end());
  if (reads_a.size() != 1 || a - kBaseA != b - kBaseB) return false;
  int64_t off = int64_t(a - kBaseA);
  if (off < INT32_MIN || off > INT32_MAX) return false;
  reg = reads_a[0];
  offset = off;
  return true;
}

}  // namespace sfu::tools
