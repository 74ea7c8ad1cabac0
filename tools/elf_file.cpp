// ELF64 section lookup. Every offset taken from the file is checked against the file size
// before it is used, so a truncated or corrupt file gives an error, never a wild read.
#include "elf_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace sfu::tools {
namespace {

// ELF identification and header layout (ELF64 only).
constexpr uint8_t kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
constexpr uint32_t kEiClass = 4, kEiData = 5;
constexpr uint8_t kClass32 = 1, kClass64 = 2;
constexpr uint8_t kDataLsb = 1, kDataMsb = 2;
constexpr uint64_t kEhdrSize = 64, kShdrSize = 64;
constexpr uint32_t kShtNobits = 8;
constexpr uint16_t kShnXindex = 0xffff;

// Bounds-checked reads in the file's byte order.
struct Reader {
  const std::vector<uint8_t> &b;
  bool big;

  bool fits(uint64_t off, uint64_t n) const { return off <= b.size() && n <= b.size() - off; }
  uint64_t get(uint64_t off, unsigned n) const {  // caller checked fits(off, n)
    uint64_t v = 0;
    for (unsigned i = 0; i < n; i++) v = (v << 8) | b[off + (big ? i : n - 1 - i)];
    return v;
  }
  uint16_t u16(uint64_t off) const { return uint16_t(get(off, 2)); }
  uint32_t u32(uint64_t off) const { return uint32_t(get(off, 4)); }
  uint64_t u64(uint64_t off) const { return get(off, 8); }
};

struct Shdr {
  uint32_t name, type;
  uint64_t addr, offset, size, link;
};

Shdr read_shdr(const Reader &r, uint64_t at) {
  return Shdr{r.u32(at), r.u32(at + 4), r.u64(at + 16), r.u64(at + 24), r.u64(at + 32),
              r.u32(at + 40)};
}

}  // namespace

bool read_file(const std::string &path, std::vector<uint8_t> &out, std::string &error) {
  // stdio rather than iostreams: a read error (a directory, EIO) is an error code, not a throw.
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = std::string("cannot open: ") + std::strerror(errno);
    return false;
  }
  out.clear();
  uint8_t buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
  bool failed = std::ferror(f);
  int err = errno;
  std::fclose(f);
  if (failed) error = std::string("cannot read: ") + std::strerror(err);
  return !failed;
}

bool elf_find_section(const std::vector<uint8_t> &file, const std::string &name, ElfSection &out,
                      std::string &error) {
  auto fail = [&](std::string why) {
    error = std::move(why);
    return false;
  };
  if (file.size() < sizeof kElfMagic || std::memcmp(file.data(), kElfMagic, sizeof kElfMagic) != 0)
    return fail("not an ELF file");
  if (file.size() <= kEiData) return fail("truncated ELF file (header)");
  if (file[kEiClass] == kClass32) return fail("ELF32 files are not supported (ELF64 only)");
  if (file[kEiClass] != kClass64) return fail("bad ELF class");
  if (file[kEiData] != kDataLsb && file[kEiData] != kDataMsb) return fail("bad ELF byte order");
  Reader r{file, file[kEiData] == kDataMsb};
  if (!r.fits(0, kEhdrSize)) return fail("truncated ELF file (header)");

  uint16_t machine = r.u16(18);
  uint64_t shoff = r.u64(40);
  uint16_t shentsize = r.u16(58);
  uint64_t shnum = r.u16(60);
  uint32_t shstrndx = r.u16(62);
  if (shoff == 0) return fail("no section headers");
  if (shentsize < kShdrSize) return fail("bad section header size");
  if (!r.fits(shoff, shentsize)) return fail("truncated ELF file (section headers)");
  // More than 0xff00 sections: the real count and name-table index live in section 0.
  Shdr first = read_shdr(r, shoff);
  if (shnum == 0) shnum = first.size;
  if (shstrndx == kShnXindex) shstrndx = uint32_t(first.link);
  if (shnum > (file.size() - shoff) / shentsize) return fail("truncated ELF file (section headers)");
  if (shstrndx >= shnum) return fail("bad section name table index");

  Shdr strtab = read_shdr(r, shoff + uint64_t(shstrndx) * shentsize);
  if (!r.fits(strtab.offset, strtab.size)) return fail("truncated ELF file (section names)");
  const char *names = reinterpret_cast<const char *>(file.data() + strtab.offset);

  for (uint64_t i = 0; i < shnum; i++) {
    Shdr s = read_shdr(r, shoff + i * shentsize);
    // The name must end inside the name table: compare without reading past it.
    if (s.name >= strtab.size || strtab.size - s.name <= name.size()) continue;
    if (std::memcmp(names + s.name, name.c_str(), name.size() + 1) != 0) continue;
    if (s.type == kShtNobits) return fail("section " + name + " has no contents in the file");
    if (!r.fits(s.offset, s.size)) return fail("truncated ELF file (section " + name + ")");
    out.addr = s.addr;
    out.bytes.assign(file.begin() + s.offset, file.begin() + s.offset + s.size);
    out.machine = machine;
    out.big_endian = r.big;
    return true;
  }
  return fail("no " + name + " section");
}

}  // namespace sfu::tools
