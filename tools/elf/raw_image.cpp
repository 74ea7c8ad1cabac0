// The pieces of an image the device reads at run time, and a raw binary's copy of them
// (raw_image.h).
#include "tools/elf/raw_image.h"

#include <algorithm>
#include <cstring>

#include "tools/text/format.h"

namespace sfu::tools {
namespace {

struct PieceSpec {
  PieceKind kind;
  const char *what, *section, *start, *end;
};
constexpr PieceSpec kPieces[] = {
    {PieceKind::table, "the SFrame table", ".sframe", "__sfu_sframe_start", "__sfu_sframe_end"},
    {PieceKind::names, "the function names", ".sfu_symbols", "__sfu_symbols_start", "__sfu_symbols_end"},
    {PieceKind::build_id, "the build-id note", ".note.gnu.build-id", "__sfu_build_id_start", "__sfu_build_id_end"},
};

const ElfSymbol *defined(const ElfImage &image, const char *name) {
  for (const ElfSymbol &s : image.symbols)
    if (s.shndx != 0 && s.name == name) return &s;
  return nullptr;
}

// Allocated, with contents, not empty: what objcopy -O binary writes.
bool written_raw(const ElfSectionHeader &s) {
  return (s.flags & kShfAlloc) && s.type != kShtNobits && s.size != 0;
}

bool file_holds(const ElfImage &image, const ElfSectionHeader &s) {
  return s.offset <= image.file.size() && s.size <= image.file.size() - s.offset;
}

// The PT_LOAD whose file contents hold the section's bytes and whose memory its addresses.
const ElfSegment *loading_segment(const ElfSectionHeader &s, const std::vector<ElfSegment> &segments) {
  if (s.type == kShtNobits) return nullptr;
  for (const ElfSegment &g : segments)
    if (g.type == kPtLoad && s.offset >= g.offset && s.size <= g.filesz && s.offset - g.offset <= g.filesz - s.size &&
        s.addr >= g.vaddr && s.size <= g.memsz && s.addr - g.vaddr <= g.memsz - s.size)
      return &g;
  return nullptr;
}

std::string range(uint64_t lo, uint64_t hi) { return hex(lo) + "-" + hex(hi); }

std::string subject(const RuntimePiece &p) { return p.section + " (" + p.what + ")"; }

}  // namespace

std::vector<RuntimePiece> runtime_pieces(const ElfImage &image) {
  std::vector<RuntimePiece> out;
  for (const PieceSpec &spec : kPieces) {
    RuntimePiece p;
    p.kind = spec.kind;
    p.what = spec.what;
    const ElfSymbol *start = defined(image, spec.start), *end = defined(image, spec.end);
    if (start && end) {
      if (end->value <= start->value) continue;  // the fragment's section is empty
      // The allocated section the start symbol points into; a script may put the piece anywhere.
      for (const ElfSectionHeader &s : image.sections)
        if ((s.flags & kShfAlloc) && s.size && start->value >= s.addr && start->value - s.addr < s.size) {
          p.header = &s;
          break;
        }
      if (p.header) {
        p.addr = start->value;
        p.size = std::min(end->value - start->value, p.header->addr + p.header->size - start->value);
      }
    }
    if (!p.header) {
      p.header = image.section(spec.section);
      if (!p.header || p.header->size == 0) continue;
      p.addr = p.header->addr;
      p.size = p.header->size;
    }
    p.section = p.header->name;
    out.push_back(p);
  }
  return out;
}

bool crash_area(const ElfImage &image, uint64_t &addr, uint64_t &size) {
  const ElfSymbol *start = defined(image, "__sfu_crash_start"), *end = defined(image, "__sfu_crash_end");
  if (start && end && end->value > start->value) {
    addr = start->value;
    size = end->value - start->value;
    return true;
  }
  const ElfSectionHeader *s = image.section(".sfu_crash");
  if (!s || s->size == 0) return false;
  addr = s->addr;
  size = s->size;
  return true;
}

uint64_t section_lma(const ElfSectionHeader &s, const std::vector<ElfSegment> &segments) {
  // Some linkers leave every p_paddr 0; BFD then takes no LMA from the program headers.
  if (std::all_of(segments.begin(), segments.end(), [](const ElfSegment &g) { return g.paddr == 0; })) return s.addr;
  const ElfSegment *g = loading_segment(s, segments);
  return g ? g->paddr + (s.offset - g->offset) : s.addr;
}

std::vector<std::string> placement_problems(const ElfImage &image, const std::vector<ElfSegment> &segments) {
  std::vector<std::string> out;
  bool loads = has_load_segment(segments);
  for (const RuntimePiece &p : runtime_pieces(image)) {
    const ElfSectionHeader &s = *p.header;
    if (!(s.flags & kShfAlloc))
      out.push_back(subject(p) + " is not allocated (no SHF_ALLOC): objcopy -O binary leaves it out and no loader "
                    "loads it; INCLUDE the fragment inside SECTIONS, among the loaded sections");
    else if (s.type == kShtNobits)
      out.push_back(subject(p) + " has no contents in the file (NOBITS): a loader leaves zeros there, a raw image "
                    "holds none; do not make it NOLOAD");
    else if (loads && !loading_segment(s, segments))
      out.push_back(subject(p) + " lies in no loadable segment's file contents: an ELF loader does not load it; "
                    "give it a PT_LOAD segment (in a PHDRS script, the one of the sections around it)");
  }
  return out;
}

bool check_raw_image(const ElfImage &image, const std::vector<ElfSegment> &segments, const std::vector<uint8_t> &raw,
                     RawCheck &out, std::string &error) {
  out = RawCheck{};
  // The raw image's start: the lowest-LMA section objcopy writes whose bytes begin it.
  std::vector<std::pair<uint64_t, const ElfSectionHeader *>> written;
  for (const ElfSectionHeader &s : image.sections)
    if (written_raw(s) && file_holds(image, s)) written.push_back({section_lma(s, segments), &s});
  std::stable_sort(written.begin(), written.end(),
                   [](const auto &a, const auto &b) { return a.first < b.first; });
  bool found = false;
  for (const auto &[lma, s] : written)
    if (s->size <= raw.size() && std::memcmp(raw.data(), image.file.data() + s->offset, s->size) == 0) {
      out.base = lma;
      out.first = s->name;
      found = true;
      break;
    }
  if (!found) {
    error = "no allocated section of the ELF begins the raw image: not made from this ELF by objcopy -O binary?";
    return false;
  }

  for (const RuntimePiece &p : runtime_pieces(image)) {
    const ElfSectionHeader &s = *p.header;
    std::string who = subject(p);
    if (!written_raw(s) || !file_holds(image, s)) {
      out.problems.push_back(who + " is not in the raw image: objcopy -O binary writes only allocated sections "
                             "with contents");
      continue;
    }
    uint64_t lma = section_lma(s, segments) + (p.addr - s.addr);
    if (lma < out.base) {
      out.problems.push_back(who + " is not in the raw image: it would lie " + hex(out.base - lma) +
                             " bytes before the image's first byte (" + out.first + " at " + hex(out.base) +
                             "; a -j list without " + p.section + "?)");
      continue;
    }
    uint64_t at = lma - out.base, end = at + p.size;
    if (at >= raw.size()) {
      out.problems.push_back(who + " is not in the raw image: it would lie at bytes " + range(at, end) +
                             ", past the image's end (" + hex(raw.size()) + " bytes; a -j list without " +
                             p.section + "?)");
      continue;
    }
    if (end > raw.size()) {
      out.problems.push_back(who + " is cut short in the raw image: it lies at bytes " + range(at, end) +
                             ", the image ends at " + hex(raw.size()));
      continue;
    }
    const uint8_t *want = image.file.data() + s.offset + (p.addr - s.addr), *have = raw.data() + at;
    if (std::memcmp(want, have, p.size) == 0) {
      out.kept.push_back(p.section + " " + hex(p.size) + " bytes at " + hex(at));
      continue;
    }
    if (std::all_of(have, have + p.size, [](uint8_t b) { return b == 0; })) {
      out.problems.push_back(who + " is not in the raw image: bytes " + range(at, end) +
                             ", where it belongs, are zeros (a -j list without " + p.section + "?)");
      continue;
    }
    uint64_t i = uint64_t(std::mismatch(want, want + p.size, have).first - want);
    out.problems.push_back(who + " differs in the raw image: byte " + hex(at + i) + " (" + p.section + "+" + hex(i) +
                           ") is " + hex(have[i]) + ", the ELF has " + hex(want[i]));
  }

  // The crash area is RAM a reset must leave alone: loading the raw image writes all of its span,
  // gaps included. Only a warning: firmware that moves itself captures in its copy, elsewhere.
  uint64_t area, area_size;
  if (crash_area(image, area, area_size) && area < out.base + raw.size() && out.base < area + area_size)
    out.warnings.push_back("the crash area (" + range(area, area + area_size) + ") lies inside the raw image's span (" +
                           range(out.base, out.base + raw.size()) +
                           "): every load of the image writes over it, so a record captured there does not "
                           "survive a reset (unless the image captures only in a copy it moved elsewhere)");
  return true;
}

}  // namespace sfu::tools
