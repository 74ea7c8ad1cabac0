// Source lookup for the host tools: an address in an ELF image -> its chain of source frames
// (function, file, line), from the image's DWARF (versions 2 to 5 as gcc and clang write them;
// line tables, inline information, range lists; x86_64, aarch64 and big-endian s390x ELF64).
//
//   sfu::tools::dwarf::SourceImage src;
//   std::string error;
//   if (!src.load(image, error)) ...            // a malformed debug section: error names it
//   for (const SourceFrame &f : src.frames_at(pc))
//     printf("%s at %s:%u%s\n", demangle(f.function).c_str(), f.file.c_str(), f.line,
//            f.inlined ? " (inlined)" : "");
//
// frames_at gives the innermost frame first: for an address inside code inlined into its
// caller, the inlined callee (inlined = true) with the line the address belongs to, then each
// caller it was inlined into, at the line of the inlined call, and last the function the code
// physically belongs to (inlined = false). It is empty when no DWARF describes the address.
// Names are as the image spells them: the linkage (mangled) name where the DWARF has one, else
// the plain name; demangle() turns a mangled name into the C++ spelling. A function the DWARF
// has lines for but no DIE (an assembly routine) is named by the image's nearest preceding
// function or untyped symbol, as GNU addr2line names it. An unknown file is "??", line 0.
//
// To look up a return address, pass it minus one: a call to a function that never returns can
// be the last instruction of its caller.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tools/elf/elf_file.h"

namespace sfu::tools::dwarf {

struct SourceFrame {
  std::string function;  // linkage name if the DWARF has one, else the name; "??" if none
  std::string file;      // path as the line table spells it, joined to its directories; "??" if unknown
  uint32_t line = 0;     // 0 if unknown
  bool inlined = false;  // this frame's code was inlined into the next frame
};

struct SourceIndex;  // source_index.h: the loaded model

class SourceImage {
 public:
  SourceImage();
  ~SourceImage();
  SourceImage(SourceImage &&) noexcept;
  SourceImage &operator=(SourceImage &&) noexcept;

  // Reads `image`'s DWARF and symbol table (the image is copied; it need not outlive this).
  // Returns false with one line in `error` when a debug section is malformed or truncated:
  // "SECTION+0xOFFSET: REASON (DETAIL)", e.g. ".debug_info+0x1f3: unknown-form (form 0x55)".
  // An image without DWARF loads, and has_debug_info() is then false.
  bool load(const ElfImage &image, std::string &error);

  bool has_debug_info() const;

  // The source frames at `addr`, innermost first (see above). Empty without DWARF for it.
  std::vector<SourceFrame> frames_at(uint64_t addr) const;

  // The model, for tools/dwarf/addr2line.h.
  const SourceIndex *index() const { return index_.get(); }

 private:
  std::unique_ptr<SourceIndex> index_;
};

// A symbol or DWARF name in its C++ spelling, as GNU binutils' demangler (libiberty, which
// the C++ runtime's abi::__cxa_demangle shares) gives it for `addr2line -C`: Itanium-mangled
// names ("_Z...", also with a ".clone" suffix, leading dots or an "@VERSION" suffix) and
// "_GLOBAL__I_"-style constructor names; any other name unchanged.
std::string demangle(const std::string &name);

}  // namespace sfu::tools::dwarf
