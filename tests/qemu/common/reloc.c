/* Scenario 11, an image that runs away from its link address: the move at boot (reloc_move, at
 * the load address) and what the copy says about it once it runs (crash_boot_started). See
 * reloc.h and tests/qemu/README.md, "Images that move themselves". */
#include "reloc.h"

#include "crash.h"
#include "kernel.h"

#if defined(__aarch64__)
#define R_RELATIVE 1027 /* R_AARCH64_RELATIVE */
#elif defined(__x86_64__)
#define R_RELATIVE 8 /* R_X86_64_RELATIVE */
#elif defined(__s390x__)
#define R_RELATIVE 12 /* R_390_RELATIVE */
#else
#error "no reloc kernel for this architecture"
#endif

/* Hidden: the compiler reaches them PC-relative, never through the GOT, whose entries hold
 * nothing usable before the relocations are applied (arm64's ld leaves RELA fields 0). Aligned:
 * s390x's larl reaches only even addresses, and for a symbol that might be odd gcc goes through
 * the GOT (GOTOFF) instead; the linker script aligns each of them to 8. */
#define HIDDEN __attribute__((visibility("hidden"), aligned(8)))

/* From reloc/kernel.lds.S: the image from its first byte to the end of the crash area (what the
 * copy takes up), the loaded part of it (what is copied), .bss, and the dynamic relocations. */
extern char __reloc_image_start[] HIDDEN, __reloc_load_end[] HIDDEN, __reloc_image_end[] HIDDEN;
extern char __bss_start[] HIDDEN, __bss_end[] HIDDEN;
struct elf64_rela {
  uint64_t offset; /* a link-time address */
  uint64_t info;   /* the type in the low 32 bits */
  int64_t addend;
};
extern const struct elf64_rela __rela_start[] HIDDEN, __rela_end[] HIDDEN;

/* In .data: written by reloc_move into the copy before the copy's _start clears .bss. */
HIDDEN struct reloc_info reloc_info __attribute__((section(".data")));

uint64_t reloc_slot(uint64_t seed, uint64_t link, uint64_t span, uint64_t *slots) {
  const uint64_t lo = RELOC_WINDOW_LO, hi = RELOC_WINDOW_HI, align = RELOC_ALIGN;
  *slots = 0;
  if (hi <= lo || span > hi - lo) return link;
  uint64_t count = (hi - lo - span) / align + 1; /* slot k at lo + k * align */
  /* Slots that end at or before link, then those that start at or after link + span. */
  uint64_t below = link >= lo + span ? (link - lo - span) / align + 1 : 0;
  if (below > count) below = count;
  uint64_t first_above = link + span <= lo ? 0 : (link + span - lo + align - 1) / align;
  uint64_t above = first_above < count ? count - first_above : 0;
  *slots = below + above;
  if (*slots == 0) return link;
  uint64_t i = seed % *slots;
  return lo + (i < below ? i : first_above + (i - below)) * align;
}

uint64_t reloc_move(void) {
  uint64_t seed = *(volatile const uint64_t *)RELOC_SEED_ADDR;
  uint64_t load = (uint64_t)__reloc_image_start;
  uint64_t span = (uint64_t)(__reloc_image_end - __reloc_image_start);
  span = (span + RELOC_ALIGN - 1) & ~(uint64_t)(RELOC_ALIGN - 1);
  uint64_t slots;
  uint64_t run = reloc_slot(seed, RELOC_LINK_BASE, span, &slots);
  uint64_t shift = run - load; /* from here to the copy (0 if no slot: relocated in place) */
  uint64_t bias = run - RELOC_LINK_BASE;

  if (shift) {
    /* Word by word: the image's parts are 8-byte aligned, and the copy does not overlap it. */
    const volatile uint64_t *from = (const uint64_t *)__reloc_image_start;
    volatile uint64_t *to = (uint64_t *)run;
    for (uint64_t n = (uint64_t)(__reloc_load_end - __reloc_image_start) / 8; n; n--) *to++ = *from++;
  }
  for (volatile uint64_t *p = (uint64_t *)((uint64_t)__bss_start + shift);
       p < (uint64_t *)((uint64_t)__bss_end + shift); p++)
    *p = 0;
  uint64_t relocs = 0, other = 0;
  for (const struct elf64_rela *r = __rela_start; r < __rela_end; r++) {
    if ((r->info & 0xffffffffu) == R_RELATIVE) {
      *(volatile uint64_t *)(r->offset + bias) = (uint64_t)r->addend + bias;
      relocs++;
    } else {
      other++;
    }
  }
  struct reloc_info *info = (struct reloc_info *)((uint64_t)&reloc_info + shift);
  info->seed = seed;
  info->load = load;
  info->run = run;
  info->bias = bias;
  info->relocs = relocs;
  info->other = other;
  info->slots = slots;
  return shift;
}

/* common/crash.c, after "sfu-boot N": where this boot moved the image. The runner checks the
 * seed is its own, the bias the one the seed gives, and the text start the backtraces print
 * (their module lines) the link-time _stext plus the bias. */
void crash_boot_started(void) {
  kputs("sfu-reloc seed ");
  kput_hex(reloc_info.seed);
  kputs(" load ");
  kput_hex(reloc_info.load);
  kputs(" run ");
  kput_hex(reloc_info.run);
  kputs(" bias ");
  kput_hex(reloc_info.bias);
  kputs(" relocs ");
  kput_dec(reloc_info.relocs);
  kputs("\n");
  if (!reloc_info.slots) kputs("sfu-error 11-reloc: no place in the window for the copy\n");
  if (reloc_info.other) {
    kputs("sfu-error 11-reloc: relocations other than R_*_RELATIVE: ");
    kput_dec(reloc_info.other);
    kputs("\n");
  }
  if (!reloc_info.relocs) kputs("sfu-error 11-reloc: no relocation applied\n");
  if ((uint64_t)__reloc_image_start != reloc_info.run) {
    kputs("sfu-error 11-reloc: running at ");
    kput_hex((uint64_t)__reloc_image_start);
    kputs(", not in the copy\n");
  }
  /* Said once: a later boot that did not move the image again (a reset into the copy) says seed
   * 0 and relocs 0, and fails. (load stays: s390x's reset goes back there, reloc/reset.c.) */
  reloc_info.seed = 0;
  reloc_info.relocs = 0;
}
