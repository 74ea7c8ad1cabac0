/* Scenario 12, the profiler (profile.h; tests/qemu/README.md, "The profile kernels").
 *
 * The workload: three functions of the same code, run in each round for 6, 3 and 1 parts of
 * PROFILE_PART iterations. Under -icount a tick comes after a number of instructions, so the
 * share of ticks that land in each function is its share of the instructions: 60, 30 and 10
 * percent, less the few instructions of the loop around them. The runner checks `sfu profile`'s
 * table against those shares, and its folded stacks against this file's second count of the same
 * samples (the tally), which walks each tick itself and prints its stacks as raw addresses. */
#include "profile.h"

#include "sfu/profile.h"

/* What the profile holds: a few dozen distinct stacks (each tick's PC among a handful of
 * instructions per function, under a fixed chain of callers) of six or seven frames. */
#define PROFILE_STACKS 256
#define PROFILE_DEPTH 32

/* Iterations of one part. A round is then 10 parts of 1 to 2 instructions an iteration, at most
 * 8,000 instructions: shorter than the shortest interval, so ticks fall on every phase of it. */
#define PROFILE_PART 400

/* The period sfu profile and pprof print: the mean interval, in instructions of the workload. */
#define PROFILE_PERIOD (PROFILE_INTERVAL_MIN * 3 / 2)

/* What a kernel adds (docs/profiling.md and the README quote it). */
/* porting.md: profile-kernel begin */
static uint64_t profile_memory[SFU_PROFILE_MEMORY_SIZE(PROFILE_STACKS, PROFILE_DEPTH) / 8];
static struct sfu_profile profile;
static struct sfu_walk_config walk_config; /* the kernel's stacks and trap entries */

static enum sfu_error profile_setup(void) {
  struct sfu_profile_params params = {PROFILE_STACKS, PROFILE_DEPTH, PROFILE_PERIOD, "instructions"};
  arch_walk_config(&walk_config);
  return sfu_profile_init(&profile, profile_memory, sizeof profile_memory, &params);
}

/* From the timer interrupt, with the registers it interrupted. */
static void profile_sample(const struct sfu_regs *regs) { sfu_profile_sample(&profile, regs, &walk_config); }

/* Whenever the kernel likes: a shell command, the end of a boot, a panic. */
static void profile_dump(void) { sfu_profile_print(&console, &profile); }
/* porting.md: profile-kernel end */

static volatile int profile_done;
static volatile uint64_t rounds;
static uint64_t ticks, lcg = 0x9e3779b97f4a7c15ull;

uint64_t profile_next_interval(void) {
  lcg = lcg * 6364136223846793005ull + 1442695040888963407ull;
  return PROFILE_INTERVAL_MIN + (lcg >> 33) % PROFILE_INTERVAL_MIN;
}

/* ---- The workload ------------------------------------------------------------------------- */

/* noipa: each keeps its own copy of the loop (no merging of identical functions, no cloning for
 * the constant count), so the three differ only in the count they are given. */
#define WORK __attribute__((noipa))

WORK static void profile_hot(unsigned n) {
  for (; n; n--) __asm__ volatile("");
}
WORK static void profile_warm(unsigned n) {
  for (; n; n--) __asm__ volatile("");
}
WORK static void profile_cold(unsigned n) {
  for (; n; n--) __asm__ volatile("");
}

/* The parts, and the shares they give: printed for the runner as "sfu-share NAME PARTS TOTAL". */
#define HOT_PARTS 6
#define WARM_PARTS 3
#define COLD_PARTS 1

WORK static void profile_round(void) {
  profile_hot(HOT_PARTS * PROFILE_PART);
  profile_warm(WARM_PARTS * PROFILE_PART);
  profile_cold(COLD_PARTS * PROFILE_PART);
  rounds++; /* after the last call: it is not a tail call, profile_round stays its caller */
}

WORK static void profile_run(void) {
  while (!profile_done) profile_round();
}

/* ---- The independent count ---------------------------------------------------------------- */

/* Each tick's stack as its own walk (sfu_walk_start/next, not the profiler) gives it: the lookup
 * address of every frame and the stop, counted in a table of its own. */
