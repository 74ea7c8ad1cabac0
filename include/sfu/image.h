/* Registering the image's own table, from the symbols linker/sfunwind.ld defines.
 * Header-only on purpose: the linker symbols are resolved in the kernel's own object, so the
 * sfunwind archive itself needs no symbol a kernel might not have. */
#ifndef SFU_IMAGE_H
#define SFU_IMAGE_H

#include "sfu/unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const unsigned char __sfu_sframe_start[], __sfu_sframe_end[];

/* Call once at boot, in normal context, once the image runs at its link address. text_start and
 * text_end bound the code the table describes (usually your _stext/_etext). */
static inline enum sfu_error sfu_register_image(struct sfu_module *module, const void *text_start,
                                                const void *text_end) {
  struct sfu_table_desc desc;
  desc.section = __sfu_sframe_start;
  desc.size = (size_t)(__sfu_sframe_end - __sfu_sframe_start);
  desc.section_addr = (uint64_t)(uintptr_t)__sfu_sframe_start;
  desc.text_start = (uint64_t)(uintptr_t)text_start;
  desc.text_end = (uint64_t)(uintptr_t)text_end;
  desc.abi = SFU_ABI_ANY;
  return sfu_register(module, &desc, "image");
}

#ifdef __cplusplus
}
#endif

#endif /* SFU_IMAGE_H */
