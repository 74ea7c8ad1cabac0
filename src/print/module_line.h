// The module line both printers write (sfu/print.h): a backtrace before the first frame of each
// module it reaches, a crash record's readable trace for each module it lists. It is what a host
// needs to name frames of an image that runs away from its link address: where the module's text
// ran and which build it was.
#pragma once

#include "sfu/print.h"

namespace sfu::print {

// "module N NAME 0xSTART-0xEND build-id HEX\n", or "... no build-id\n" without one. The name is
// printed up to name_max bytes (at least 9), "(unnamed)" when empty or NULL, anything but printable ASCII as
// '?' (so a name can neither end the line early nor send control codes to the console).
void module_line(const sfu_sink *sink, uint64_t index, const char *name, uint32_t name_max, uint64_t text_start,
                 uint64_t text_end, const uint8_t *build_id, uint32_t build_id_size);

// Text as above: printable ASCII as it is, anything else '?', at most max bytes. Every name a
// backtrace or a crash record prints goes through it (or through Cleaning): a module's name, a
// function's name, a record's message, so none can start a line of its own (a forged
// "sfu-crash-end" inside a printed record) or send an escape sequence to the console.
void print_clean(const sfu_sink *sink, const char *s, uint32_t max);

// A module's name as both lines print it: clean (print_clean), at most max bytes, "(unnamed)" when
// NULL or empty.
void print_module_name(const sfu_sink *sink, const char *name, uint32_t max);

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

}  // namespace sfu::print
