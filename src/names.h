// Names kept as one block of NUL-terminated strings, the i-th found by counting NULs: no table of
// pointers (8 bytes a name on 64-bit, more than a third of the names' own size). Only printing
// asks for a name, so the scan's cost does not matter.
#pragma once

namespace sfu {

// The i-th name of `block`; i must be below the number of names in it.
inline const char *nth_name(const char *block, unsigned i) {
  const char *p = block;
  for (; i > 0; i--)
    while (*p++) {
    }
  return p;
}

// Without the names (CONFIG_SFU_NAMES=n): codes of 4 bytes each, a letter and the value in
// decimal ("E4", "S12"), built at compile time; the last, for a value past the list, is the
// letter and '?'. A quarter of the names' bytes, and the host tool reads them back.
template <unsigned N>
struct Codes {
  char code[N + 1][4];
};

template <unsigned N>
constexpr Codes<N> make_codes(char letter) {
  static_assert(N <= 100, "codes have at most two digits");
  Codes<N> c{};
  for (unsigned i = 0; i <= N; i++) {
    c.code[i][0] = letter;
    if (i == N) {
      c.code[i][1] = '?';
    } else if (i < 10) {
      c.code[i][1] = char('0' + i);
    } else {
      c.code[i][1] = char('0' + i / 10);
      c.code[i][2] = char('0' + i % 10);
    }
  }
  return c;
}

}  // namespace sfu
