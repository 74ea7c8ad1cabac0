// libFuzzer target: arbitrary bytes as an .sframe section, opened, looked up, validated and
// looked up again. Every call must return a named error; rows must be sane; a table validation
// accepted must answer consistently with its own FDEs. Any breach aborts, which libFuzzer
// records as a crash with the input that caused it.
//
// Input layout: kParamBytes of parameters, then the section (copied into an allocation of
// exactly its size, so ASan sees any read past it).
//   [0]      mode: bit 0 check a text range; bits 1-3 the ABI asked for (5-7: none exists);
//            bit 7: not a section but a crash record or log, for fuzz_crash.cpp;
//            bit 6 (bit 7 clear): a symbol table and a build-id note, for fuzz_symbols.cpp;
//            bit 5 (bits 6-7 clear): an image's DWARF debug sections, for fuzz_dwarf.cpp;
//            bit 4 (bits 5-7 clear): a Breakpad .sym file or microdump, for fuzz_breakpad.cpp
//   [1, 9)   section address, little-endian
//   [9, 13)  text start, as a distance below the section address
//   [13, 17) text length
//   [17, 25) a PC to look up
//   [25, 33) two more PCs, as signed 32-bit distances from the section address
// tests/fuzz/run.sh writes seeds in this layout from the conformance corpus.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <initializer_list>
#include <vector>

#include "config.h"
#include "fuzz/fuzz_common.h"
#include "sframe/index.h"
#include "sfu/sframe.h"
#include "support/error_classes.h"

namespace {

constexpr size_t kParamBytes = 33;
constexpr uint32_t kMaxProbedFdes = 1024;  // keeps one input's work bounded
constexpr size_t kMaxIndexBytes = 1u << 20;  // text beyond that is looked up without an index
constexpr uint64_t kMaxSweptText = 4096;     // every PC of a text this short is looked up

using sfu::fuzz::die;
using sfu::fuzz::le;
using sfu::fuzz::require_named;

// One FDE's function, read straight from the bytes the opened table points at.
struct Func {
  uint64_t start;
  uint32_t size;
  bool covers(uint64_t pc) const { return pc >= start && pc - start < size; }
};

uint64_t field(const sfu_table &t, uint32_t at, unsigned n) {
  uint64_t v = 0;
  for (unsigned i = 0; i < n; i++) v = (v << 8) | t.sec[at + (t.big_endian ? i : n - 1 - i)];
  return v;
}

Func func_at(const sfu_table &t, uint32_t i) {
  uint32_t at = t.fdes_at + i * t.fde_size;  // open checked the FDE array is inside the section
  bool v3 = t.version == 3;
  int64_t rel = v3 ? int64_t(field(t, at, 8)) : int64_t(int32_t(uint32_t(field(t, at, 4))));
  uint64_t base = t.sec_addr + ((t.flags & SFU_F_FDE_FUNC_START_PCREL) ? at : 0);
  return Func{base + uint64_t(rel), uint32_t(field(t, at + (v3 ? 8 : 4), 4))};
}

struct Run {
  const sfu_table &t;
  bool validated;
  uint64_t text_start, text_end;
  const sfu_table *indexed = nullptr;  // the same table with a block index, if it has one

