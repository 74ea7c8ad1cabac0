// How Breakpad identifies an ELF module, as its dump_syms writes the MODULE and INFO CODE_ID
// lines of a symbol file and as its processors look the file up (SYMBOL-PATH/<name>/<id>/<name>.sym):
//   - the identifier: the GNU build-id (the .note.gnu.build-id section when there is one, else
//     the first PT_NOTE segment holding one); without a build-id, 16 bytes made by XOR-ing the
//     first page of .text together, 16 bytes at a time;
//   - the module id: the identifier's first 16 bytes (zero-padded), read as a GUID whose first
//     three fields (4, 2 and 2 bytes) are little-endian, printed as uppercase hex with those fields
//     byte-swapped, then the "age" 0: 33 characters;
//   - the code id: the whole identifier as uppercase hex, unswapped;
//   - the architecture name: x86_64, arm64, and "s390" for every EM_S390 image (Breakpad has no
//     separate name for s390x);
//   - the module name: the DT_SONAME of a shared object, else the file's base name;
//   - the load address, which every address of the symbol file is relative to: the first
//     PT_LOAD's p_vaddr (load_address, tools/elf/elf_file.h).
// Host code; used by `sfu breakpad` and by the minidump writer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/elf/elf_file.h"

namespace sfu::tools::breakpad {

// Breakpad's name for an ELF machine (e_machine), or nullptr where it has none.
const char *architecture_name(uint16_t machine);

struct ModuleIdentity {
  std::vector<uint8_t> identifier;  // the build-id, or the 16-byte hash of .text
  bool from_build_id = false;
  std::string id;       // "2DD4389989B11B2983F2AB5F49A05C350"
  std::string code_id;  // "9938D42DB189291B83F2AB5F49A05C354FBF1B8D"
};

// The GNU build-id of the image as Breakpad finds it: false when there is none.
bool breakpad_build_id(const ElfImage &image, const std::vector<ElfSegment> &segments, std::vector<uint8_t> &out);

// The identifier, module id and code id of an image. False with `error` when the image has
// neither a build-id nor a non-empty .text to hash (Breakpad then writes no symbol file).
bool module_identity(const ElfImage &image, ModuleIdentity &out, std::string &error);

// The module id of an identifier (a build-id, or any bytes): 32 hex digits and the age "0".
std::string module_id_text(const std::vector<uint8_t> &identifier);
// The code id: every byte of the identifier as uppercase hex.
std::string code_id_text(const std::vector<uint8_t> &identifier);

// The MODULE line's name: the image's DT_SONAME (from .dynamic and .dynstr) when it has one,
// else the last component of `path`.
std::string module_name(const ElfImage &image, const std::string &path);

// The address the symbol file's addresses are relative to is load_address (tools/elf/elf_file.h).

}  // namespace sfu::tools::breakpad
