// Breakpad microdumps: writer and reader (microdump.h).
#include "tools/breakpad/microdump.h"

#include <cstdio>
#include <vector>

#include "tools/breakpad/minidump.h"
#include "tools/text/format.h"

namespace sfu::tools::breakpad {
namespace {

constexpr const char *kPrefix = "google-breakpad: ";
constexpr const char *kKey = "google-breakpad";
constexpr const char *kBegin = "-----BEGIN BREAKPAD MICRODUMP-----";
constexpr const char *kEnd = "-----END BREAKPAD MICRODUMP-----";
constexpr size_t kStackChunk = 384;  // bytes per S line, as Breakpad's writer
// MDRawContextARM64 and the older layout Breakpad still reads (the same x0-x30, sp, pc at 8).
constexpr size_t kOldArm64ContextSize = 796;

std::string hex_of(uint64_t v, int digits) {
  char buf[24];
  snprintf(buf, sizeof buf, "%0*llX", digits, static_cast<unsigned long long>(v));
  return buf;
}


int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// A hex number (an optional 0x, at most 16 digits).
bool parse_hex(const std::string &s, uint64_t &v) {
  size_t at = s.compare(0, 2, "0x") == 0 || s.compare(0, 2, "0X") == 0 ? 2 : 0;
  if (at == s.size() || s.size() - at > 16) return false;
  v = 0;
  for (; at < s.size(); at++) {
    int d = hex_digit(s[at]);
    if (d < 0) return false;
    v = (v << 4) | uint64_t(d);
  }
  return true;
}

// Pairs of hex digits as bytes.
bool parse_hex_bytes(const std::string &s, std::vector<uint8_t> &out) {
  if (s.size() % 2) return false;
  out.clear();
  for (size_t i = 0; i < s.size(); i += 2) {
    int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(uint8_t(hi << 4 | lo));
  }
  return true;
}

// Words split at runs of white space, as an istringstream reads them; `ends` gets where each
// one ends.
std::vector<std::string> words(const std::string &s, std::vector<size_t> *ends = nullptr) {
  std::vector<std::string> out;
  size_t at = 0;
  for (;;) {
    while (at < s.size() && (s[at] == ' ' || s[at] == '\t')) at++;
    if (at == s.size()) return out;
    size_t end = at;
    while (end < s.size() && s[end] != ' ' && s[end] != '\t') end++;
    out.push_back(s.substr(at, end - at));
    if (ends) ends->push_back(end);
    at = end;
  }
}

}  // namespace

std::string write_microdump(const CrashDump &dump) {
  std::string out;
  auto line = [&](const std::string &s) { out += kPrefix + s + "\n"; };
  line(kBegin);
  line("V sfunwind:1");
  line("O L arm64 01 aarch64 " + (dump.os_version.empty() ? std::string("sfunwind crash record") : dump.os_version));
  line("P UNKNOWN");
  std::string reason = dump.crash_reason.empty() ? "UNKNOWN" : dump.crash_reason;
  line("R " + hex_of(dump.signal, 8) + " " + reason + " " + hex_of(dump.crash_address, 16));
  line("G UNKNOWN");
  if (!dump.stacks.empty()) {
    const DumpMemory &s = dump.stacks[0];
    line("S 0 " + hex_of(dump.regs.r[kArm64Sp], 16) + " " + hex_of(s.base, 16) + " " + hex_of(s.bytes.size(), 16));
    for (size_t at = 0; at < s.bytes.size(); at += kStackChunk) {
      size_t n = std::min(kStackChunk, s.bytes.size() - at);
      line("S " + hex_of(s.base + at, 16) + " " + hex_bytes(s.bytes.data() + at, n, true));
    }
  }
  std::vector<uint8_t> context = context_bytes(DumpCpu::kArm64, dump.regs);
  line("C " + hex_bytes(context.data(), context.size(), true));
  for (const DumpModule &m : dump.modules) {
    std::string id = m.debug_id.empty() ? std::string(33, '0') : m.debug_id;
    line("M " + hex_of(m.base, 16) + " " + hex_of(0, 16) + " " + hex_of(m.size, 16) + " " + id + " " + m.name);
  }
  line(kEnd);
  return out;
}

bool looks_like_microdump(const std::string &text) {
  for (size_t at = text.find(kBegin); at != std::string::npos; at = text.find(kBegin, at + 1)) {
    size_t start = text.rfind('\n', at);
    start = start == std::string::npos ? 0 : start + 1;
    size_t end = text.find('\n', at);
    if (text.substr(start, end == std::string::npos ? std::string::npos : end - start).find(kKey) != std::string::npos)
      return true;
  }
  return false;
}

bool read_microdump(const std::string &text, const std::string &name, CrashDump &out, std::string &error) {
  out = CrashDump{};
  out.cpu = DumpCpu::kArm64;
  size_t number = 0;
  auto fail = [&](const std::string &what) {
    error = name + ":" + std::to_string(number) + ": " + what;
    return false;
  };
  bool inside = false, ended = false, have_os = false, have_context = false;
  DumpMemory stack;
  bool have_stack = false;
  for (size_t at = 0; at < text.size() && !ended;) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(at, end - at);
    at = end + 1;
    number++;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find(kKey) == std::string::npos) continue;
    if (line.find(kBegin) != std::string::npos) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.find(kEnd) != std::string::npos) {
      ended = true;
      continue;
    }
    size_t pos;
    if ((pos = line.find(": O ")) != std::string::npos) {
      std::string rest = line.substr(pos + 4);
      std::vector<size_t> ends;
      std::vector<std::string> w = words(rest, &ends);
      if (w.size() < 4) return fail("O needs an OS, a CPU, a CPU count and a hardware name");
      if (w[0] != "L" && w[0] != "A") return fail("O names OS '" + w[0] + "': Linux (L) or Android (A) expected");
      if (w[1] != "arm64") return fail("a microdump of CPU '" + w[1] + "': only arm64 ones are read here");
      // The OS version: what follows the hardware name, less one space.
      out.os_version = ends[3] + 1 < rest.size() ? rest.substr(ends[3] + 1) : "";
      have_os = true;
    } else if ((pos = line.find(": S ")) != std::string::npos) {
      if (line.find(": S 0 ") != std::string::npos) continue;  // SP, start and length: not needed
      std::vector<std::string> w = words(line.substr(pos + 4));
      uint64_t address = 0;
      std::vector<uint8_t> bytes;
      if (w.size() != 2 || !parse_hex(w[0], address) || !parse_hex_bytes(w[1], bytes))
        return fail("S needs an address and hex bytes");
      if (have_stack && address != stack.base + stack.bytes.size())
        return fail("stack bytes at 0x" + hex_of(address, 1) + " do not follow those before (0x" +
                    hex_of(stack.base + stack.bytes.size(), 1) + ")");
      if (!have_stack) stack.base = address, have_stack = true;
      stack.bytes.insert(stack.bytes.end(), bytes.begin(), bytes.end());
    } else if ((pos = line.find(": C ")) != std::string::npos) {
      if (!have_os) return fail("C before any O line names the CPU");
      std::vector<uint8_t> bytes;
      std::vector<std::string> w = words(line.substr(pos + 4));
      if (w.size() != 1 || !parse_hex_bytes(w[0], bytes)) return fail("C needs the context as hex bytes");
      if (bytes.size() != kMdContextArm64Size && bytes.size() != kOldArm64ContextSize)
        return fail("an arm64 context of " + std::to_string(bytes.size()) + " bytes (" +
                    std::to_string(kMdContextArm64Size) + " expected)");
      for (int i = 0; i < kDumpRegs; i++) {
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--) v = (v << 8) | bytes[8 + 8 * size_t(i) + size_t(k)];
        out.regs.r[i] = v;
      }
      out.regs.valid = (uint64_t(1) << kDumpRegs) - 1;
      have_context = true;
    } else if ((pos = line.find(": R ")) != std::string::npos) {
      std::vector<std::string> w = words(line.substr(pos + 4));
      uint64_t signal = 0;
      if (w.size() < 3 || !parse_hex(w[0], signal) || !parse_hex(w[2], out.crash_address))
        return fail("R needs a signal number, its name and an address");
      out.signal = uint32_t(signal);
      out.crash_reason = w[1];
    } else if ((pos = line.find(": G ")) != std::string::npos) {
      // The GPU: nothing a walk needs.
    } else if ((pos = line.find(": M ")) != std::string::npos) {
      std::vector<std::string> w = words(line.substr(pos + 4));
      DumpModule m;
      uint64_t offset = 0;
      if (w.size() < 5 || !parse_hex(w[0], m.base) || !parse_hex(w[1], offset) || !parse_hex(w[2], m.size))
        return fail("M needs a base, an offset, a size, a module id and a name");
      m.debug_id = w[3];
      m.name = w[4];
      m.text_start = m.base;
      m.text_end = m.base + m.size;
      m.base_is_load_address = true;
      // Breakpad keeps the first of overlapping modules (and none of size 0).
      bool overlaps = m.size == 0 || m.base + m.size < m.base;
      for (const DumpModule &o : out.modules)
        if (m.base < o.base + o.size && o.base < m.base + m.size) overlaps = true;
      if (!overlaps) out.modules.push_back(m);
    }
  }
  if (!inside) return (error = name + ": no microdump (no line with google-breakpad and " + kBegin + ")", false);
  if (!ended) return (error = name + ": the microdump has no end marker (" + kEnd + "): cut short?", false);
  if (!have_context) return (error = name + ": the microdump has no C (CPU context) line", false);
  if (have_stack) out.stacks.push_back(std::move(stack));
  return true;
}

}  // namespace sfu::tools::breakpad
