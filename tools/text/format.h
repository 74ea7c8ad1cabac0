// Numbers as the host tools write and read them: "0x1f" hex, build-ids as bytes of hex, and
// address arguments (hex with 0x, or decimal; never octal). One spelling for every command.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace sfu::tools {

// "0x1f": lowercase hex, no padding.
std::string hex(uint64_t v);

// "00ab12...": two lowercase hex digits per byte (a build-id as readelf and the device print it);
// uppercase as Breakpad writes ids and microdumps.
std::string hex_bytes(const uint8_t *p, size_t n, bool upper = false);

// An address: hex with 0x (or 0X), or decimal, the whole string a number that fits 64 bits; a
// leading 0 is decimal (never octal), a sign, blank or trailing character is not a number.
bool parse_address(const std::string &s, uint64_t &out);

}  // namespace sfu::tools
