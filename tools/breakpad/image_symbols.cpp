// Symbols from an ELF image for the stack walk (image_symbols.h).
#include "tools/breakpad/image_symbols.h"

#include <algorithm>

#include "tools/dwarf/source.h"
#include "tools/elf/functions.h"

namespace sfu::tools::breakpad {
namespace {

std::string term(int64_t offset) { return std::to_string(offset) + " +"; }

std::string reg(uint8_t abi, uint8_t r) {
  DumpCpu cpu = abi == SFU_ABI_AMD64_LE ? DumpCpu::kAmd64 : DumpCpu::kArm64;
  return r < dump_reg_count(cpu) ? breakpad_register_name(cpu, r) : "r" + std::to_string(r);
}

// One rule as a postfix expression: false for UNCHANGED and UNDEFINED (no expression).
bool expression(const sfu_rule &rule, uint8_t abi, std::string &out) {
  switch (rule.kind) {
    case SFU_RULE_AT_CFA: out = ".cfa " + term(rule.offset) + " ^"; return true;
    case SFU_RULE_CFA_PLUS: out = ".cfa " + term(rule.offset); return true;
    case SFU_RULE_REGISTER: out = reg(abi, rule.reg) + " " + term(rule.offset); return true;
    case SFU_RULE_AT_REGISTER: out = reg(abi, rule.reg) + " " + term(rule.offset) + " ^"; return true;
    default: return false;
  }
}

}  // namespace

bool sframe_row_rules(const sfu_row &row, uint8_t abi, CfiRules &out) {
  out = CfiRules{};
  if (abi != SFU_ABI_AMD64_LE && abi != SFU_ABI_AARCH64_LE) return false;
  if (!expression(row.cfa, abi, out.cfa)) return false;
  if (!expression(row.ra, abi, out.ra)) {
    if (abi != SFU_ABI_AARCH64_LE || row.ra.kind != SFU_RULE_UNCHANGED) return false;
    out.ra = "x30";  // still in the link register
  }
  std::string fp;
  if (expression(row.fp, abi, fp)) out.registers[abi == SFU_ABI_AMD64_LE ? "$rbp" : "x29"] = fp;
  return true;
}

ImageSymbols::ImageSymbols(const crash::CrashImage &image, uint64_t base) : image_(image), base_(base) {
  if (!image.has_table) return;
  sfu_table_desc desc{};
  desc.section = image.table.section.data();
  desc.size = image.table.section.size();
  desc.section_addr = image.table.section_addr;
  desc.abi = image.abi;
  has_table_ = sfu_table_init(&table_, &desc) == SFU_OK;
}

SymbolAt ImageSymbols::lookup(uint64_t address) const {
  SymbolAt out;
  uint64_t at = base_ + address;
  const ImageFunction *sym = function_at(image_.elf, at);
  std::vector<dwarf::SourceFrame> frames;
  if (image_.source.has_debug_info()) frames = image_.source.frames_at(at);
  std::string name = !frames.empty() && frames.back().function != "??" ? frames.back().function
                     : sym                                                ? sym->name
                                                                          : "";
  if (name.empty()) return out;
  out.has_function = true;
  out.function = dwarf::demangle(name);
  out.function_base = sym ? sym->start - base_ : address;
  out.line_base = out.function_base;
  if (frames.empty()) return out;
  auto file = [](const std::string &f) { return f == "??" ? std::string() : f; };
  out.has_line = true;
  out.file = file(frames.back().file);
  out.line = frames.back().line;
  for (size_t i = 0; i + 1 < frames.size(); i++)
    out.inlines.push_back(InlineAt{dwarf::demangle(frames[i].function), out.function_base, file(frames[i].file),
                                   long(frames[i].line)});
  return out;
}

ModuleSymbols::Cfi ImageSymbols::cfi_rules(uint64_t address, CfiRules &out) const {
  sfu_row row;
  if (!has_table_ || sfu_table_find(&table_, base_ + address, &row) != SFU_OK) return Cfi::kNone;
  if (row.flags & SFU_ROW_OUTERMOST) return Cfi::kOutermost;
  return sframe_row_rules(row, image_.abi, out) ? Cfi::kRules : Cfi::kNone;
}

}  // namespace sfu::tools::breakpad
