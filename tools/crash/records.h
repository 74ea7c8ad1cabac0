// Crash records in what `sfu crash` is given: the bytes of a record as captured (a dump of the
// area), or a serial log holding records sfu_crash_print wrote, each rebuilt from its checksummed
// data lines (docs/crash-record.md, "Text form"). Only the text is checked here; the record
// itself is checked by the core's sfu_crash_open, the one implementation of those checks.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace sfu::tools::crash {

struct FoundRecord {
  std::string where;           // "log.txt:12-40" (its begin to end line) or the file name
  std::vector<uint8_t> bytes;  // the record's bytes; empty when `problem` is set
  std::string problem;         // why it could not be rebuilt, naming the line; "" when fine
  // Lines inside the record that were skipped, "line N: what it was": a marker line that does
  // not check (a forged or damaged begin, data or end line), a data line repeated with other
  // contents. The record decodes without them; a command shows them.
  std::vector<std::string> notes;
};

// Every record in `input`, in order. `name` is the file's name for the messages. A file that
// starts with the record magic is one binary record (trailing bytes of the area included); any
// other is read as a log. Returns false with `error` when the input holds no record at all.
bool find_records(const std::vector<uint8_t> &input, const std::string &name, std::vector<FoundRecord> &out,
                  std::string &error);

// Base64 (RFC 4648, with '=' padding) of `text` appended to `out`; false on any other character,
// misplaced padding, or a length that is not a multiple of 4.
bool base64_decode(const std::string &text, std::vector<uint8_t> &out);

}  // namespace sfu::tools::crash
