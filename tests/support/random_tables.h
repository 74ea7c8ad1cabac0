// Test helper: random but well-formed SFrame V1/V2/V3 tables, for every ABI and byte order.
//
// generate() draws a GenTable: a model of the table as plain values (each function's range,
// flags and rows, with the data words each row stores), from which a test can work out the row
// every PC must get. encode() lays a GenTable out as section bytes, with random auxiliary
// headers, junk gaps, either sub-section first and the functions' row chains in a random order,
// so the layouts a decoder meets are more varied than a linker's. The section is one a
// validating decoder must accept as is, and the raw material for damaging tests.
//
// Everything is driven by Rng, a fixed algorithm: the same seed gives the same tables on every
// host, so a failure names its seed and reproduces.
#pragma once

#include <stddef.h>
#include <stdint.h>

#include <vector>

#include "sframe/format.h"
#include "sfu/sframe.h"
#include "sfu/unwind.h"

namespace sfu::test {

// An unsigned field of `width` (1 to 8) bytes at byte `off`, big- or little-endian.
inline uint64_t get_uint(const uint8_t *p, size_t off, unsigned width, bool big) {
  uint64_t v = 0;
  for (unsigned i = 0; i < width; i++) v = (v << 8) | p[off + (big ? i : width - 1 - i)];
  return v;
}
// Stores the low `width` bytes of v at byte `off` of b (which must already hold them).
inline void put_uint(std::vector<uint8_t> &b, size_t off, uint64_t v, unsigned width, bool big) {
  for (unsigned i = 0; i < width; i++) b[off + (big ? width - 1 - i : i)] = uint8_t(v >> (8 * i));
}

// Deterministic random numbers (splitmix64): the same sequence on every host.
struct Rng {
  uint64_t s;
  explicit Rng(uint64_t seed) : s(seed) {}
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return n ? next() % n : 0; }  // [0, n); 0 when n is 0
  bool one_in(uint64_t n) { return below(n) == 0; }
  int64_t range(int64_t lo, int64_t hi) { return lo + int64_t(below(uint64_t(hi - lo) + 1)); }  // [lo, hi]
};

// One row (FRE) of a function.
struct GenRow {
  uint32_t start = 0;  // offset from the function start (PCMASK: inside the repeated block)
  bool base_sp = true, ra_signed = false;  // FRE info: CFA base bit (1 = SP), bit 7
  uint8_t size_code = 0;  // data words are stored in 1 << size_code bytes
  // Data words. Default rows: the CFA offset, then RA and FP offsets (AMD64: FP only; s390x V2:
  // an odd word is a register number shifted left once; s390x: a 0 RA word is padding). Flex
  // rows: [control, offset] pairs for CFA, RA and FP, a single 0 standing in for a missing RA
  // pair. s390x stores the CFA offset as (offset - 160) / 8. Empty: outermost (RA undefined).
  std::vector<int32_t> w;
};

// One function (FDE) and its rows, in rising start order.
struct GenFunc {
  uint64_t start = 0;  // absolute address
  uint32_t size = 0;
  uint8_t fre_type = 0;  // row starts stored in 1 << fre_type bytes
  bool pcmask = false, key_b = false, signal = false, flex = false;  // signal and flex: V3 only
  uint8_t rep_size = 0;  // PCMASK block size (V2/V3); V1 blocks are 256 bytes
  std::vector<GenRow> rows;
  bool covers(uint64_t pc) const { return pc >= start && pc - start < size; }
};

// A whole table: the header fields encode() writes, and the functions in FDE order.
struct GenTable {
  uint8_t version = 2, abi = SFU_ABI_AMD64_LE, flags = SFU_F_FDE_SORTED;  // SFU_ABI_*, SFU_F_*
  int8_t fixed_fp = 0, fixed_ra = -8;
  uint64_t sec_addr = 0;  // the address the section is loaded at
  std::vector<GenFunc> funcs;
  bool big() const { return sframe::abi_big_endian(abi); }
};

// A flex control word: base register `reg` (reg_p) or the CFA, loaded through (deref) or not.
int32_t flex_control(bool reg_p, bool deref, uint32_t reg);

// How many functions and rows generate() draws, and how far apart: the defaults give small
// tables; more functions of fewer bytes with more rows give blocks of text dense with rows.
struct GenShape {
  uint32_t max_funcs = 8;      // functions: 0 to this many
  uint32_t max_rows = 5;       // rows per function: 0 to this many (fewer if it is shorter)
  uint32_t max_size = 400;     // bytes per function, mostly 1 to this (a quarter 1 to 8)
  uint32_t max_gap = 64;       // bytes before a function: 0 (a third of them) or below this
  bool huge_functions = true;  // one function in 30 past 64 KiB
  uint32_t pcmask_one_in = 8;  // one function in this many a repeating block; 0: none
};

// A random valid table: version 1 to 3, any ABI the version allows, random header flags and
// fixed offsets, up to shape.max_funcs functions at strictly rising addresses (whether or not
// the sorted flag is set), up to shape.max_rows rows each at distinct rising offsets inside the
// function or its PCMASK block (an empty function may still have a row at 0). Every row feature
// the version has turns up: PCMASK, flex, signal frames, the AArch64 B key, outermost rows, empty
// functions (V3), functions past 64 KiB, and row-start and word sizes larger than their values
// need.
GenTable generate(Rng &rng, const GenShape &shape = GenShape{});

// The section bytes for t, laid out with randomness drawn from rng (see the top of this file).
// Writes what t says without checking it, so a hand-built GenTable may be encoded too; words
// and row starts are truncated to their stored sizes.
std::vector<uint8_t> encode(const GenTable &t, Rng &rng);

// A word for a garbage stack: sometimes an address in one of t's functions (as a return address
// is), sometimes an address on one of the stacks, sometimes noise. Walks get some way in before
// the garbage stops them.
uint64_t plausible_word(Rng &rng, const GenTable &t, const std::vector<sfu_stack> &stacks);

// Start registers: each of the SFU_REGS_MAX given one time in two (its valid bit set), with a word
// from word(); no PC.
template <class Word>
sfu_regs random_registers(Rng &rng, Word &&word) {
  sfu_regs regs{};
  for (int n = 0; n < SFU_REGS_MAX; n++)
    if (rng.one_in(2)) {
      regs.r[n] = word();
      regs.valid |= 1u << n;
    }
  return regs;
}

// The description of t's encoded section `bytes`, with a text range that just holds every
// function (one byte past the last, as a return address after a final call may point there).
sfu_table_desc describe(const GenTable &t, const std::vector<uint8_t> &bytes);

}  // namespace sfu::test
