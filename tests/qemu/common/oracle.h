/* The debugger oracle (issue 25, tests/qemu/gdb_oracle.py): every K-th walk a stepping kernel
 * checks is handed to gdb too, which unwinds the same interrupted state from the image's DWARF
 * CFI with its own code and compares frame by frame.
 *
 * A stepping handler fills oracle_point with the interrupted registers and the frames its walk
 * gave, then calls oracle_handover(). gdb, attached through QEMU's gdb stub, has a breakpoint
 * there: it loads the registers below into the CPU, unwinds, compares, puts the handler's own
 * registers back and continues. The stepped code's stack above the interrupted SP is untouched by
 * the handler (it runs below it, or on a stack of its own), so gdb reads the same frames the walk
 * read. oracle_every is 0 (never) unless gdb sets it; the kernel prints what was handed over in
 * its counts, gdb what it compared. */
#ifndef SFU_QEMU_ORACLE_H
#define SFU_QEMU_ORACLE_H

#include <stdint.h>

#include "sfu/unwind.h"

#define ORACLE_MAX_FRAMES 64
#define ORACLE_MAX_REGS 40
#define ORACLE_MAX_TRAPS 8

/* regs[], in this order (gdb's register names, gdb_oracle.py has the same lists):
 *   x86_64 (18): rip rsp rbp rax rbx rcx rdx rsi rdi r8 r9 r10 r11 r12 r13 r14 r15 eflags
 *   arm64  (34): pc sp x0 .. x30 cpsr
 *   s390x  (34): pswm pswa r0 .. r15 f0 .. f15 (raw 64-bit contents) */
struct oracle_point {
  uint64_t serial;     /* the stepped instruction's number in its run, from 1 */
  uint64_t num_regs;   /* filled entries of regs[] */
  uint64_t regs[ORACLE_MAX_REGS];
  uint64_t num_frames; /* frames the walk gave, at most ORACLE_MAX_FRAMES */
  uint64_t stop;       /* enum sfu_stop of the walk */
  uint64_t pc[ORACLE_MAX_FRAMES]; /* struct sfu_frame's pc and sp of each frame */
  uint64_t sp[ORACLE_MAX_FRAMES];
  /* The config's trap entry code (sfu_trap_entry start and end), at most ORACLE_MAX_TRAPS: where
   * gdb may stop, calling the frame outermost, while the walk crosses into the interrupted code. */
  uint64_t num_traps;
  uint64_t trap_start[ORACLE_MAX_TRAPS];
  uint64_t trap_end[ORACLE_MAX_TRAPS];
};

extern struct oracle_point oracle_point;
extern volatile uint64_t oracle_every; /* hand every Nth walk over; 0: none (gdb sets it) */
extern uint64_t oracle_handed;         /* walks handed over so far */

/* 1 when the walk of this step is to be handed over (counts calls; every oracle_every-th). */
int oracle_due(void);

/* Fills num_frames, stop, pc[] and sp[] by walking from regs with config (the same walk the
 * handler checks: call it with the same arguments), and num_traps, trap_start[], trap_end[] from
 * config. */
void oracle_record_walk(const struct sfu_regs *regs, const struct sfu_walk_config *config);

/* gdb's breakpoint: returns when gdb has compared oracle_point and continued. */
void oracle_handover(void);

#endif /* SFU_QEMU_ORACLE_H */
