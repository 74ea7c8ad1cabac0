// Reading an image's CFI sections, and what SFrame assumes of the rules in them.
#include "tools/dwarf/image_cfi.h"

#include <algorithm>
#include <cstdio>
#include <unordered_set>

#include "sframe/format.h"
#include "sfu/sframe.h"

namespace sfu::tools {

uint8_t image_abi(const ElfImage &image) {
  switch (image.machine) {
    case kEmX86_64: return image.big_endian ? 0 : SFU_ABI_AMD64_LE;
    case kEmAarch64: return image.big_endian ? SFU_ABI_AARCH64_BE : SFU_ABI_AARCH64_LE;
    case kEmS390: return image.big_endian ? SFU_ABI_S390X_BE : 0;
    default: return 0;
  }
}

namespace {


// Code is in the file: an executable section without contents (SHT_NOBITS) holds no function,
// and a range there would let a tiny file describe gigabytes of code (gen evaluates a CFA
// computed from the PC at every address of its range).
bool in_code(const ElfImage &image, uint64_t start, uint64_t end) {
  for (const ElfSectionHeader &s : image.sections)
    if ((s.flags & kShfAlloc) && (s.flags & kShfExecinstr) && s.type != kShtNobits && start >= s.addr &&
        end <= s.addr + s.size)
      return true;
  return false;
}

// ld (2.40) leaves the .debug_frame FDE of a function it dropped (--gc-sections, /DISCARD/) at
// address 0, with the function's length. In an image whose code starts at 0 they all claim the
// function there: of the FDEs at 0, keep the one whose length is that function's size (from the
// symbols), or the only one when no symbol is at 0; none when that does not single one out (the
// function then has no rows rather than another's).
void drop_discarded_at_zero(const ElfImage &image, std::vector<cfi::Fde> &fdes) {
  const ImageFunction *at_zero = nullptr;
  for (const ImageFunction &f : image.functions)
    if (f.start == 0 && f.size > 0) at_zero = &f;
  size_t candidates = 0, matching = 0;
  for (const cfi::Fde &f : fdes)
    if (f.start == 0 && f.end > 0) {
      candidates++;
      if (at_zero && f.end == at_zero->size) matching++;
    }
  if (candidates == 0) return;
  bool keep_one = at_zero ? matching == 1 : candidates == 1;
  std::erase_if(fdes, [&](const cfi::Fde &f) {
    return f.start == 0 && !(keep_one && (!at_zero || f.end == at_zero->size));
  });
}

}  // namespace

bool read_image_cfi(const ElfImage &image, std::vector<cfi::Fde> &out, std::string &error, CfiCounts *counts) {
  out.clear();
  CfiCounts n;
  std::unordered_set<uint64_t> described;
  for (const char *name : {".eh_frame", ".debug_frame"}) {
    const ElfSectionHeader *hdr = image.section(name);
    if (!hdr || hdr->type == kShtNobits) continue;
    ElfSection sec;
    if (!elf_section_bytes(image, name, sec, error)) return false;
    cfi::Section in;
    in.bytes = sec.bytes.data();
    in.size = sec.bytes.size();
    in.addr = sec.addr;
    in.eh_frame = hdr->name == ".eh_frame";
    in.big_endian = image.big_endian;
    in.machine = image.machine;
    std::vector<cfi::Fde> fdes;
    cfi::Error err;
    if (!cfi::read_cfi(in, fdes, err)) {
      char where[64];
      snprintf(where, sizeof where, "%s+0x%llx: ", name, (unsigned long long)err.offset);
      error = where + err.name + (err.detail.empty() ? "" : " (" + err.detail + ")");
      return false;
    }
    // .debug_frame only adds functions .eh_frame does not describe (a build may emit both).
    // FDEs outside the image's code are of functions the linker dropped (ld leaves them at 0).
    n.read += fdes.size();
    if (!in.eh_frame) drop_discarded_at_zero(image, fdes);
    out.reserve(out.size() + fdes.size());
    for (cfi::Fde &f : fdes) {
      if (f.start >= f.end || !in_code(image, f.start, f.end)) continue;
      if (!described.insert(f.start).second && !in.eh_frame) continue;
      out.push_back(std::move(f));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const cfi::Fde &a, const cfi::Fde &b) { return a.start < b.start; });
  n.kept = out.size();
  if (counts) *counts = n;
  return true;
}

bool sp_follows_cfa(const cfi::Row &row, uint8_t abi) {
  const cfi::RegRule *sp = row.rule(sframe::abi_sp_reg(abi));
  if (!sp) return true;
  bool s390x = sframe::abi_s390x(abi);
  if (s390x && (sp->kind == cfi::RegRule::kOffset || sp->kind == cfi::RegRule::kRegister)) return true;
  return sp->kind == cfi::RegRule::kValOffset && sp->value == (s390x ? -sframe::kS390xCfaAdjust : 0);
}

}  // namespace sfu::tools
