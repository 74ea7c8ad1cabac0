// The symbol-table reader: sfu_symbols_init validates a .sfu_symbols section once; lookups are a
// binary search over its fixed-size entries; a name is decoded token by token on a small stack,
// into a buffer or straight into a sink. Layout: docs/symbols.md and symbols/format.h.
#include "config.h"
#include "search.h"
#include "sframe/bytes.h"
#include "sfu/print.h"
#include "sfu/symbols.h"
#include "symbols/format.h"

#if defined(CONFIG_SFU_SYMBOLS)

namespace sfu::symbols {
namespace {

using sframe::Bytes;

// How many token codes come before c: the index of token c's pair. Out of line: a walk never
// runs it, and every caller is one loop.
uint32_t bits_set(uint32_t byte) {
  byte = byte - ((byte >> 1) & 0x55);
  byte = (byte & 0x33) + ((byte >> 2) & 0x33);
  return (byte + (byte >> 4)) & 0x0f;
}
__attribute__((noinline)) uint32_t token_rank(const uint8_t *map, uint8_t c) {
  uint32_t n = bits_set(map[c >> 3] & ((1u << (c & 7)) - 1));
  for (uint32_t i = 0; i < uint32_t(c >> 3); i++) n += bits_set(map[i]);
  return n;
}

Bytes bytes(const sfu_symbols &s) { return Bytes{s.sec, s.table_size, s.big_endian != 0}; }

// Reads inside the table (init checked every offset against table_size first). Out of line:
// the byte-order switch is not worth a copy at every call.
__attribute__((noinline)) uint32_t u32_at(const sfu_symbols &s, uint32_t off) {
  uint32_t v = 0;
  bytes(s).u32(off, v);
  return v;
}
uint32_t entry_at(const sfu_symbols &s, uint32_t i) { return s.entries_at + i * kEntrySize; }
uint64_t start_of(const sfu_symbols &s, uint32_t i) {
  return s.sec_addr + uint64_t(int64_t(int32_t(u32_at(s, entry_at(s, i) + entry::kStart))));
}
uint32_t size_of(const sfu_symbols &s, uint32_t i) { return u32_at(s, entry_at(s, i) + entry::kSize) & entry::kSizeMask; }
uint32_t back_of(const sfu_symbols &s, uint32_t i) { return u32_at(s, entry_at(s, i) + entry::kSize) >> entry::kSizeBits; }
uint32_t prefix_of(const sfu_symbols &s, uint32_t i) { return u32_at(s, entry_at(s, i) + entry::kName) >> entry::kOffsetBits; }
uint32_t name_from(const sfu_symbols &s, uint32_t i) {
  return u32_at(s, entry_at(s, i) + entry::kName) & entry::kOffsetMask;
}
uint32_t name_to(const sfu_symbols &s, uint32_t i) {
  return i + 1 < s.num_symbols ? name_from(s, i + 1) : s.names_size;
}

// Emits at most `limit` characters of entry i's own codes, writing each to out (nothing when
// out is NULL), and counts them in len. Bounded: every pass of the outer loop emits a character
// or fails, and len stops at kNameMax; the inner loop pushes on a stack of kTokenDepth codes or
// fails.
sfu_error decode_own(const sfu_symbols &s, uint32_t i, uint32_t limit, const sfu_sink *out, uint32_t &len) {
  uint32_t from = name_from(s, i), to = name_to(s, i);
  if (to - from > kNameMax) return SFU_E_SYMBOL_NAME_TOO_LONG;  // each code is one character at least
  const uint8_t *names = s.sec + s.names_at, *pairs = s.sec + s.tokens_at;
  uint8_t pending[kTokenDepth];
  uint32_t depth = 0, emitted = 0;
  for (uint32_t at = from; at < to && emitted < limit; at++) {
    uint8_t c = names[at];
    for (;;) {
      while (is_token(s.token_map, c)) {
        if (depth == kTokenDepth) return SFU_E_SYMBOL_TOKENS_TOO_DEEP;
        const uint8_t *pair = pairs + kTokenSize * token_rank(s.token_map, c);
        pending[depth++] = pair[1];
        c = pair[0];
      }
      if (c == 0) return SFU_E_SYMBOL_BAD_NAME;
      if (len == kNameMax) return SFU_E_SYMBOL_NAME_TOO_LONG;
      if (out) (out->putc)(out->ctx, char(c));
      len++;
      if (++emitted == limit || depth == 0) break;
      c = pending[--depth];
    }
  }
  return SFU_OK;
}

// Decodes the name of entry i. It borrows its first prefix(i) characters from entry i - back(i),
// which may borrow in turn: along that chain c0 = i, c1, ..., cM (the last borrows nothing),
// character k comes from the first cm whose prefix is at most k. So cm gives characters
// [prefix(cm), lim) with lim the least prefix of c0..c(m-1), and emitting cM's share, then
// c(M-1)'s, ..., then c0's own codes writes the name in order with no buffer. Bounded: M is at
// most kPrefixDepth, and each share walks the chain again (M^2 / 2 entry reads at most).
sfu_error decode(const sfu_symbols &s, uint32_t i, const sfu_sink *out, uint32_t &len) {
  len = 0;
  uint32_t hops = 0;
  for (uint32_t j = i; back_of(s, j) != 0; j -= back_of(s, j))
    if (++hops > kPrefixDepth) return SFU_E_SYMBOL_PREFIX_TOO_DEEP;
  for (uint32_t m = hops + 1; m-- > 0;) {
    uint32_t j = i, lim = ~0u;
    for (uint32_t k = 0; k < m; k++) {
      uint32_t p = prefix_of(s, j);
      lim = p < lim ? p : lim;
      j -= back_of(s, j);
    }
    uint32_t p = prefix_of(s, j);
    if (lim > p)
      if (sfu_error e = decode_own(s, j, lim == ~0u ? lim : lim - p, out, len)) return e;
  }
  return SFU_OK;
}

sfu_error parse_header(sfu_symbols &s, const sfu_symbols_desc &d) {
  const uint8_t *p = static_cast<const uint8_t *>(d.section);
  if (d.size < 4) return SFU_E_SYMBOLS_TRUNCATED;
  if ((p[0] | p[1] | p[2] | p[3]) == 0) return SFU_E_NO_SYMBOLS;  // a reservation never filled
  bool big;
  if (Bytes{p, 4, true}.load<4>(p) == kMagic)
    big = true;
  else if (Bytes{p, 4, false}.load<4>(p) == kMagic)
    big = false;
  else
    return SFU_E_SYMBOLS_BAD_MAGIC;
  if (d.size < kHeaderSize) return SFU_E_SYMBOLS_TRUNCATED;
  Bytes b{p, uint32_t(d.size), big};
  if (p[hdr::kVersion] != kVersion) return SFU_E_SYMBOLS_BAD_VERSION;
  if ((p[hdr::kFlags] & ~kKnownFlags) || p[hdr::kReserved] || p[hdr::kReserved + 1])
    return SFU_E_SYMBOLS_UNKNOWN_FLAGS;
  uint32_t num = 0, names_size = 0;
  b.u32(hdr::kNumSymbols, num);
  b.u32(hdr::kNamesSize, names_size);
  for (uint32_t i = 0; i < kTokenMapSize; i++) s.token_map[i] = p[hdr::kTokenMap + i];
  // Tokens before code 255, and 255 itself: how many pairs there are.
  uint32_t tokens = token_rank(s.token_map, 255) + is_token(s.token_map, 255);
  uint64_t entries_at = uint64_t(kHeaderSize) + uint64_t(tokens) * kTokenSize;
  uint64_t names_at = entries_at + uint64_t(num) * kEntrySize;
  uint64_t end = names_at + names_size;
  if (end > d.size) return SFU_E_SYMBOLS_TRUNCATED;
  s.sec = p;
  s.sec_addr = d.section_addr;
  s.num_symbols = num;
  s.tokens_at = kHeaderSize;
  s.entries_at = uint32_t(entries_at);
  s.names_at = uint32_t(names_at);
  s.names_size = names_size;
  s.table_size = uint32_t(end);
  s.big_endian = big;
  return SFU_OK;
}

// Each token is made of characters and of tokens defined before it (a lower code), none of
// them NUL: so no token contains itself and every expansion ends.
sfu_error check_tokens(const sfu_symbols &s) {
  const uint8_t *pairs = s.sec + s.tokens_at;
  for (uint32_t c = 0; c < 256; c++) {
    if (!is_token(s.token_map, uint8_t(c))) continue;
    const uint8_t *pair = pairs + kTokenSize * token_rank(s.token_map, uint8_t(c));
    for (uint32_t k = 0; k < kTokenSize; k++) {
      uint8_t part = pair[k];
      if (is_token(s.token_map, part) ? part >= c : part == 0) return SFU_E_SYMBOL_BAD_TOKEN;
    }
  }
  return SFU_OK;
}

sfu_error check_entries(const sfu_symbols &s, const sfu_symbols_desc &d) {
  uint64_t prev_end = 0;
  uint32_t prev_name = 0;
  for (uint32_t i = 0; i < s.num_symbols; i++) {
    uint32_t at = entry_at(s, i);
    uint32_t rel = u32_at(s, at + entry::kStart), size = size_of(s, i);
    uint32_t name = name_from(s, i);
    int64_t delta = int32_t(rel);
    uint64_t start = s.sec_addr + uint64_t(delta);
    bool wraps = (delta < 0) != (start < s.sec_addr) || start + size < start;
    if (wraps || (d.text_end != 0 && (start < d.text_start || start + size > d.text_end)))
      return SFU_E_SYMBOL_OUTSIDE_TEXT;
    if (i > 0 && start <= start_of(s, i - 1)) return SFU_E_SYMBOLS_NOT_SORTED;
    if (i > 0 && start < prev_end) return SFU_E_SYMBOLS_OVERLAP;
    prev_end = start + size;
    // Names follow the entries' order and fill the names exactly: the first at 0, each one
    // non-empty, the last ending at names_size.
    if (i == 0 ? name != 0 : name <= prev_name) return SFU_E_SYMBOL_BAD_NAME_OFFSET;
    if (name >= s.names_size) return SFU_E_SYMBOL_BAD_NAME_OFFSET;
    prev_name = name;
    // A prefix comes from an earlier entry, and only with one to come from.
    uint32_t back = back_of(s, i);
    if (back > i || (back == 0) != (prefix_of(s, i) == 0)) return SFU_E_SYMBOL_BAD_PREFIX;
  }
  if (s.num_symbols == 0 && s.names_size != 0) return SFU_E_SYMBOL_BAD_NAME_OFFSET;
  return SFU_OK;
}

// In entry order, so the name a prefix borrows from has been checked: it must be that long.
sfu_error check_names(const sfu_symbols &s) {
  for (uint32_t i = 0; i < s.num_symbols; i++) {
    uint32_t len;
    if (uint32_t back = back_of(s, i)) {
      if (sfu_error e = decode(s, i - back, nullptr, len)) return e;
      if (prefix_of(s, i) > len) return SFU_E_SYMBOL_BAD_PREFIX;
    }
    if (sfu_error e = decode(s, i, nullptr, len)) return e;
  }
  return SFU_OK;
}

bool usable(const sfu_symbols *s, const sfu_symbol *sym) {
  return s && sym && s->ready && sym->index < s->num_symbols;
}

}  // namespace
}  // namespace sfu::symbols

