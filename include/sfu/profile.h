/* A sampling profiler on the walk (CONFIG_SFU_PROFILE, default n).
 *
 * The kernel calls sfu_profile_sample from its timer interrupt (or an NMI) with the interrupted
 * registers. Each sample walks from them and counts its stack in a fixed table of distinct stacks
 * that lives in memory the caller gives: no allocation, no lock. What does not fit is counted by
 * reason, never lost silently. sfu_profile_print writes the profile as checksummed text lines
 * (docs/profile-format.md) that `sfu profile` turns into a table, folded stacks, pprof or an SVG
 * flame graph (docs/profiling.md).
 *
 * Concurrency: every function here but sfu_profile_init may run at once on any number of CPUs, and
 * a sample may interrupt another sample or a print on the same CPU. A stack's entry is claimed with
 * one compare-and-swap and published with a release store; counts are atomic adds. Two samples
 * that meet a new stack at the same moment may each claim an entry for it: the printed profile then
 * lists that stack twice, and readers add the counts up. One profile for all CPUs or one per CPU
 * both work; per-CPU profiles avoid sharing cache lines at high sample rates, and a log holding
 * several profiles of one image is summed by `sfu profile`. An entry a sample claimed but has not
 * published yet (it was interrupted, or is running on another CPU) is passed over by the others,
 * never compared: it costs at most a duplicate line. With CONFIG_SFU_SMP=n (one CPU, no atomic
 * read-modify-write: src/atomic.h) claims and counts are plain loads and stores, as registration's
 * are: a sample that interrupts another sample (an NMI over the timer's) may then lose a count or
 * the stack the interrupted one was claiming; a sample over a print stays safe.
 *
 * Stack use: the walk's cursor and frame, and 8 bytes per frame kept (max_depth), on the stack of
 * the interrupt that samples.
 */
#ifndef SFU_PROFILE_H
#define SFU_PROFILE_H

#include "sfu/types.h"

#include "sfu/print.h"
#include "sfu/unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a profile is sized for, fixed at sfu_profile_init. */
struct sfu_profile_params {
  uint32_t max_stacks; /* distinct stacks kept, at least 1 */
  uint32_t max_depth;  /* frames kept per stack, 1..SFU_PROFILE_MAX_DEPTH; deeper stacks are cut */
  uint64_t period;     /* the sampling period, in period_unit units (printed, for pprof); 0 if unknown */
  const char *period_unit; /* "nanoseconds" (NULL means that), "cycles", "instructions", ...: 1 to */
                           /* 32 printable ASCII bytes, no space (one printed field); kept, not copied */
};

#define SFU_PROFILE_MAX_DEPTH 256

/* Bytes of memory a profile of max_stacks stacks of max_depth frames needs: one entry per stack,
 * 16 bytes of header and 8 per frame. Usable in a static array's size. */
#define SFU_PROFILE_ENTRY_SIZE(max_depth) (16u + 8u * (uint64_t)(max_depth))
#define SFU_PROFILE_MEMORY_SIZE(max_stacks, max_depth) \
  ((uint64_t)(max_stacks) * SFU_PROFILE_ENTRY_SIZE(max_depth))

/* Why a sample was not counted, or counted cut short. Each has a counter in the profile and a
 * line in its print. */
#define SFU_PROFILE_LOSSES(X)                                                                    \
  X(SFU_PROFILE_LOST_TABLE_FULL, "table-full")   /* a new stack found no free entry: dropped */ \
  X(SFU_PROFILE_LOST_BAD_REGS, "bad-regs")       /* NULL profile data, regs or config: dropped */ \
  X(SFU_PROFILE_CUT_AT_DEPTH, "cut-at-depth")    /* counted, its frames beyond max_depth left out */

enum sfu_profile_loss {
#define SFU_PROFILE_LOSS_ENUM(name, text) name,
  SFU_PROFILE_LOSSES(SFU_PROFILE_LOSS_ENUM)
#undef SFU_PROFILE_LOSS_ENUM
  SFU_PROFILE_LOSS_COUNT
};

