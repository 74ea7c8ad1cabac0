#include "tools/symbols/read.h"

#include <cstdio>

#include "symbols/format.h"

namespace sfu::tools {

bool open_symbols(const ElfImage &image, ElfSection &section, sfu_symbols &view, std::string &error) {
  if (!elf_section_bytes(image, ".sfu_symbols", section, error)) return false;
  sfu_symbols_desc desc{section.bytes.data(), section.bytes.size(), section.addr, 0, 0};
  sfu_error e = sfu_symbols_init(&view, &desc);
  if (e != SFU_OK) return (error = std::string("invalid symbol table: ") + sfu_error_name(e), false);
  return true;
}

std::string symbol_name(const sfu_symbols &view, const sfu_symbol &sym) {
  char buf[SFU_SYMBOL_NAME_MAX + 1];
  sfu_symbol_name(&view, &sym, buf, sizeof buf);
  return buf;
}

SymbolTableStats symbol_stats(const sfu_symbols &view) {
  SymbolTableStats s;
  s.functions = view.num_symbols;
  s.bytes = view.table_size;
  s.tokens = (view.entries_at - view.tokens_at) / symbols::kTokenSize;
  s.name_bytes = symbols::kTokenMapSize + symbols::kTokenSize * s.tokens + view.names_size;
  for (uint32_t i = 0; i < view.num_symbols; i++) {
    sfu_symbol sym;
    if (sfu_symbols_entry(&view, i, &sym) == SFU_OK) s.raw_name_bytes += symbol_name(view, sym).size();
  }
  return s;
}

std::string symbol_at(const sfu_symbols &view, uint64_t lookup, uint64_t addr) {
  sfu_symbol sym;
  if (sfu_symbols_find(&view, lookup, &sym) != SFU_OK) return "?";
  char buf[64];
  snprintf(buf, sizeof buf, "+0x%llx/0x%llx", (unsigned long long)(addr - sym.start), (unsigned long long)sym.size);
  return symbol_name(view, sym) + buf;
}

}  // namespace sfu::tools
