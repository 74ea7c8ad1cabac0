// The GNU build-id: the descriptor of the NT_GNU_BUILD_ID note ld writes into .note.gnu.build-id
// when it links with --build-id. Each note is namesz, descsz, type (4 bytes each, the image's
// byte order), the name and the descriptor, each padded to 4 bytes.
#include "sframe/bytes.h"
#include "sfu/symbols.h"

namespace {

constexpr uint32_t kNoteHeader = 12;
constexpr uint32_t kNtGnuBuildId = 3;
// "GNU\0" as the name's four bytes read in either order: the same word both ways round but for
// the byte order, so compared as loaded.
constexpr uint32_t kGnuLittle = 0x00554e47, kGnuBig = 0x474e5500;

constexpr uint64_t pad4(uint64_t n) { return (n + 3) & ~uint64_t(3); }

}  // namespace

extern "C" enum sfu_error sfu_build_id_from_note(const void *note, size_t size, int big_endian,
                                                 const uint8_t **id, uint32_t *id_size) {
  if (!id || !id_size) return SFU_E_NULL_ARGUMENT;
  *id = nullptr;
  *id_size = 0;
  if (!note || size == 0) return SFU_E_NO_BUILD_ID;
  if (size > 0x7fffffff) return SFU_E_SECTION_TOO_LARGE;
  const uint8_t *p = static_cast<const uint8_t *>(note);
  const bool big = big_endian != 0;
  auto u32 = [p, big](uint64_t at) { return uint32_t(sfu::sframe::load_field<4>(p + at, big)); };
  // Bounded: each pass moves at least one note header forward.
  for (uint64_t at = 0; at < size;) {
    if (size - at < kNoteHeader) return SFU_E_BUILD_ID_TRUNCATED;
    uint32_t namesz = u32(at), descsz = u32(at + 4), type = u32(at + 8);
    uint64_t name_at = at + kNoteHeader, desc_at = name_at + pad4(namesz);
    if (desc_at > size || descsz > size - desc_at) return SFU_E_BUILD_ID_TRUNCATED;
    // namesz 4 fits: desc_at is past the name's padded bytes.
    if (namesz == 4 && type == kNtGnuBuildId && u32(name_at) == (big ? kGnuBig : kGnuLittle)) {
      if (descsz == 0 || descsz > SFU_BUILD_ID_MAX) return SFU_E_BAD_BUILD_ID_SIZE;
      *id = p + desc_at;
      *id_size = descsz;
      return SFU_OK;
    }
    at = desc_at + pad4(descsz);
  }
  return SFU_E_NOT_A_BUILD_ID;
}
