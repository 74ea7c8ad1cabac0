/* Registering the image's own table, from the symbols the linker fragments define.
 * Header-only on purpose: the linker symbols are resolved in the kernel's own object, so the
 * sfunwind archive itself needs no symbol a kernel might not have. */
#ifndef SFU_IMAGE_H
#define SFU_IMAGE_H

#include "sfu/unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* linker/sfunwind.ld or linker/sfunwind-reserve.ld: required. */
extern const unsigned char __sfu_sframe_start[], __sfu_sframe_end[];
/* linker/sfunwind-symbols.ld and linker/sfunwind-build-id.ld: weak, so an image whose script
 * lacks them still links (they are then 0) and registers without names or build-id. */
extern const unsigned char __sfu_symbols_start[] __attribute__((weak));
extern const unsigned char __sfu_symbols_end[] __attribute__((weak));
extern const unsigned char __sfu_build_id_start[] __attribute__((weak));
extern const unsigned char __sfu_build_id_end[] __attribute__((weak));

/* Call once at boot, in normal context, once the image runs at its link address, with .bss zeroed
 * and writable (registration writes *module and the registry in sfunwind's .bss) and, unless the
 * library is built with CONFIG_SFU_SMP=n, with the MMU and caches on (the registry claims a slot
 * with a compare-and-swap: on arm64 without LSE, exclusives). text_start and
 * text_end bound the code the table describes (usually your _stext/_etext). The table decides
 * (its error is returned, and the module is not registered on one); the symbol table and the
 * build-id are taken when present and valid, and module->symbols_error / build_id_error say why
 * not otherwise (no-symbol-table, no-build-id when the script has none). */
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
