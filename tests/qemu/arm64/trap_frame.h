/* The registers the exception entry code (vectors.S) saves, at the SP it calls C with. Shared by
 * the assembly and C: the walker's trap layout (walk.c) is built from these offsets too. */
#ifndef ARM64_TRAP_FRAME_H
#define ARM64_TRAP_FRAME_H

#define TF_X(n) ((n)*8) /* x0..x30 */
#define TF_SP (31 * 8)  /* the interrupted SP: SP_EL0 for task code, SP_EL1 inside handlers */
#define TF_ELR (32 * 8) /* where the interrupted code stopped */
#define TF_SPSR (33 * 8)
#define TF_SIZE (34 * 8) /* a multiple of 16: SP stays aligned */

#ifndef __ASSEMBLER__
#include <stdint.h>

struct trap_frame {
  uint64_t x[31];
  uint64_t sp;
  uint64_t elr;
  uint64_t spsr;
};

_Static_assert(__builtin_offsetof(struct trap_frame, sp) == TF_SP, "trap frame layout");
_Static_assert(__builtin_offsetof(struct trap_frame, elr) == TF_ELR, "trap frame layout");
_Static_assert(__builtin_offsetof(struct trap_frame, spsr) == TF_SPSR, "trap frame layout");
_Static_assert(sizeof(struct trap_frame) == TF_SIZE, "trap frame layout");
#endif

#endif /* ARM64_TRAP_FRAME_H */
