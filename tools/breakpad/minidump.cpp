// The minidump writer (minidump.h).
#include "tools/breakpad/minidump.h"

#include <string>

#include "tools/text/bytes.h"

namespace sfu::tools::breakpad {
namespace {

enum : uint32_t {
  kThreadListStream = 3, kModuleListStream = 4, kMemoryListStream = 5, kExceptionStream = 6,
  kSystemInfoStream = 7, kCommentStreamA = 10,
};
constexpr uint16_t kArchAmd64 = 9, kArchArm64 = 12;
constexpr uint32_t kThreadId = 1;
constexpr uint32_t kModuleSize = 108, kThreadSize = 48, kSystemInfoSize = 56, kExceptionStreamSize = 168;
constexpr const char *kCsdVersion = "sfunwind crash record";

// Little-endian bytes, written at the end or patched in place.
class Bytes {
 public:
  size_t size() const { return b_.size(); }
  size_t grow(size_t n) {
    size_t at = b_.size();
    b_.resize(at + n, 0);
    return at;
  }
  void align() { b_.resize((b_.size() + 7) & ~size_t(7), 0); }
  void put(size_t at, uint64_t v, unsigned n) { put_bytes(b_, at, v, n, false); }
  void u16(size_t at, uint16_t v) { put(at, v, 2); }
  void u32(size_t at, uint32_t v) { put(at, v, 4); }
  void u64(size_t at, uint64_t v) { put(at, v, 8); }
  size_t append(const std::vector<uint8_t> &v) {
    size_t at = grow(v.size());
    std::copy(v.begin(), v.end(), b_.begin() + long(at));
    return at;
  }
  std::vector<uint8_t> take() { return std::move(b_); }

 private:
  std::vector<uint8_t> b_;
};

// UTF-8 to UTF-16 code units; a byte that starts no valid sequence becomes U+FFFD.
std::vector<uint16_t> utf16(const std::string &s) {
  std::vector<uint16_t> out;
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    uint32_t cp = 0xfffd;
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    bool ok = n > 0 && i + n <= s.size();
    if (ok) {
      cp = n == 1 ? c : c & (0x7f >> n);
      for (size_t k = 1; k < n; k++) {
        unsigned char d = static_cast<unsigned char>(s[i + k]);
        if ((d & 0xc0) != 0x80) ok = false;
        cp = (cp << 6) | (d & 0x3f);
      }
    }
    if (!ok) cp = 0xfffd, n = 1;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(uint16_t(0xd800 + (cp >> 10)));
      out.push_back(uint16_t(0xdc00 + (cp & 0x3ff)));
    } else {
      out.push_back(uint16_t(cp));
    }
    i += n;
  }
  return out;
}

// An MDString: its length in bytes, the UTF-16 units, a 0 unit. Returns its offset.
uint32_t put_string(Bytes &b, const std::string &s) {
  b.align();
  std::vector<uint16_t> units = utf16(s);
  size_t at = b.grow(4 + 2 * units.size() + 2);
  b.u32(at, uint32_t(2 * units.size()));
  for (size_t i = 0; i < units.size(); i++) b.u16(at + 4 + 2 * i, units[i]);
  return uint32_t(at);
}

// Offsets of the x86_64 registers in MDRawContextAMD64, by DWARF number (16: rip).
constexpr uint32_t kAmd64Offsets[17] = {0x78, 0x88, 0x80, 0x90, 0xa8, 0xb0, 0xa0, 0x98, 0xb8,
                                        0xc0, 0xc8, 0xd0, 0xd8, 0xe0, 0xe8, 0xf0, 0xf8};

}  // namespace

std::vector<uint8_t> context_bytes(DumpCpu cpu, const DumpRegisters &regs) {
  Bytes b;
  if (cpu == DumpCpu::kAmd64) {
    b.grow(kMdContextAmd64Size);
    b.u32(0x30, kMdContextAmd64Flags);
    for (int i = 0; i < 17; i++) b.u64(kAmd64Offsets[i], regs.r[i]);
  } else {
    b.grow(kMdContextArm64Size);
    b.u32(0, kMdContextArm64Flags);
    for (int i = 0; i < 33; i++) b.u64(8 + 8 * size_t(i), regs.r[i]);
  }
  return b.take();
}