using namespace sfu::symbols;

extern "C" enum sfu_error sfu_symbols_init(struct sfu_symbols *symbols, const struct sfu_symbols_desc *desc) {
  if (!symbols || !desc) return SFU_E_NULL_ARGUMENT;
  symbols->ready = 0;
  if (!desc->section || desc->size == 0) return SFU_E_NO_SYMBOLS;
  if (desc->size > kMaxSectionSize) return SFU_E_SECTION_TOO_LARGE;
  // Filled in place (no struct copy: that would be a memcpy call on some targets); the view
  // stays closed until every check passed.
  sfu_symbols &s = *symbols;
  if (sfu_error e = parse_header(s, *desc)) return e;
  if (sfu_error e = check_tokens(s)) return e;
  if (sfu_error e = check_entries(s, *desc)) return e;
  if (sfu_error e = check_names(s)) return e;
  s.ready = 1;
  return SFU_OK;
}

extern "C" enum sfu_error sfu_symbols_find(const struct sfu_symbols *symbols, uint64_t pc,
                                           struct sfu_symbol *symbol) {
  if (!symbols || !symbol) return SFU_E_NULL_ARGUMENT;
  if (!symbols->ready) return SFU_E_NOT_INITIALIZED;
  const sfu_symbols &s = *symbols;
  // The last entry starting at or before pc.
  uint32_t lo = sfu::count_starting_at_or_before(s.num_symbols, pc, [&](uint32_t i) { return start_of(s, i); });
  if (lo == 0 || sfu_symbols_entry(symbols, lo - 1, symbol) != SFU_OK) return SFU_E_NO_SYMBOL;
  return pc - symbol->start < symbol->size ? SFU_OK : SFU_E_NO_SYMBOL;
}