struct tally_entry {
  uint64_t count;
  uint32_t stop, depth;
  uint64_t pcs[PROFILE_DEPTH];
};
static struct tally_entry tally[PROFILE_STACKS];
static unsigned tally_used;
static uint64_t tally_full, tally_cut;

static void tally_sample(const struct sfu_regs *regs) {
  struct sfu_cursor cursor;
  struct sfu_frame frame;
  uint64_t pcs[PROFILE_DEPTH];
  uint32_t depth = 0;
  sfu_walk_start(&cursor, regs, &walk_config);
  while (sfu_walk_next(&cursor, &frame)) {
    if (depth == PROFILE_DEPTH) {
      tally_cut++; /* a deeper stack than the profile keeps: not compared, and fails the run */
      return;
    }
    pcs[depth++] = sfu_frame_lookup_pc(&frame);
  }
  uint32_t stop = (uint32_t)sfu_walk_stop(&cursor);
  for (unsigned i = 0; i < tally_used; i++) {
    struct tally_entry *e = &tally[i];
    if (e->stop != stop || e->depth != depth) continue;
    unsigned k = 0;
    while (k < depth && e->pcs[k] == pcs[k]) k++;
    if (k == depth) {
      e->count++;
      return;
    }
  }
  if (tally_used == PROFILE_STACKS) {
    tally_full++;
    return;
  }
  struct tally_entry *e = &tally[tally_used++];
  e->count = 1;
  e->stop = stop;
  e->depth = depth;
  for (unsigned k = 0; k < depth; k++) e->pcs[k] = pcs[k];
}

/* "sfu-raw-stack COUNT STOP ADDR ..." per distinct stack, innermost first, then
 * "sfu-raw-end stacks=S samples=N". */
static uint64_t tally_print(void) {
  uint64_t sum = 0;
  for (unsigned i = 0; i < tally_used; i++) {
    kputs("sfu-raw-stack ");
    kput_dec(tally[i].count);
    kputs(" ");
    kputs(sfu_stop_name((enum sfu_stop)tally[i].stop));
    for (unsigned k = 0; k < tally[i].depth; k++) {
      kputs(" ");
      kput_hex(tally[i].pcs[k]);
    }
    kputs("\n");
    sum += tally[i].count;
  }
  kputs("sfu-raw-end stacks=");
  kput_dec(tally_used);
  kputs(" samples=");
  kput_dec(sum);
  kputs("\n");
  return sum;
}

/* ---- The scenario ------------------------------------------------------------------------- */

int profile_tick(const struct sfu_regs *regs) {
  profile_sample(regs);
  tally_sample(regs);
  if (++ticks < PROFILE_SAMPLES) return 1;
  profile_done = 1;
  return 0;
}

static void share(const char *name, unsigned parts) {
  kputs("sfu-share ");
  kputs(name);
  kputs(" ");
  kput_dec(parts);
  kputs(" ");
  kput_dec(HOT_PARTS + WARM_PARTS + COLD_PARTS);
  kputs("\n");
}

int scenario_profile(void) {
  enum sfu_error err = profile_setup();
  if (err != SFU_OK) {
    kputs("sfu-error profile init ");
    sfu_print_error(&console, err);
    kputs("\n");
    return 1;
  }
  share("profile_hot", HOT_PARTS);
  share("profile_warm", WARM_PARTS);
  share("profile_cold", COLD_PARTS);
  arch_profile_start();
  profile_run();
  arch_profile_stop();

  profile_dump();
  uint64_t tallied = tally_print();

  /* On the device: every tick sampled, none dropped or cut, and the tally whole. */
  uint64_t samples = sfu_profile_samples(&profile), lost = 0;
  for (unsigned l = 0; l < SFU_PROFILE_LOSS_COUNT; l++) lost += sfu_profile_lost(&profile, (enum sfu_profile_loss)l);
  kernel_count("12-profile/samples", samples - lost, ticks);
  kernel_count("12-profile/tally", tallied, ticks); /* less any tally_full or tally_cut */
  kputs("profile: ");
  kput_dec(ticks);
  kputs(" ticks, ");
  kput_dec(rounds);
  kputs(" rounds\n");
  return ticks < PROFILE_SAMPLES || samples != ticks;
}
