/* Registering the image's own table, from the symbols the linker fragments define.
 * Header-only on purpose: the linker symbols are resolved in the kernel's own object, so the
 * sfunwind archive itself needs no symbol a kernel might not have. */
#ifndef SFU_IMAGE_H
#define SFU_IMAGE_H

#include "sfu/unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The symbols of the linker fragments, all weak: an image whose script lacks one still links
 * (the symbol is then 0). Without linker/sfunwind.ld or sfunwind-reserve.ld (the table) an image
 * that calls sfu_register_image, or only carries a call to it (a guest image or a second-stage
 * loader sharing the kernel's code), links and the registration answers SFU_E_EMPTY
 * (empty-section); without sfunwind-symbols.ld or sfunwind-build-id.ld it registers without
 * names or build-id. Hidden as well: they are resolved inside the image, so a position-
 * independent image gets at most R_*_RELATIVE relocations for them, never one against a symbol. */
extern const unsigned char __sfu_sframe_start[] __attribute__((weak, visibility("hidden")));
extern const unsigned char __sfu_sframe_end[] __attribute__((weak, visibility("hidden")));
extern const unsigned char __sfu_symbols_start[] __attribute__((weak, visibility("hidden")));
extern const unsigned char __sfu_symbols_end[] __attribute__((weak, visibility("hidden")));
extern const unsigned char __sfu_build_id_start[] __attribute__((weak, visibility("hidden")));
extern const unsigned char __sfu_build_id_end[] __attribute__((weak, visibility("hidden")));

/* Call at boot, in normal context, with .bss zeroed and writable (registration writes *module
 * and the registry in sfunwind's .bss) and, unless the library is built with CONFIG_SFU_SMP=n,
 * with the MMU and caches on (the registry claims a slot with a compare-and-swap: on arm64
 * without LSE, exclusives). text_start and text_end bound the code the table describes (usually
 * your _stext/_etext).
 *
 * Where the image runs: the module keeps text_start/text_end and the linker symbols' addresses
 * as the code computes them at the call, and a walk compares them with the PCs it meets. So
 * register with the addresses the image runs at when it registers: where it was linked for a
 * kernel loaded there, the run-time addresses for a KASLR kernel or a PIE image (the code
 * computes them; nothing to add). An image that moves itself (firmware that copies itself to the
 * top of RAM) registers after the move, once it runs in the new copy and has applied its
 * relocations. One that registered before the move unregisters (sfu_unregister) before it copies
 * itself and registers again afterwards: the module, and the registry's slot if .bss is copied
 * too, hold addresses of the old copy. Backtraces and crash records print each module's run-time
 * text range and build-id, from which the host tools find how far the image moved.
 *
 * The table decides (its error is returned, and the module is not registered on one); the
 * symbol table and the build-id are taken when present and valid, and module->symbols_error /
 * build_id_error say why not otherwise (no-symbol-table, no-build-id when the script has none). */
static inline enum sfu_error sfu_register_image(struct sfu_module *module, const void *text_start,
                                                const void *text_end);

/* The same, giving memory for the table's block index (sfu/sframe.h): 8-byte aligned, at least
 * sfu_index_size bytes for [text_start, text_end), e.g. a static array of
 * SFU_INDEX_BYTES(the most text the image will have) bytes. NULL and 0: none. */
static inline enum sfu_error sfu_register_image_indexed(struct sfu_module *module, const void *text_start,
                                                        const void *text_end, void *index, size_t index_size) {
  struct sfu_module_desc desc;
  desc.table.section = __sfu_sframe_start;
  desc.table.size = (size_t)(__sfu_sframe_end - __sfu_sframe_start);
  desc.table.section_addr = (uint64_t)(uintptr_t)__sfu_sframe_start;
  desc.table.text_start = (uint64_t)(uintptr_t)text_start;
  desc.table.text_end = (uint64_t)(uintptr_t)text_end;
  desc.table.abi = SFU_ABI_ANY;
  desc.name = "image";
  desc.symbols = __sfu_symbols_start;
  desc.symbols_size = (size_t)(__sfu_symbols_end - __sfu_symbols_start);
  desc.symbols_addr = (uint64_t)(uintptr_t)__sfu_symbols_start;
  desc.build_id_note = __sfu_build_id_start;
  desc.build_id_note_size = (size_t)(__sfu_build_id_end - __sfu_build_id_start);
  desc.index = index;
  desc.index_size = index_size;
  return sfu_register_module(module, &desc);
}

static inline enum sfu_error sfu_register_image(struct sfu_module *module, const void *text_start,
                                                const void *text_end) {
  return sfu_register_image_indexed(module, text_start, text_end, 0, 0);
}

#ifdef __cplusplus
}
#endif

#endif /* SFU_IMAGE_H */
