/* Scenario 11, an image that runs away from its link address (tests/qemu/README.md, "Moved
 * images"): the reloc kernels are the crash kernels linked position independent (-static-pie),
 * which move themselves at boot as self-relocating firmware and KASLR kernels do. Each
 * architecture's reloc/start.S enters at the load address, calls reloc_move, and jumps to the
 * copy's _start; the rest is the crash kernel's (common/crash.c, <arch>/crash.c).
 *
 * Built with, from the architecture's kernel.mk (the runner reads the window back from the ELF's
 * absolute symbols __reloc_window_lo, __reloc_window_hi, __reloc_align):
 *   RELOC_LINK_BASE       where the image is linked, and where QEMU loads it
 *   RELOC_SEED_ADDR       the 8-byte seed the runner gives (QEMU's generic loader, again at each
 *                         reset), read in the CPU's byte order
 *   RELOC_WINDOW_LO, _HI  the memory the copy may go to: [LO, HI)
 *   RELOC_ALIGN           the copy's alignment, a multiple of the page size */
#ifndef SFU_QEMU_RELOC_H
#define SFU_QEMU_RELOC_H

#include <stdint.h>

/* What reloc_move did, written into the copy's .data before the jump (not .bss: _start zeroes
 * that). */
struct reloc_info {
  uint64_t seed;    /* the word at RELOC_SEED_ADDR */
  uint64_t load;    /* where the image was loaded and reloc_move ran: its first byte */
  uint64_t run;     /* where the copy is: its first byte */
  uint64_t bias;    /* run - RELOC_LINK_BASE */
  uint64_t relocs;  /* R_*_RELATIVE relocations applied */
  uint64_t other;   /* relocations of any other type (left alone: each is a failure) */
  uint64_t slots;   /* places in the window the copy could have gone to (0: none; not moved) */
};
extern struct reloc_info reloc_info;

/* At the load address, before anything else (no relocation applied yet, so it reads no pointer
 * from memory): derives the copy's place from the seed, copies the loaded image there, zeroes the
 * copy's .bss, applies every R_*_RELATIVE relocation of .rela.dyn to the copy (addend + bias),
 * writes reloc_info into the copy, and returns how far the copy is from the loaded image (run -
 * load; the bias too, as QEMU loads the image at its link address). The caller jumps to its own
 * _start plus that. */
uint64_t reloc_move(void);

/* The copy's place for a seed: the window's aligned slot number seed mod the number of slots,
 * counting only those whose [slot, slot + span) lies in the window and off [link, link + span).
 * *slots: their number. The runner computes the same (run.py, reloc_slot). */
uint64_t reloc_slot(uint64_t seed, uint64_t link, uint64_t span, uint64_t *slots);

#endif /* SFU_QEMU_RELOC_H */
