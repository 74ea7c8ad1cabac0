/* Scenario 10 on arm64, a walk whose stack read faults (10-nofault). Every walk of the scenario
 * kernels reads stack words through this sfu_hook_read_nofault, whose loads are listed in the
 * fixup table (arm64.h: FIXUP): an abort on one resumes at its fixup (traps.c), and the hook
 * says no instead of the run ending.
 *
 * The MMU is off, so nothing is unmapped; but a load from a physical address where QEMU's virt
 * board has nothing (HOLE: between the virtio-mmio transports, which end at 0x0a004000, and the
 * platform bus at 0x0c000000) is a synchronous external abort (EC 0x25, DFSC 0x10).
 *   10-nofault/hole   a walk from hole_stack with its SP moved into a stack declared at HOLE:
 *                     the first read of the frame aborts, the hook refuses, and the walk stops
 *                     with read-refused, unreliable. sfu-count 10-nofault/fixups: the abort
 *                     came (a walk outside every stack would stop so too, without reading). */
#include "arm64.h"

#define HOLE 0x0b000000ull
#define HOLE_SIZE 0x10000ull

/* One byte at a time; an abort on the load resumes at 2 with failed still 1. */
static __attribute__((noipa)) int copy_nofault(uint8_t *dst, uint64_t src, size_t len) {
  for (size_t i = 0; i < len; i++) {
    uint32_t failed, b;
    __asm__ volatile("mov %w[f], #1\n"
                     "1: ldrb %w[b], [%[s]]\n"
                     "mov %w[f], #0\n"
                     "2:\n" FIXUP(1b, 2b)
                     : [f] "=&r"(failed), [b] "=&r"(b)
                     : [s] "r"(src + i)
                     : "memory");
    if (failed) return -1;
    dst[i] = (uint8_t)b;
  }
  return 0;
}

int sfu_hook_read_nofault(void *dst, uint64_t src, size_t len) {
  return copy_nofault((uint8_t *)dst, src, len);
}

/* The frame of the walk: at the PC after sfu_capture_here its return address is saved on the
 * stack, so the walker's first read is at the SP (moved into the hole) plus the frame. */
static __attribute__((noipa)) int hole_stack(void) {
  static const struct sfu_stack stack = {HOLE, HOLE + HOLE_SIZE, SFU_STACK_TASK};
  struct sfu_walk_config config = {0};
  arch_walk_config(&config);
  config.stacks = &stack;
  config.num_stacks = 1;
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  regs.r[SFU_ARM64_SP] = HOLE + HOLE_SIZE / 2;
  unsigned before = trap_fixups();
  kputs("sfu-trace 10-nofault/hole\nsfu-expect hole_stack | read-refused unreliable\n");
  sfu_print_backtrace(&console, &regs, &config);
  kputs("sfu-end\n");
  unsigned fixed = trap_fixups() - before;
  kernel_count("10-nofault/fixups", fixed > 0, 1);
  return fixed == 0;
}

int scenario_nofault(void) { return hole_stack(); }