  void find(uint64_t pc) {
    sfu_row row;
    memset(&row, 0x77, sizeof row);
    sfu_error e = sfu_table_find(&t, pc, &row);
    require_named(e, "sfu_table_find");
    if (e != SFU_OK && !sfu::test::is_lookup_error(e)) die("lookup gave a table-level error", pc, e);
    bool in_text = text_end == 0 || (pc >= text_start && pc < text_end);
    if (!in_text && e != SFU_E_NO_FUNCTION) die("pc outside text found something", pc, e);
    if (e == SFU_OK)
      if (const char *why = sfu::test::row_problem(t, pc, row)) die(why, pc, e);
    if (indexed) same_through_the_index(pc, e, row, in_text);
    if (!validated) return;
    if (e != SFU_OK && e != SFU_E_NO_FUNCTION && e != SFU_E_NO_ROW) die("validated table gave a record error", pc, e);
    if (!in_text) return;
    // The function found must be one of the table's, and one is found iff one covers pc.
    bool sorted = t.flags & SFU_F_FDE_SORTED;
    uint32_t n = t.num_fdes < kMaxProbedFdes ? t.num_fdes : kMaxProbedFdes;
    if (t.num_fdes > n) return;  // too big to check exhaustively
    bool covered = false, named = e != SFU_OK;
    Func last{0, 0};
    bool any_before = false;
    for (uint32_t i = 0; i < n; i++) {
      Func f = func_at(t, i);
      if (f.start <= pc) last = f, any_before = true;
      if (!sorted && f.covers(pc)) {
        covered = true;
        if (e == SFU_OK && f.start == row.func_start && f.size == row.func_size) named = true;
      }
    }
    if (sorted) {
      covered = any_before && last.covers(pc);
      named = e != SFU_OK || (last.start == row.func_start && last.size == row.func_size);
    }
    if (covered != (e != SFU_E_NO_FUNCTION)) die("function found iff one covers pc: broken", pc, e);
    if (!named) die("row names a function the table does not have there", pc, e);
  }

  // The indexed table answers as this one: the search through first_fde exactly (validated: the
  // functions' starts rise, so the narrowed search is the whole one), the bucket with exactly the
  // row's rules and flags, or no row, or not at all (always, for a table only opened).
  void same_through_the_index(uint64_t pc, sfu_error e, const sfu_row &row, bool in_text) {
    sfu_row again;
    memset(&again, 0x77, sizeof again);
    sfu_error e2 = sfu_table_find(indexed, pc, &again);
    require_named(e2, "sfu_table_find (indexed)");
    if (validated && (e2 != e || (e == SFU_OK && !sfu::test::same_row_exactly(row, again))))
      die("the index changed what sfu_table_find finds", pc, e2);
    if (!in_text || text_end == 0) return;
    sfu_row fast;
    memset(&fast, 0x77, sizeof fast);
    sfu::sframe::IndexAnswer a = sfu::sframe::find_in_index(*indexed, pc, fast);
    if (a != sfu::sframe::IndexAnswer::kSearch && !validated) die("a table only opened has described blocks", pc, e);
    if (a == sfu::sframe::IndexAnswer::kNoRow && e != SFU_E_NO_FUNCTION && e != SFU_E_NO_ROW)
      die("the index says no row where there is one", pc, e);
    if (a == sfu::sframe::IndexAnswer::kRow &&
        (e != SFU_OK || !sfu::sframe::same_rules(fast, row) || fast.flags != row.flags))
      die("the index gives another row", pc, e);
  }

  // The given PCs, every PC of a short text, then each function's edges, and the start of each
  // row found.
  void sweep(const uint64_t *pcs, size_t npcs) {
    for (size_t i = 0; i < npcs; i++) find(pcs[i]);
    if (text_end > text_start && text_end - text_start <= kMaxSweptText)
      for (uint64_t pc = text_start; pc < text_end; pc++) find(pc);
    uint32_t n = t.num_fdes < kMaxProbedFdes ? t.num_fdes : kMaxProbedFdes;
    for (uint32_t i = 0; i < n; i++) {
      Func f = func_at(t, i);
      uint64_t end = f.start + f.size;
      for (uint64_t pc : {f.start - 1, f.start, f.start + 1, end - 1, end, end + 1}) find(pc);
      sfu_row row, again;
      if (sfu_table_find(&t, end - 1, &row) != SFU_OK) continue;
      uint64_t row_pc = row.func_start + row.row_start;
      find(row_pc);
      // A validated sorted table: the row's own start PC gives the very same row.
      bool sorted = t.flags & SFU_F_FDE_SORTED;
      if (validated && sorted && !(row.flags & SFU_ROW_PCMASK) &&
          (sfu_table_find(&t, row_pc, &again) != SFU_OK || !sfu::test::same_row_exactly(row, again)))
        die("a row's start pc gives another row", row_pc, SFU_OK);
    }
  }
};

}  // namespace

