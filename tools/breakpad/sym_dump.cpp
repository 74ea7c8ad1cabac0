// A whole symbol file. See sym_dump.h.
#include "tools/breakpad/sym_dump.h"

#include "tools/breakpad/module_id.h"
#include "tools/breakpad/sym_cfi.h"
#include "tools/breakpad/sym_dwarf.h"
#include "tools/breakpad/sym_writer.h"

namespace sfu::tools::breakpad {

bool dump_symbols(const ElfImage &image, const std::string &path, const SymDumpOptions &options, SymDump &out,
                  std::string &error) {
  out = SymDump{};
  const char *arch = architecture_name(image.machine);
  if (!arch) return (error = "machine " + std::to_string(image.machine) + " has no Breakpad architecture name", false);
  ModuleIdentity identity;
  std::vector<ElfSegment> segments;
  if (!module_identity(image, identity, error) || !read_segments(image, segments, error)) return false;
  SymModule m;
  m.arch = arch;
  m.id = identity.id;
  m.code_id = identity.code_id;
  m.name = module_name(image, path);
  m.load_address = load_address(segments);
  m.multiple_field = options.multiple;
  for (const ElfSegment &s : segments)
    if (s.type == kPtLoad) m.loaded.push_back({s.vaddr, s.memsz});
  if (!dwarf_to_module(image, m, error)) return false;
  size_t fdes = 0, sframe_functions = 0;
  if (!cfi_to_module(image, m, fdes, error)) return false;
  if (fdes) {
    out.stack_from = ".eh_frame/.debug_frame";
  } else {
    if (!sframe_to_module(image, m, sframe_functions, error)) return false;
    if (sframe_functions) {
      out.stack_from = ".sframe";
      m.info.push_back("GENERATOR sfu breakpad: STACK CFI from .sframe (the image has no DWARF CFI)");
    }
  }
  out.text = m.write();
  out.name = m.name;
  out.id = m.id;
  out.functions = m.function_count();
  out.publics = m.public_count();
  out.stack_entries = m.stack_entry_count();
  return true;
}

}  // namespace sfu::tools::breakpad
