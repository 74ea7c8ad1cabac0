// ELF64 parsing and one edit. Every offset taken from the file is checked against the file size
// before it is used, so a truncated or corrupt file gives an error, never a wild read.
#include "tools/elf/elf_file.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "tools/elf/functions.h"
#include "tools/elf/symbol_table.h"
#include "tools/text/bytes.h"

namespace sfu::tools {
namespace {

// ELF identification and header layout (ELF64 only).
constexpr uint8_t kElfMagic[4] = {0x7f, 'E', 'L', 'F'};
constexpr uint32_t kEiClass = 4, kEiData = 5;
constexpr uint8_t kClass32 = 1, kClass64 = 2;
constexpr uint8_t kDataLsb = 1, kDataMsb = 2;
constexpr uint64_t kEhdrSize = 64, kShdrSize = 64;
// Header fields the edit rewrites.
constexpr uint64_t kEShoff = 40, kEShnum = 60;
constexpr uint64_t kShOffset = 24, kShSize = 32;

// Bounds-checked access in the file's byte order.
struct Reader {
  const std::vector<uint8_t> &b;
  bool big;

  bool fits(uint64_t off, uint64_t n) const { return off <= b.size() && n <= b.size() - off; }
  uint64_t get(uint64_t off, unsigned n) const {  // caller checked fits(off, n)
    return load_bytes(b.data() + off, n, big);
  }
  uint16_t u16(uint64_t off) const { return uint16_t(get(off, 2)); }
  uint32_t u32(uint64_t off) const { return uint32_t(get(off, 4)); }
  uint64_t u64(uint64_t off) const { return get(off, 8); }
};

struct Layout {
  uint64_t shoff = 0, shnum = 0, shentsize = 0;
  uint32_t shstrndx = 0;
};

// A NUL-terminated name at `at` inside the string table [base, base + size).
bool name_at(const std::vector<uint8_t> &f, uint64_t base, uint64_t size, uint64_t at, std::string &out) {
  if (at >= size) return false;
  const char *s = reinterpret_cast<const char *>(f.data() + base + at);
  size_t n = strnlen(s, size - at);
  if (n == size - at) return false;
  out.assign(s, n);
  return true;
}

bool read_layout(const Reader &r, Layout &l, std::string &error) {
  l.shoff = r.u64(kEShoff);
  l.shentsize = r.u16(58);
  l.shnum = r.u16(kEShnum);
  l.shstrndx = r.u16(62);
  if (l.shoff == 0) return (error = "no section headers", false);
  if (l.shentsize < kShdrSize) return (error = "bad section header size", false);
  if (!r.fits(l.shoff, l.shentsize)) return (error = "truncated ELF file (section headers)", false);
  // More than 0xff00 sections: the real count and name-table index live in section 0.
  if (l.shnum == 0) l.shnum = r.u64(l.shoff + kShSize);
  if (l.shstrndx == kShnXindex) l.shstrndx = r.u32(l.shoff + 40);
  if (l.shnum > (r.b.size() - l.shoff) / l.shentsize)
    return (error = "truncated ELF file (section headers)", false);
  if (l.shstrndx >= l.shnum) return (error = "bad section name table index", false);
  return true;
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

bool write_file(const std::string &path, const std::vector<uint8_t> &bytes, std::string &error) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = std::string("cannot create: ") + std::strerror(errno);
    return false;
  }
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  int err = errno;
  if (std::fclose(f) != 0) ok = false;
  if (!ok) error = std::string("cannot write: ") + std::strerror(err);
  return ok;
}

const ElfSectionHeader *ElfImage::section(const std::string &name) const {
  for (const ElfSectionHeader &s : sections)
    if (s.name == name) return &s;
  return nullptr;
}

bool elf_parse(std::vector<uint8_t> file, ElfImage &out, std::string &error) {
  out = ElfImage{};
  out.file = std::move(file);
  const std::vector<uint8_t> &f = out.file;
  if (f.size() < sizeof kElfMagic || std::memcmp(f.data(), kElfMagic, sizeof kElfMagic) != 0)
    return (error = "not an ELF file", false);
  if (f.size() <= kEiData) return (error = "truncated ELF file (header)", false);
  if (f[kEiClass] == kClass32) return (error = "ELF32 files are not supported (ELF64 only)", false);
  if (f[kEiClass] != kClass64) return (error = "bad ELF class", false);
  if (f[kEiData] != kDataLsb && f[kEiData] != kDataMsb) return (error = "bad ELF byte order", false);
  Reader r{f, f[kEiData] == kDataMsb};
  if (!r.fits(0, kEhdrSize)) return (error = "truncated ELF file (header)", false);
  out.big_endian = r.big;
  out.machine = r.u16(18);

  Layout l;
  if (!read_layout(r, l, error)) return false;
  uint64_t names_hdr = l.shoff + uint64_t(l.shstrndx) * l.shentsize;
  uint64_t names_off = r.u64(names_hdr + kShOffset), names_size = r.u64(names_hdr + kShSize);
  if (!r.fits(names_off, names_size)) return (error = "truncated ELF file (section names)", false);
  for (uint64_t i = 0; i < l.shnum; i++) {
    uint64_t at = l.shoff + i * l.shentsize;
    ElfSectionHeader s;
    s.index = uint32_t(i);
    if (!name_at(f, names_off, names_size, r.u32(at), s.name)) s.name.clear();
    s.type = r.u32(at + 4);
    s.flags = r.u64(at + 8);
    s.addr = r.u64(at + 16);
    s.offset = r.u64(at + kShOffset);
    s.size = r.u64(at + kShSize);
    s.link = r.u32(at + 40);
    out.sections.push_back(std::move(s));
  }
  if (!read_symbol_table(out, out.symbols, error)) return false;
  out.functions = image_functions(out);
  return true;
}

bool elf_section_bytes(const ElfImage &image, const std::string &name, ElfSection &out, std::string &error) {
  const ElfSectionHeader *s = image.section(name);
  if (!s) return (error = "no " + name + " section", false);
  if (s->type == kShtNobits) return (error = "section " + name + " has no contents in the file", false);
  Reader r{image.file, image.big_endian};
  if (!r.fits(s->offset, s->size)) return (error = "truncated ELF file (section " + name + ")", false);
  out.addr = s->addr;
  out.bytes.assign(image.file.begin() + s->offset, image.file.begin() + s->offset + s->size);
  return true;
}

bool elf_find_section(const std::vector<uint8_t> &file, const std::string &name, ElfSection &out,
                      std::string &error) {
  ElfImage image;
  return elf_parse(file, image, error) && elf_section_bytes(image, name, out, error);
}

bool elf_with_section(const ElfImage &image, const std::string &name, const std::vector<uint8_t> &bytes,
                      std::vector<uint8_t> &out, std::string &error, uint64_t append_addr) {
  Reader r{image.file, image.big_endian};
  Layout l;
  if (!read_layout(r, l, error)) return false;
  out = image.file;
  auto header = [&](uint64_t index) { return l.shoff + index * l.shentsize; };

  if (const ElfSectionHeader *s = image.section(name)) {
    if (s->type == kShtNobits) return (error = "section " + name + " has no contents in the file", false);
    if (!r.fits(s->offset, s->size)) return (error = "truncated ELF file (section " + name + ")", false);
    if (bytes.size() > s->size) {
      error = "section " + name + " holds " + std::to_string(s->size) + " bytes, the table needs " +
              std::to_string(bytes.size());
      return false;
    }
    std::fill(out.begin() + s->offset, out.begin() + s->offset + s->size, 0);
    std::copy(bytes.begin(), bytes.end(), out.begin() + s->offset);
    put_bytes(out, header(s->index) + kShSize, bytes.size(), 8, r.big);
    return true;
  }

  // Append: the contents, a copy of the section names with the new one, a copy of the section
  // headers with the new one. The old copies stay where they are, unreferenced.
  if (l.shnum + 1 >= kShnLoReserve) return (error = "too many sections to add one", false);
  auto align8 = [&] { out.resize((out.size() + 7) & ~uint64_t(7), 0); };
  align8();
  uint64_t data_off = out.size();
  out.insert(out.end(), bytes.begin(), bytes.end());
  const ElfSectionHeader &names = image.sections[l.shstrndx];
  uint64_t names_off = out.size();
  out.insert(out.end(), image.file.begin() + names.offset, image.file.begin() + names.offset + names.size);
  uint64_t name_index = names.size;
  out.insert(out.end(), name.begin(), name.end());
  out.push_back(0);
  align8();
  uint64_t shoff = out.size();
  out.insert(out.end(), image.file.begin() + l.shoff, image.file.begin() + l.shoff + l.shnum * l.shentsize);
  uint64_t added = out.size();
  out.resize(added + l.shentsize, 0);
  put_bytes(out, added, name_index, 4, r.big);
  put_bytes(out, added + 4, kShtProgbits, 4, r.big);
  put_bytes(out, added + 16, append_addr, 8, r.big);  // sh_addr
  put_bytes(out, added + kShOffset, data_off, 8, r.big);
  put_bytes(out, added + kShSize, bytes.size(), 8, r.big);
  put_bytes(out, added + 48, 8, 8, r.big);  // sh_addralign
  uint64_t names_hdr = shoff + uint64_t(l.shstrndx) * l.shentsize;
  put_bytes(out, names_hdr + kShOffset, names_off, 8, r.big);
  put_bytes(out, names_hdr + kShSize, names.size + name.size() + 1, 8, r.big);
  put_bytes(out, kEShoff, shoff, 8, r.big);
  put_bytes(out, kEShnum, l.shnum + 1, 2, r.big);
  return true;
}

bool read_segments(const ElfImage &image, std::vector<ElfSegment> &out, std::string &error) {
  out.clear();
  Reader r{image.file, image.big_endian};
  if (!r.fits(0, kEhdrSize)) return (error = "truncated ELF file (header)", false);
  uint64_t phoff = r.u64(32), entsize = r.u16(54), num = r.u16(56);
  if (phoff == 0 || num == 0) return true;
  if (entsize < 56) return (error = "bad program header size", false);
  if (!r.fits(phoff, num * entsize)) return (error = "truncated ELF file (program headers)", false);
  for (uint64_t i = 0; i < num; i++) {
    uint64_t at = phoff + i * entsize;
    ElfSegment seg;
    seg.type = r.u32(at);
    seg.offset = r.u64(at + 8);
    seg.vaddr = r.u64(at + 16);
    seg.paddr = r.u64(at + 24);
    seg.filesz = r.u64(at + 32);
    seg.memsz = r.u64(at + 40);
    out.push_back(seg);
  }
  return true;
}

uint64_t load_address(const std::vector<ElfSegment> &segments) {
  for (const ElfSegment &s : segments)
    if (s.type == kPtLoad) return s.vaddr;
  return 0;
}

bool has_load_segment(const std::vector<ElfSegment> &segments) {
  for (const ElfSegment &s : segments)
    if (s.type == kPtLoad) return true;
  return false;
}

}  // namespace sfu::tools