extern "C" enum sfu_error sfu_symbols_entry(const struct sfu_symbols *symbols, uint32_t index,
                                            struct sfu_symbol *symbol) {
  if (!symbols || !symbol) return SFU_E_NULL_ARGUMENT;
  if (!symbols->ready) return SFU_E_NOT_INITIALIZED;
  if (index >= symbols->num_symbols) return SFU_E_NO_SYMBOL;
  symbol->start = start_of(*symbols, index);
  symbol->size = size_of(*symbols, index);
  symbol->index = index;
  return SFU_OK;
}

namespace {

// A sink into a caller's buffer, keeping room for the NUL.
struct Buffer {
  char *buf;
  size_t size, used;
};

void buffer_putc(void *ctx, char c) {
  Buffer &b = *static_cast<Buffer *>(ctx);
  if (b.used + 1 < b.size) b.buf[b.used++] = c;
}

}  // namespace

extern "C" size_t sfu_symbol_name(const struct sfu_symbols *symbols, const struct sfu_symbol *symbol,
                                  char *buf, size_t size) {
  if (buf && size) buf[0] = '\0';
  if (!usable(symbols, symbol) || !buf || !size) return 0;
  Buffer b{buf, size, 0};
  sfu_sink into{buffer_putc, &b};
  uint32_t len;
  bool ok = decode(*symbols, symbol->index, &into, len) == SFU_OK;
  buf[ok ? b.used : 0] = '\0';
  return ok ? len : 0;
}

