// Breakpad's module identification of an ELF image. See module_id.h.
#include "tools/breakpad/module_id.h"

#include <algorithm>
#include <cstring>

#include "sfu/symbols.h"
#include "tools/text/bytes.h"
#include "tools/text/format.h"

namespace sfu::tools::breakpad {
namespace {

constexpr uint64_t kDtSoname = 14;
constexpr size_t kGuidSize = 16, kTextHashBytes = 4096;

// An integer of `n` bytes at `off` of the file in its byte order; the caller checked the bounds.
uint64_t get(const ElfImage &img, uint64_t off, unsigned n) {
  return load_bytes(img.file.data() + off, n, img.big_endian);
}

bool fits(const ElfImage &img, uint64_t off, uint64_t n) { return off <= img.file.size() && n <= img.file.size() - off; }

// The build-id in notes at [off, off + size) of the file, through the core's note reader.
bool note_build_id(const ElfImage &img, uint64_t off, uint64_t size, std::vector<uint8_t> &out) {
  if (!fits(img, off, size) || size == 0) return false;
  const uint8_t *id = nullptr;
  uint32_t n = 0;
  if (sfu_build_id_from_note(img.file.data() + off, size, img.big_endian, &id, &n) != SFU_OK) return false;
  out.assign(id, id + n);
  return true;
}

// Breakpad's fallback: the first page of .text (or a section named "text") folded into 16 bytes.
// Like Breakpad it reads whole 16-byte blocks, so a last partial block takes the bytes that
// follow the section in the file (zeros past the end of the file, as a mapping reads them).
bool text_hash(const ElfImage &img, std::vector<uint8_t> &out) {
  const ElfSectionHeader *text = nullptr;
  for (const char *name : {".text", "text"}) {
    for (const ElfSectionHeader &s : img.sections)
      if (s.name == name && s.type == kShtProgbits) {
        text = &s;
        break;
      }
    if (text) break;
  }
  if (!text || text->size == 0 || !fits(img, text->offset, text->size)) return false;
  out.assign(kGuidSize, 0);
  uint64_t n = std::min<uint64_t>(text->size, kTextHashBytes);
  for (uint64_t at = 0; at < n; at += kGuidSize)
    for (size_t i = 0; i < kGuidSize; i++) {
      uint64_t off = text->offset + at + i;
      out[i] ^= off < img.file.size() ? img.file[off] : 0;
    }
  return true;
}

}  // namespace

const char *architecture_name(uint16_t machine) {
  switch (machine) {
    case 3: return "x86";
    case 8: return "mips";
    case 18: return "sparc";
    case 20: return "ppc";
    case 21: return "ppc64";
    case kEmS390: return "s390";
    case 40: return "arm";
    case 43: return "sparcv9";
    case kEmX86_64: return "x86_64";
    case 167: return "nds32";
    case kEmAarch64: return "arm64";
    case 243: return "riscv";
    default: return nullptr;
  }
}

bool breakpad_build_id(const ElfImage &image, const std::vector<ElfSegment> &segments, std::vector<uint8_t> &out) {
  // A .note.gnu.build-id section decides alone, found or not; only without one are the
  // PT_NOTE segments searched.
  for (const ElfSectionHeader &s : image.sections)
    if (s.name == ".note.gnu.build-id" && s.type == kShtNote) return note_build_id(image, s.offset, s.size, out);
  for (const ElfSegment &seg : segments)
    if (seg.type == kPtNote && note_build_id(image, seg.offset, seg.filesz, out)) return true;
  return false;
}

bool module_identity(const ElfImage &image, ModuleIdentity &out, std::string &error) {
  out = ModuleIdentity{};
  std::vector<ElfSegment> segments;
  if (!read_segments(image, segments, error)) return false;
  if (breakpad_build_id(image, segments, out.identifier)) {
    out.from_build_id = true;
  } else if (!text_hash(image, out.identifier)) {
    return (error = "no GNU build-id and no .text to identify the module by", false);
  }
  out.id = module_id_text(out.identifier);
  out.code_id = code_id_text(out.identifier);
  return true;
}

std::string module_id_text(const std::vector<uint8_t> &identifier) {
  uint8_t g[kGuidSize] = {};
  std::memcpy(g, identifier.data(), std::min(identifier.size(), kGuidSize));
  // The GUID's data1 (4 bytes), data2 and data3 (2 each) are stored little-endian.
  std::reverse(g, g + 4);
  std::reverse(g + 4, g + 6);
  std::reverse(g + 6, g + 8);
  return hex_bytes(g, kGuidSize, true) + "0";
}

std::string code_id_text(const std::vector<uint8_t> &identifier) {
  return hex_bytes(identifier.data(), identifier.size(), true);
}

std::string module_name(const ElfImage &image, const std::string &path) {
  const ElfSectionHeader *dyn = nullptr, *dynstr = nullptr;
  for (const ElfSectionHeader &s : image.sections) {
    if (!dyn && s.name == ".dynamic" && s.type == kShtDynamic) dyn = &s;
    if (!dynstr && s.name == ".dynstr" && s.type == kShtStrtab) dynstr = &s;
  }
  if (dyn && dynstr && fits(image, dyn->offset, dyn->size) && fits(image, dynstr->offset, dynstr->size)) {
    for (uint64_t at = dyn->offset; at + 16 <= dyn->offset + dyn->size; at += 16) {
      uint64_t tag = get(image, at, 8), val = get(image, at + 8, 8);
      if (tag != kDtSoname) continue;
      if (val >= dynstr->size) break;
      const char *s = reinterpret_cast<const char *>(image.file.data() + dynstr->offset + val);
      return std::string(s, strnlen(s, dynstr->size - val));
    }
  }
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}


}  // namespace sfu::tools::breakpad