/* Caller-owned. Fields are private; read them through the functions below. The samples counted,
 * by stop reason, and those cut at the depth are read from the entries themselves: a sample's
 * only shared write is then its stack's count (or a loss counter when it is dropped). */
struct sfu_profile {
  void *memory; /* the entries */
  uint32_t max_stacks, max_depth;
  uint64_t period;
  const char *period_unit;
  uint64_t lost[SFU_PROFILE_LOSS_COUNT]; /* samples dropped, by enum sfu_profile_loss (not cut-at-depth) */
  uint32_t magic;                        /* set last by sfu_profile_init */
};

/* Prepares a profile in memory (8-byte aligned, at least SFU_PROFILE_MEMORY_SIZE of the params),
 * which it clears (those bytes, not the rest of size). Refuses with SFU_E_BAD_PROFILE_PARAMS
 * (max_stacks 0, max_depth 0 or above SFU_PROFILE_MAX_DEPTH, a period_unit that is empty, longer
 * than 32 bytes or holds a space or a byte outside printable ASCII, NULL profile or params) or
 * SFU_E_BAD_PROFILE_MEMORY (NULL, misaligned or too small), leaving *profile unusable, its counters
 * zero: samples into it are dropped as bad-regs, and it prints nothing. Without CONFIG_SFU_PROFILE
 * it answers SFU_E_PROFILE_DISABLED and touches nothing. Call from normal context, before any
 * sample; calling it again on a live profile is not safe. */
enum sfu_error sfu_profile_init(struct sfu_profile *profile, void *memory, size_t size,
                                const struct sfu_profile_params *params);

/* One sample: walks from regs (the interrupted registers) with config as sfu_walk_start does, up
 * to max_depth frames, and adds one to the count of that stack: its frames' lookup addresses
 * (sfu_frame_lookup_pc: the PC where the CPU stopped, a return address less one) and why the walk
 * stopped. Bounded time: one walk of at most max_depth + 1 frames (the profile's bound replaces
 * config->max_frames) and a probe of at most 16 entries. A stack deeper than max_depth is counted
 * with its first max_depth frames and the stop reason SFU_STOP_FRAME_CAP (frame-cap-reached), and
 * as cut-at-depth; a walk that gave no frame (bad-start) is counted as a stack of none. A NULL
 * profile is ignored; every other call counts in sfu_profile_samples. Safe in an interrupt or an
 * NMI, on any CPU. */
void sfu_profile_sample(struct sfu_profile *profile, const struct sfu_regs *regs,
                        const struct sfu_walk_config *config);

/* The profile's counts: every sample taken (dropped ones included), those of one loss, and the
 * counted samples whose walk stopped for one reason (their sum over the reasons: the samples
 * counted in stacks). Each reads the table (max_stacks entries), as a print does; while samples
 * run it may miss the latest. 0 for a NULL profile, a value out of range, or a build without
 * CONFIG_SFU_PROFILE. */
uint64_t sfu_profile_samples(const struct sfu_profile *profile);
uint64_t sfu_profile_lost(const struct sfu_profile *profile, enum sfu_profile_loss loss);
uint64_t sfu_profile_stopped(const struct sfu_profile *profile, enum sfu_stop stop);

/* Prints the profile as docs/profile-format.md says: a begin line, a line per registered module
 * (its run-time text range and build-id), a line per stack with its count, a line per non-zero
 * loss and stop reason, an end line; every line carries a CRC-32. Samples taken while it prints
 * may or may not be in the print; the end line's totals are those of the lines printed. Prints
 * nothing for a NULL or unusable profile, a NULL sink or putc. Safe in any context the sink is,
 * and while samples run, on this CPU (from inside the sink's putc) or others. */
void sfu_profile_print(const struct sfu_sink *sink, const struct sfu_profile *profile);

#ifdef __cplusplus
}
#endif

#endif /* SFU_PROFILE_H */