extern "C" size_t sfu_symbol_print_name(const struct sfu_sink *sink, const struct sfu_symbols *symbols,
                                        const struct sfu_symbol *symbol) {
  if (!usable(symbols, symbol)) return 0;
  uint32_t len;
  // A validated view decodes every name: none stops half-printed.
  return decode(*symbols, symbol->index, sink && sink->putc ? sink : nullptr, len) == SFU_OK ? len : 0;
}

#else  // !CONFIG_SFU_SYMBOLS: the calls stay, so a kernel using them still links; nothing is read.

extern "C" enum sfu_error sfu_symbols_init(struct sfu_symbols *symbols, const struct sfu_symbols_desc *desc) {
  if (!symbols || !desc) return SFU_E_NULL_ARGUMENT;
  symbols->ready = 0;
  return !desc->section || desc->size == 0 ? SFU_E_NO_SYMBOLS : SFU_E_SYMBOLS_DISABLED;
}

extern "C" enum sfu_error sfu_symbols_find(const struct sfu_symbols *symbols, uint64_t,
                                           struct sfu_symbol *symbol) {
  return !symbols || !symbol ? SFU_E_NULL_ARGUMENT : SFU_E_NOT_INITIALIZED;
}

extern "C" enum sfu_error sfu_symbols_entry(const struct sfu_symbols *symbols, uint32_t,
                                            struct sfu_symbol *symbol) {
  return !symbols || !symbol ? SFU_E_NULL_ARGUMENT : SFU_E_NOT_INITIALIZED;
}

extern "C" size_t sfu_symbol_name(const struct sfu_symbols *, const struct sfu_symbol *, char *buf,
                                  size_t size) {
  if (buf && size) buf[0] = '\0';
  return 0;
}

extern "C" size_t sfu_symbol_print_name(const struct sfu_sink *, const struct sfu_symbols *,
                                        const struct sfu_symbol *) {
  return 0;
}

#endif
