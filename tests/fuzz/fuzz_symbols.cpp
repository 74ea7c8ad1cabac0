// Fuzzing the symbol-table reader and the build-id note parser (mode bit 6 of fuzz_sframe.cpp's
// input): arbitrary bytes as a .sfu_symbols section and as a note section. Every call must return
// a named error; a table the reader accepts must keep every promise include/sfu/symbols.h makes:
// entries sorted, not overlapping, inside the text range; every name decodes within its limit,
// the same into a buffer and into a sink; a lookup finds exactly the entry covering the PC.
//
// Input layout (tests/fuzz/run.sh writes seeds so, from tests/fuzz/symbols-seeds/):
//   [0]      mode: 0x40 set; bit 0 check a text range; bit 1 read the note big-endian
//   [1, 9)   section address, little-endian
//   [9, 13)  text start, as a distance below the section address
//   [13, 17) text length
//   [17, 25) a PC to look up
//   then the section (copied into an allocation of exactly its size)
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>

#include "fuzz/fuzz_common.h"
#include "sfu/print.h"
#include "sfu/symbols.h"

namespace {

constexpr size_t kParamBytes = 25;
constexpr uint32_t kMaxChecked = 2048;  // entries checked one by one: keeps one input's work bounded

using sfu::fuzz::die;
using sfu::fuzz::le;
using sfu::fuzz::require_named;

std::string sink_name(const sfu_symbols &s, const sfu_symbol &sym, size_t &len) {
  std::string out;
  sfu_sink sink{[](void *ctx, char c) { static_cast<std::string *>(ctx)->push_back(c); }, &out};
  len = sfu_symbol_print_name(&sink, &s, &sym);
  return out;
}

void check_accepted(const sfu_symbols &s, uint64_t text_start, uint64_t text_end, uint64_t pc) {
  uint32_t n = s.num_symbols < kMaxChecked ? s.num_symbols : kMaxChecked;
  sfu_symbol prev{};
  int64_t covering = -1;  // the entry covering pc, by a linear scan
  for (uint32_t i = 0; i < n; i++) {
    sfu_symbol sym;
    if (sfu_symbols_entry(&s, i, &sym) != SFU_OK || sym.index != i) die("an entry unreadable", i, SFU_OK);
    if (text_end && (sym.start < text_start || sym.start + sym.size > text_end)) die("entry outside text", sym.start, SFU_OK);
    if (sym.start + sym.size < sym.start) die("entry wraps", sym.start, SFU_OK);
    if (i > 0 && (sym.start <= prev.start || prev.start + prev.size > sym.start)) die("entries unsorted", sym.start, SFU_OK);
    if (pc >= sym.start && pc - sym.start < sym.size) covering = i;
    char buf[SFU_SYMBOL_NAME_MAX + 1];
    size_t len = sfu_symbol_name(&s, &sym, buf, sizeof buf), sunk;
    if (len == 0 || len > SFU_SYMBOL_NAME_MAX || strlen(buf) != len) die("a name undecodable", sym.start, SFU_OK);
    if (sink_name(s, sym, sunk) != buf || sunk != len) die("sink and buffer names differ", sym.start, SFU_OK);
    for (uint64_t at : {sym.start, sym.start + sym.size - 1}) {
      sfu_symbol found;
      if (sym.size && (sfu_symbols_find(&s, at, &found) != SFU_OK || found.index != i))
        die("an entry's own address finds another", at, SFU_OK);
    }
    prev = sym;
  }
  if (s.num_symbols > n) return;  // too big to compare with a full scan
  sfu_symbol found;
  sfu_error e = sfu_symbols_find(&s, pc, &found);
  require_named(e, "sfu_symbols_find");
  if (covering < 0 ? e != SFU_E_NO_SYMBOL : (e != SFU_OK || found.index != uint32_t(covering)))
    die("lookup disagrees with a scan", pc, e);
}

}  // namespace

void fuzz_symbols(const uint8_t *data, size_t size) {
  uint8_t params[kParamBytes] = {};
  memcpy(params, data, size < kParamBytes ? size : kParamBytes);
  size_t n = size > kParamBytes ? size - kParamBytes : 0;
  uint8_t *section = new uint8_t[n ? n : 1];
  if (n) memcpy(section, data + kParamBytes, n);
  uint64_t addr = le(params + 1, 8);
  uint64_t text_start = addr - le(params + 9, 4);
  uint64_t text_end = (params[0] & 1) ? text_start + le(params + 13, 4) : 0;
  uint64_t pc = le(params + 17, 8);

  sfu_symbols s;
  memset(&s, 0xa5, sizeof s);
  sfu_symbols_desc d{n ? section : nullptr, n, addr, text_start, text_end};
  sfu_error e = sfu_symbols_init(&s, &d);
  require_named(e, "sfu_symbols_init");
  if (e == SFU_OK) {
    check_accepted(s, text_start, text_end, pc);
  } else {
    sfu_symbol sym;
    if (sfu_symbols_find(&s, pc, &sym) != SFU_E_NOT_INITIALIZED) die("a refused table answers lookups", pc, e);
  }

  const uint8_t *id = nullptr;
  uint32_t id_size = 0;
  e = sfu_build_id_from_note(n ? section : nullptr, n, (params[0] >> 1) & 1, &id, &id_size);
  require_named(e, "sfu_build_id_from_note");
  if (e == SFU_OK && (id < section || id_size == 0 || id_size > SFU_BUILD_ID_MAX || id + id_size > section + n))
    die("a build-id outside the note", 0, e);
  if (e != SFU_OK && (id || id_size)) die("a refused note gives an id", 0, e);
  delete[] section;
}
