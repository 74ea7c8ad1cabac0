// The module line both printers write (sfu/print.h): a backtrace before the first frame of each
// module it reaches, a crash record's readable trace for each module it lists. It is what a host
// needs to name frames of an image that runs away from its link address: where the module's text
// ran and which build it was.
#pragma once

#include "call_levels.h"
#include "config.h"
#include "sfu/print.h"

namespace sfu::print {

// Text as above: printable ASCII as it is, anything else '?', at most max bytes. Every name a
// backtrace or a crash record prints goes through it (or through Cleaning): a module's name, a
// function's name, a record's message, so none can start a line of its own (a forged
// "sfu-crash-end" inside a printed record) or send an escape sequence to the console.
void print_clean(const sfu_sink *sink, const char *s, uint32_t max);

// A module's name as both lines print it: clean (print_clean), at most max bytes, "(unnamed)" when
// NULL or empty.
void print_module_name(const sfu_sink *sink, const char *name, uint32_t max);

// What a printed name shows for c: printable ASCII as it is, anything else '?'.
inline char clean_char(char c) { return c >= 0x20 && c < 0x7f ? c : '?'; }

// A line from a template: its characters as they are, but for the codes below, each printing the
// next of `values` (two for kName and kHexBytes). One call and one array for a whole line, where
// a call per field costs each field's arguments at every call (half of a line's code).
inline constexpr char kHex16 = 1;     // 16 lowercase hex digits (SFU_L_HEX16 puts "0x" before)
inline constexpr char kDec = 2;       // unsigned decimal
inline constexpr char kStr = 3;       // a string (not NULL), up to SFU_PRINT_STR_MAX bytes
inline constexpr char kName = 4;      // a name and its most bytes: as print_module_name prints it
inline constexpr char kHexBytes = 5;  // a pointer and a count: the bytes as lowercase hex
// The same codes as string pieces, for templates put together by concatenation (octal escapes of
// three digits, so that a digit after one is a character of its own).
#define SFU_L_HEX16 "0x\001"
#define SFU_L_DEC "\002"
#define SFU_L_STR "\003"
#define SFU_L_NAME "\004"
#define SFU_L_HEX_BYTES "\005"
void print_line(const sfu_sink *sink, const char *tmpl, const uint64_t *values);

// A pointer as one of print_line's values.
inline uint64_t value_of(const void *p) { return uint64_t(uintptr_t(p)); }

// One character through the formatter (sfu_print_str's checks of the sink included).
void put_char(const sfu_sink *sink, char c);

// A sink that passes printable ASCII on to `out` and '?' for anything else, for text printed by
// a call that takes a sink (a symbol's name, decoded straight into it). Nothing when out or its
// putc is NULL.
struct Cleaning {
  explicit Cleaning(const sfu_sink *out);
  Cleaning(const Cleaning &) = delete;  // sink.ctx points at this one
  Cleaning &operator=(const Cleaning &) = delete;
  const sfu_sink *out;
  sfu_sink sink;
};

// "module N NAME 0xSTART-0xEND build-id HEX\n", or "... no build-id\n" without one. The name is
// printed up to name_max bytes (at least 9), "(unnamed)" when empty or NULL, anything but printable ASCII as
// '?' (so a name can neither end the line early nor send control codes to the console).
// Built for size, inline: a call would pass 8 arguments (2 on the stack on s390x) only to put them
// in an array; otherwise a call, its array off the caller's stack (a backtrace's walk runs below it).
SFU_SIZE_INLINE void module_line(const sfu_sink *sink, uint64_t index, const char *name, uint32_t name_max,
                        uint64_t text_start, uint64_t text_end, const uint8_t *build_id, uint32_t build_id_size) {
  // Without CONFIG_SFU_BUILD_ID no module has one (registration reads no note, a record keeps none):
  // the line without one reads the first five values only, and the last two are not stored.
  const bool id = config::kBuildId && build_id && build_id_size;
  uint64_t values[7];
  values[0] = index;
  values[1] = value_of(name);
  values[2] = name_max;
  values[3] = text_start;
  values[4] = text_end;
  if (id) {
    values[5] = value_of(build_id);
    values[6] = build_id_size;
  }
  print_line(sink,
             id
                 ? "module " SFU_L_DEC " " SFU_L_NAME " " SFU_L_HEX16 "-" SFU_L_HEX16 " build-id " SFU_L_HEX_BYTES "\n"
                 : "module " SFU_L_DEC " " SFU_L_NAME " " SFU_L_HEX16 "-" SFU_L_HEX16 " no build-id\n",
             values);
}

}  // namespace sfu::print
