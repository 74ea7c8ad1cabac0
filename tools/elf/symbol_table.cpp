// Symbol table entries in file order. See symbol_table.h.
#include "tools/elf/symbol_table.h"

#include <cstring>

#include "tools/text/bytes.h"

namespace sfu::tools {
namespace {

constexpr uint64_t kSymSize = 24;

uint64_t get(const std::vector<uint8_t> &b, bool big, uint64_t off, unsigned n) {
  return load_bytes(b.data() + off, n, big);
}

bool fits(const std::vector<uint8_t> &b, uint64_t off, uint64_t n) { return off <= b.size() && n <= b.size() - off; }

bool read_table(const ElfImage &image, const ElfSectionHeader &table, std::vector<ElfSymbol> &out,
                std::string &error) {
  const std::vector<uint8_t> &f = image.file;
  if (!fits(f, table.offset, table.size)) return (error = "truncated ELF file (section " + table.name + ")", false);
  if (table.link >= image.sections.size()) return (error = "section " + table.name + " names no string table", false);
  const ElfSectionHeader &strtab = image.sections[table.link];
  if (!fits(f, strtab.offset, strtab.size)) return (error = "truncated ELF file (section " + strtab.name + ")", false);
  for (uint64_t at = table.offset + kSymSize; at + kSymSize <= table.offset + table.size; at += kSymSize) {
    ElfSymbol s;
    uint64_t name = get(f, image.big_endian, at, 4);
    if (name >= strtab.size) return (error = "symbol name outside " + strtab.name, false);
    const char *p = reinterpret_cast<const char *>(f.data() + strtab.offset + name);
    size_t n = strnlen(p, strtab.size - name);
    if (n == strtab.size - name) return (error = "symbol name without its NUL in " + strtab.name, false);
    s.name.assign(p, n);
    uint8_t info = f[at + 4];
    s.type = info & 0xf;
    s.bind = info >> 4;
    s.visibility = f[at + 5] & 3;
    s.shndx = uint16_t(get(f, image.big_endian, at + 6, 2));
    s.value = get(f, image.big_endian, at + 8, 8);
    s.size = get(f, image.big_endian, at + 16, 8);
    out.push_back(std::move(s));
  }
  return true;
}

}  // namespace

bool read_symbol_table(const ElfImage &image, std::vector<ElfSymbol> &out, std::string &error) {
  out.clear();
  for (uint32_t type : {kShtSymtab, kShtDynsym}) {
    for (const ElfSectionHeader &s : image.sections) {
      if (s.type != type) continue;
      if (!read_table(image, s, out, error)) return false;
      if (!out.empty()) return true;
    }
  }
  return true;
}

bool is_mapping_symbol(uint16_t machine, const ElfSymbol &s) {
  const std::string &n = s.name;
  return machine == kEmAarch64 && s.bind == kBindLocal && n.size() >= 2 && n[0] == '$' &&
         std::string("xdmfp").find(n[1]) != std::string::npos && (n.size() == 2 || n[2] == '.');
}

}  // namespace sfu::tools