std::vector<uint8_t> write_minidump(const CrashDump &dump) {
  Bytes b;
  const bool comment = !dump.message.empty();
  const uint32_t streams = comment ? 6 : 5;
  b.grow(32);
  b.u32(0, kMdSignature);
  b.u32(4, kMdVersion);
  b.u32(8, streams);
  b.u32(12, 32);
  size_t dir = b.grow(12 * streams);
  uint32_t next_entry = 0;
  auto entry = [&](uint32_t type, size_t at, size_t size) {
    size_t e = dir + 12 * next_entry++;
    b.u32(e, type);
    b.u32(e + 4, uint32_t(size));
    b.u32(e + 8, uint32_t(at));
  };

  // The context and the stacks first: the thread list and the memory list point at them.
  b.align();
  std::vector<uint8_t> context = context_bytes(dump.cpu, dump.regs);
  size_t context_at = b.append(context);
  std::vector<size_t> stack_at;
  for (const DumpMemory &m : dump.stacks) {
    b.align();
    stack_at.push_back(b.append(m.bytes));
  }

  b.align();
  size_t threads = b.grow(4 + kThreadSize);
  b.u32(threads, 1);
  b.u32(threads + 4, kThreadId);
  if (!dump.stacks.empty()) {
    b.u64(threads + 4 + 24, dump.stacks[0].base);
    b.u32(threads + 4 + 32, uint32_t(dump.stacks[0].bytes.size()));
    b.u32(threads + 4 + 36, uint32_t(stack_at[0]));
  }
  b.u32(threads + 4 + 40, uint32_t(context.size()));
  b.u32(threads + 4 + 44, uint32_t(context_at));
  entry(kThreadListStream, threads, 4 + kThreadSize);

  // Module names and CodeView records, then the list that points at them.
  std::vector<uint32_t> name_at, cv_at, cv_size;
  for (const DumpModule &m : dump.modules) {
    name_at.push_back(put_string(b, m.name));
    b.align();
    cv_at.push_back(m.build_id.empty() ? 0 : uint32_t(b.size()));
    cv_size.push_back(m.build_id.empty() ? 0 : uint32_t(4 + m.build_id.size()));
    if (!m.build_id.empty()) {
      b.u32(b.grow(4), kMdCvElfSignature);
      b.append(m.build_id);
    }
  }
  b.align();
  size_t modules = b.grow(4 + kModuleSize * dump.modules.size());
  b.u32(modules, uint32_t(dump.modules.size()));
  for (size_t i = 0; i < dump.modules.size(); i++) {
    size_t at = modules + 4 + kModuleSize * i;
    b.u64(at, dump.modules[i].base);
    b.u32(at + 8, uint32_t(dump.modules[i].size));
    b.u32(at + 20, name_at[i]);
    b.u32(at + 76, cv_size[i]);
    b.u32(at + 80, cv_at[i]);
  }
  entry(kModuleListStream, modules, 4 + kModuleSize * dump.modules.size());

  b.align();
  size_t memory = b.grow(4 + 16 * dump.stacks.size());
  b.u32(memory, uint32_t(dump.stacks.size()));
  for (size_t i = 0; i < dump.stacks.size(); i++) {
    size_t at = memory + 4 + 16 * i;
    b.u64(at, dump.stacks[i].base);
    b.u32(at + 8, uint32_t(dump.stacks[i].bytes.size()));
    b.u32(at + 12, uint32_t(stack_at[i]));
  }
  entry(kMemoryListStream, memory, 4 + 16 * dump.stacks.size());

  b.align();
  size_t exception = b.grow(kExceptionStreamSize);
  b.u32(exception, kThreadId);
  b.u32(exception + 8, dump.signal);
  b.u32(exception + 12, dump.signal_code);
  b.u64(exception + 24, dump.crash_address);
  b.u32(exception + 32, 2);
  b.u64(exception + 40, dump.reason);
  b.u64(exception + 48, dump.detail);
  b.u32(exception + 160, uint32_t(context.size()));
  b.u32(exception + 164, uint32_t(context_at));
  entry(kExceptionStream, exception, kExceptionStreamSize);

  uint32_t csd = put_string(b, kCsdVersion);
  b.align();
  size_t system = b.grow(kSystemInfoSize);
  b.u16(system, dump.cpu == DumpCpu::kAmd64 ? kArchAmd64 : kArchArm64);
  b.put(system + 6, 1, 1);  // one processor
  b.u32(system + 20, kMdOsLinux);
  b.u32(system + 24, csd);
  entry(kSystemInfoStream, system, kSystemInfoSize);

  if (comment) {
    b.align();
    std::vector<uint8_t> text(dump.message.begin(), dump.message.end());
    text.push_back(0);
    size_t at = b.append(text);
    entry(kCommentStreamA, at, text.size());
  }
  return b.take();
}

}  // namespace sfu::tools::breakpad
