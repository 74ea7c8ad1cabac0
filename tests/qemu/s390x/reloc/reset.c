/* Where a reset starts the s390x reloc kernel again (scenario 11, common/reloc.h): arch_reset
 * (traps.c) asks here instead of taking _start, which is the copy's. The loaded image's entry,
 * reloc_start where reloc_move found it, moves the kernel again from the image as loaded, as the
 * other architectures' resets do (their loaders load the image again). */
#include "reloc.h"
#include "traps.h"

/* Aligned: larl reaches them (reloc.c). */
extern char reloc_start[] __attribute__((visibility("hidden"), aligned(8)));
extern char __reloc_image_start[] __attribute__((visibility("hidden"), aligned(8)));

uint64_t arch_reset_entry(void) { return reloc_info.load + (uint64_t)(reloc_start - __reloc_image_start); }