void fuzz_crash(const uint8_t *data, size_t size);    // fuzz_crash.cpp
void fuzz_symbols(const uint8_t *data, size_t size);  // fuzz_symbols.cpp
void fuzz_dwarf(const uint8_t *data, size_t size);    // fuzz_dwarf.cpp
void fuzz_breakpad(const uint8_t *data, size_t size);  // fuzz_breakpad.cpp

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // Mode bit 7: a crash record or a serial log (fuzz_crash.cpp), not a section.
  if (size && (data[0] & 0x80)) {
    fuzz_crash(data, size);
    return 0;
  }
  if (size && (data[0] & 0x40)) {
    fuzz_symbols(data, size);
    return 0;
  }
  if (size && (data[0] & 0x20)) {
    fuzz_dwarf(data, size);
    return 0;
  }
  if (size && (data[0] & 0x10)) {
    fuzz_breakpad(data, size);
    return 0;
  }
  uint8_t params[kParamBytes] = {};
  memcpy(params, data, size < kParamBytes ? size : kParamBytes);
  size_t n = size > kParamBytes ? size - kParamBytes : 0;
  uint8_t *section = new uint8_t[n];
  if (n) memcpy(section, data + kParamBytes, n);

  uint64_t sec_addr = le(params + 1, 8);
  uint64_t text_start = sec_addr - le(params + 9, 4);
  uint64_t text_end = (params[0] & 1) ? text_start + le(params + 13, 4) : 0;
  sfu_table_desc desc;
  desc.section = section;
  desc.size = n;
  desc.section_addr = sec_addr;
  desc.text_start = text_start;
  desc.text_end = text_end;
  desc.abi = uint8_t((params[0] >> 1) & 7);
  uint64_t pcs[] = {le(params + 17, 8),
                    sec_addr + uint64_t(int64_t(int32_t(le(params + 25, 4)))),
                    sec_addr + uint64_t(int64_t(int32_t(le(params + 29, 4)))),
                    0,
                    ~0ull,
                    text_start,
                    text_end - 1,
                    text_end};

  sfu_table opened;
  memset(&opened, 0xa5, sizeof opened);
  sfu_error e_open = sfu_table_open(&opened, &desc);
  require_named(e_open, "sfu_table_open");
  sfu_row row;
  sfu_error e_val = e_open;
  if (e_open != SFU_OK) {
    if (sfu_table_find(&opened, 0, &row) != SFU_E_NOT_INITIALIZED) die("refused table answers lookups", 0, e_open);
  } else {
    // Each table also with a block index, where its text has one of a size worth fuzzing.
    size_t index_bytes = sfu_index_size(&desc);
    std::vector<uint64_t> index_memory(index_bytes <= kMaxIndexBytes ? (index_bytes + 7) / 8 : 0);
    sfu_table indexed;  // a copy of the table being swept, given the index (one at a time)
    auto with_index = [&](const sfu_table &t) -> const sfu_table * {
      if (index_memory.empty()) return nullptr;
      indexed = t;
      sfu_error e = sfu_table_index(&indexed, index_memory.data(), index_memory.size() * 8);
      require_named(e, "sfu_table_index");
      if (e != SFU_OK) die("index memory of sfu_index_size refused", 0, e);
      return &indexed;
    };
    Run{opened, false, text_start, text_end, with_index(opened)}.sweep(pcs, sizeof pcs / sizeof pcs[0]);
    sfu_table validated = opened;
    e_val = sfu_table_validate(&validated);
    require_named(e_val, "sfu_table_validate");
    if (e_val == SFU_OK)
      Run{validated, true, text_start, text_end, with_index(validated)}.sweep(pcs, sizeof pcs / sizeof pcs[0]);
    else if (sfu_table_find(&validated, 0, &row) != SFU_E_NOT_INITIALIZED)
      die("table validation refused answers lookups", 0, e_val);
  }

  // init is open followed, when configured, by validate.
  sfu_table inited;
  sfu_error e_init = sfu_table_init(&inited, &desc);
  require_named(e_init, "sfu_table_init");
  sfu_error want = e_open != SFU_OK ? e_open : sfu::config::kValidateOnRegister ? e_val : SFU_OK;
  if (e_init != want) die("init disagrees with open + validate", 0, e_init);

  delete[] section;
  return 0;
}
