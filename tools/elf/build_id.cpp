// An image's GNU build-id (build_id.h).
#include "tools/elf/build_id.h"

#include <string>

#include "sfu/symbols.h"

namespace sfu::tools {

bool read_build_id(const ElfImage &elf, std::vector<uint8_t> &out) {
  std::vector<const ElfSectionHeader *> notes;
  if (const ElfSectionHeader *s = elf.section(".note.gnu.build-id")) notes.push_back(s);
  for (const ElfSectionHeader &s : elf.sections)
    if (s.type == kShtNote) notes.push_back(&s);
  for (const ElfSectionHeader *s : notes) {
    ElfSection sec;
    std::string ignored;
    const uint8_t *id = nullptr;
    uint32_t size = 0;
    if (elf_section_bytes(elf, s->name, sec, ignored) &&
        sfu_build_id_from_note(sec.bytes.data(), sec.bytes.size(), elf.big_endian, &id, &size) == SFU_OK) {
      out.assign(id, id + size);
      return true;
    }
  }
  return false;
}

}  // namespace sfu::tools
