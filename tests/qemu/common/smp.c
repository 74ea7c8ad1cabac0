/* Scenario 9, the SMP kernels' shared half (smp.h; tests/qemu/README.md): walks on every CPU
 * while a module comes and goes.
 *
 * Every CPU takes timer ticks and walks from each one (the sampling of scenario 2, checked here
 * on the device: the walk must reach the CPU's outermost frame, reliably, every return address
 * following a call into the frame before it, and each frame must name the module whose text
 * holds it). CPU 0 meanwhile loads a module (smp-module.c, a separately linked text with its own
 * table and names), registers it, lets the other CPUs call into it, unregisters it, waits for
 * every other CPU to leave it and pass a quiescent point (the grace period the API asks for
 * before freeing), poisons its memory and its struct sfu_module, and loads it again, ROUNDS
 * times. Each load has a generation; a walk that names the module when its generation was
 * unregistered before the walk began fails.
 *
 * Output: sfu-count 9-smp/cpuN (samples of CPU N correct), 9-smp/module (samples with a frame
 * in the module), 9-smp/unloaded (samples taken in the module's text while it was unregistered:
 * the walk must name no module there), 9-smp/cut, 9-smp/rounds (register/unregister rounds that
 * went right). The first wrong sample of each CPU is printed as sfu-error with its frames. */
#include "smp.h"

#define ROUNDS 2000
#define MIN_SAMPLES 1000      /* per CPU: fewer fails the run */
#define MIN_MODULE_SAMPLES 200
#define MAX_FRAMES 64

extern const unsigned char module_blob[], module_blob_end[];

/* ---- Shared state -------------------------------------------------------------------------- */

/* The module's storage, reused (poisoned and written again) every round. */
static struct {
  struct sfu_module m;
  volatile uint64_t gen; /* the registered generation; 0 while poisoned */
} mod;

static volatile uint64_t mod_state;  /* gen << 1 | 1 while registered (set after sfu_register) */
static volatile uint64_t unreg_done; /* the generation whose sfu_unregister returned last */
static volatile int mod_live;        /* the other CPUs may call into the module */
static uint64_t mod_text_start, mod_text_end;
static const struct sfu_module *kernel_mod;

static volatile int in_module[SMP_MAX_CPUS];
static volatile uint64_t quiescent[SMP_MAX_CPUS];
static volatile uint64_t module_calls[SMP_MAX_CPUS];
static volatile int cpu_up[SMP_MAX_CPUS], cpu_done[SMP_MAX_CPUS];
static volatile int stop_all;
static unsigned ncpus = 1;



#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

/* ---- Per-CPU results ------------------------------------------------------------------------- */

struct frame_rec {
  uint64_t pc;
  uint8_t source, reliable, which; /* which: 0 no module, 1 the kernel, 2 the module, 3 other */
};

static struct cpu_result {
  uint64_t samples, ok, module, module_ok, unloaded, unloaded_ok, cut, cut_ok;
  /* The first wrong sample. */
  const char *why;
  uint64_t why_sample;
  unsigned nframes;
  uint8_t stop;
  struct frame_rec frames[MAX_FRAMES];
} results[SMP_MAX_CPUS];

static uint64_t lcg_next(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

/* ---- The sample check ------------------------------------------------------------------------ */

static int is_return_source(uint8_t source) {
  return source == SFU_SOURCE_TABLE || source == SFU_SOURCE_FRAME_POINTER ||
         source == SFU_SOURCE_BACK_CHAIN;
}

/* The start of the function of `lookup` in module m's names, or 0. */
static uint64_t function_start(const struct sfu_module *m, uint64_t lookup) {
  struct sfu_symbol sym;
  if (!m || m->symbols_error != SFU_OK) return 0;
  if (sfu_symbols_find(&m->symbols, lookup, &sym) != SFU_OK) return 0;
  return sym.start;
}

/* Whether return address ra follows a call into callee: a direct call to it, an indirect call
 * (its target unknown), or a direct call to a function that jumps to it, one tail call deep
 * (gcc splits foo into foo and foo.part.0, which foo tail-calls; sfunwind's wrappers do too). */
static int call_reaches(uint64_t ra, uint64_t callee) {
  uint64_t target = 0;
  if (!smp_call_before(ra, &target)) return 0;
  if (target == 0 || target == callee) return 1;
  const struct sfu_module *m = sfu_module_for_pc(target);
  struct sfu_symbol sym;
  if (!m || m->symbols_error != SFU_OK || sfu_symbols_find(&m->symbols, target, &sym) != SFU_OK ||
      sym.start != target)
    return 0;
  for (uint64_t at = target; at < target + sym.size; at += SMP_INSN_ALIGN)
    if (smp_jump_at(at) == callee) return 1;
  return 0;
}

static const char *check_sample(unsigned cpu, const struct sfu_regs *regs, struct cpu_result *r,
                                int *named_module, int *cut) {
  uint64_t unreg0 = LOAD(unreg_done), state0 = LOAD(mod_state);
  struct sfu_walk_config config = {0};
  arch_walk_config(&config);
  struct sfu_cursor cursor;
  sfu_walk_start(&cursor, regs, &config);
  struct sfu_frame f;
  struct frame_rec fr[MAX_FRAMES];
  const struct sfu_module *fm[MAX_FRAMES];
  unsigned n = 0;
  const char *why = 0;
  while (n < MAX_FRAMES && sfu_walk_next(&cursor, &f)) {
    uint64_t lookup = sfu_frame_lookup_pc(&f);
    int in_mod_text = lookup >= mod_text_start && lookup < mod_text_end;
    uint8_t which = 3;
    if (f.module == &mod.m) {
      which = 2;
      *named_module = 1;
      /* Read now, while the walk may still read the module: the generation it names. */
      if (mod.gen <= unreg0 && !why) why = "a frame names a module unregistered before the walk began";
      if (!in_mod_text && !why) why = "a frame names the module outside its text";
    } else if (f.module == kernel_mod) {
      which = 1;
      if ((lookup < (uint64_t)_stext || lookup >= (uint64_t)_etext) && !why)
        why = "a frame names the kernel outside its text";
    } else if (f.module == 0) {
      which = 0;
      if (!in_mod_text && !why) why = "a frame in no module outside the module's text";
    } else if (!why) {
      why = "a frame names an unknown module";
    }
    fr[n] = (struct frame_rec){f.pc, f.source, f.reliable, which};
    fm[n] = f.module;
    n++;
  }
  enum sfu_stop stop = sfu_walk_stop(&cursor);
  uint64_t state1 = LOAD(mod_state);
  int stable = (state0 & 1) && state1 == state0; /* registered all through the walk */

  if (n == 0 && !why) why = "no frames";
  /* The first frame in the module's text that names no module: the walk must stop there. */
  unsigned k = 0;
  while (k < n && fr[k].which != 0) k++;
  if (!why && k < n) {
    /* Interrupted in the module's text while it was not registered (k = 0), or unregistered
     * while the walk ran (k > 0): that frame names no module, it is the last one and the walk
     * stops there, unreliable (a frame in no known text). Only if the module was not registered
     * all through the walk. */
    *cut = k == 0 ? 1 : 2;
    if (stable) why = "the registered module was not found for a PC in its text";
    else if (k != n - 1 || stop != SFU_STOP_END || fr[k].reliable)
      why = "a walk into unregistered text did not stop there, unreliable";
  } else if (!why && stop != SFU_STOP_END) {
    why = "the walk did not end at the end of the stack";
  } else if (!why && !fr[n - 1].reliable) {
    why = "the walk is unreliable";
  }
  for (unsigned i = 0; i < k && !why; i++) {
    if (i == 0 && fr[i].source != SFU_SOURCE_REGISTERS) why = "frame 0 is not the registers";
    else if (i > 0 && fr[i].source != SFU_SOURCE_TABLE) why = "a caller frame not from the table";
    else if (i > 0) {
      uint64_t prev = fr[i - 1].pc - (is_return_source(fr[i - 1].source) ? 1 : 0);
      uint64_t callee = function_start(fm[i - 1], prev);
      if (!callee) why = "a frame in no function";
      else if (!call_reaches(fr[i].pc, callee))
        why = "a return address follows no call into the frame before it";
    }
  }
  if (!why && k == n) {
    uint64_t root = smp_root(cpu);
    if (function_start(fm[n - 1], fr[n - 1].pc - 1) != root)
      why = "the last frame is not the CPU's outermost function";
  }
  if (why && !r->why) {
    r->why = why;
    r->why_sample = r->samples;
    r->nframes = n;
    r->stop = (uint8_t)stop;
    for (unsigned i = 0; i < n; i++) r->frames[i] = fr[i];
  }
  return why;
}

uint64_t smp_next_interval(unsigned cpu, uint64_t period) {
  static uint64_t lcg[SMP_MAX_CPUS];
  if (!lcg[cpu]) lcg[cpu] = cpu + 1;
  return period + lcg_next(&lcg[cpu]) % period;
}

void smp_tick(const struct sfu_regs *regs) {
  unsigned cpu = smp_this_cpu() % SMP_MAX_CPUS;
  struct cpu_result *r = &results[cpu];
  int named = 0, cut = 0;
  const char *why = check_sample(cpu, regs, r, &named, &cut);
  r->samples++;
  if (!why) r->ok++;
  if (named) {
    r->module++;
    if (!why) r->module_ok++;
  }
  if (cut == 1) {
    r->unloaded++;
    if (!why) r->unloaded_ok++;
  } else if (cut == 2) {
    r->cut++;
    if (!why) r->cut_ok++;
  }
  /* A quiescent point: this CPU's walk is over. */
  __atomic_store_n(&quiescent[cpu], quiescent[cpu] + 1, __ATOMIC_RELEASE);
}

/* ---- Work the ticks land in -------------------------------------------------------------- */

#define WORK __attribute__((noipa))
WORK static uint64_t k_mix(uint64_t x) {
  x ^= x >> 31;
  x *= 0x7fb5d329728ea185ull;
  return x ^ (x >> 27);
}
WORK static uint64_t k_loop(uint64_t seed, unsigned n) {
  for (unsigned i = 0; i < n; i++) seed = k_mix(seed + i);
  return seed;
}
WORK static uint64_t kernel_work(uint64_t seed) { return k_loop(seed, 8) + k_mix(seed); }

static volatile uint64_t sink[SMP_MAX_CPUS];

static uint64_t (*module_entry_fn(void))(uint64_t) {
  return ((const struct module_header *)MODULE_BASE)->entry;
}

void smp_work(unsigned cpu) {
  uint64_t seed = cpu;
  STORE(cpu_up[cpu], 1);
  while (!LOAD(stop_all)) {
    STORE(in_module[cpu], 1);
    if (LOAD(mod_live)) {
      smp_sync_fetch(); /* the module's code was written after this CPU last looked */
      seed = module_entry_fn()(seed);
      __atomic_store_n(&module_calls[cpu], module_calls[cpu] + 1, __ATOMIC_RELEASE);
    }
    STORE(in_module[cpu], 0);
    seed = kernel_work(seed);
    sink[cpu] = seed;
    __atomic_store_n(&quiescent[cpu], quiescent[cpu] + 1, __ATOMIC_RELEASE);
  }
}

void smp_cpu_done(unsigned cpu) { STORE(cpu_done[cpu], 1); }
int smp_stopping(void) { return LOAD(stop_all); }
void smp_stop(void) { STORE(stop_all, 1); }

/* Waits until cond() holds, at most a second (of the virtual counter): 0 if it never did. */
#define WAIT_UNTIL(cond)                                                   \
  ({                                                                       \
    uint64_t t0_ = smp_now(), lim_ = smp_freq();                             \
    int ok_ = 1;                                                           \
    while (!(cond))                                                        \
      if (smp_now() - t0_ > lim_) {                                            \
        ok_ = 0;                                                           \
        break;                                                             \
      }                                                                    \
    ok_;                                                                   \
  })

static void copy_words(volatile uint64_t *dst, const uint64_t *src, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] = src[i];
}

static void fill_words(volatile uint64_t *dst, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; i++) dst[i] = v;
}

static int error(const char *what, uint64_t round, const char *detail) {
  kputs("sfu-error 9-smp round ");
  kput_dec(round);
  kputs(": ");
  kputs(what);
  kputs(detail ? detail : "");
  kputs("\n");
  return 1;
}

/* One round: load, register, let the others call in, unregister, grace period, poison. Returns
 * 0 when every step went right. */
static int module_round(uint64_t gen) {
  size_t blob = (size_t)(module_blob_end - module_blob);
  copy_words((volatile uint64_t *)MODULE_BASE, (const uint64_t *)module_blob, (blob + 7) / 8);
  smp_sync_icache();
  const struct module_header *h = (const struct module_header *)MODULE_BASE;
  if (h->magic != MODULE_MAGIC) return error("bad module header", gen, 0);
  struct sfu_module_desc desc = {0};
  desc.table.section = (const void *)h->sframe_start;
  desc.table.size = h->sframe_end - h->sframe_start;
  desc.table.section_addr = h->sframe_start;
  desc.table.text_start = h->text_start;
  desc.table.text_end = h->text_end;
  desc.table.abi = SFU_ABI_ANY;
  desc.name = (const char *)h->name;
  desc.symbols = (const void *)h->symbols_start;
  desc.symbols_size = h->symbols_end - h->symbols_start;
  desc.symbols_addr = h->symbols_start;
  desc.build_id_note = (const void *)h->build_id_start;
  desc.build_id_note_size = h->build_id_end - h->build_id_start;
  mod.gen = gen;
  enum sfu_error err = sfu_register_module(&mod.m, &desc);
  if (err != SFU_OK) return error("register: ", gen, sfu_error_name(err));
  if (mod.m.symbols_error != SFU_OK) return error("symbols: ", gen, sfu_error_name(mod.m.symbols_error));
  if (mod.m.build_id_error != SFU_OK) return error("build-id: ", gen, sfu_error_name(mod.m.build_id_error));
  STORE(mod_state, gen << 1 | 1);
  uint64_t calls[SMP_MAX_CPUS];
  for (unsigned c = 1; c < ncpus; c++) calls[c] = LOAD(module_calls[c]);
  STORE(mod_live, 1);
  /* Every other CPU calls into it at least once (so some ticks land in it). */
  for (unsigned c = 1; c < ncpus; c++)
    if (!WAIT_UNTIL(LOAD(module_calls[c]) >= calls[c] + 1)) return error("a CPU never called the module", gen, 0);

  /* Unregister while the others may still run in it and walk from it. */
  STORE(mod_state, gen << 1);
  err = sfu_unregister(&mod.m);
  if (err != SFU_OK) return error("unregister: ", gen, sfu_error_name(err));
  STORE(unreg_done, gen);
  STORE(mod_live, 0);
  /* Nobody runs its code any more, */
  for (unsigned c = 1; c < ncpus; c++)
    if (!WAIT_UNTIL(!LOAD(in_module[c]))) return error("a CPU never left the module", gen, 0);
  /* and the grace period: every other CPU passes a quiescent point (no walk of its own running
   * from before the unregistration). */
  uint64_t qs[SMP_MAX_CPUS];
  for (unsigned c = 1; c < ncpus; c++) qs[c] = LOAD(quiescent[c]);
  for (unsigned c = 1; c < ncpus; c++)
    if (!WAIT_UNTIL(LOAD(quiescent[c]) != qs[c])) return error("a CPU passed no quiescent point", gen, 0);
  /* Now the memory may be reused: poison the text (0 is udf), the table, the names, and the
   * struct sfu_module itself. */
  fill_words((volatile uint64_t *)MODULE_BASE, 0, (blob + 7) / 8);
  fill_words((volatile uint64_t *)&mod.m, 0xa5a5a5a5a5a5a5a5ull, sizeof(mod.m) / 8);
  mod.gen = 0;
  smp_sync_icache();
  return 0;
}

static void print_result(unsigned cpu) {
  struct cpu_result *r = &results[cpu];
  char name[] = "9-smp/cpu0";
  name[9] = (char)('0' + cpu);
  kernel_count(name, r->ok, r->samples);
  if (r->samples < MIN_SAMPLES) {
    kputs("sfu-error 9-smp: too few samples on cpu");
    kput_dec(cpu);
    kputs("\n");
  }
  if (!r->why) return;
  kputs("sfu-error 9-smp cpu");
  kput_dec(cpu);
  kputs(" sample ");
  kput_dec(r->why_sample);
  kputs(": ");
  kputs(r->why);
  kputs(" (stop ");
  kputs(sfu_stop_name((enum sfu_stop)r->stop));
  kputs(")\n");
  static const char *const which[] = {"-", "kernel", "module", "?"};
  for (unsigned i = 0; i < r->nframes; i++) {
    kputs("  #");
    kput_dec(i);
    kputs(" ");
    kput_hex(r->frames[i].pc);
    kputs(" src ");
    kput_dec(r->frames[i].source);
    kputs(r->frames[i].reliable ? " reliable " : " unreliable ");
    kputs(which[r->frames[i].which & 3]);
    kputs("\n");
  }
}


void smp_init(void) {
  kernel_mod = sfu_module_for_pc((uint64_t)(uintptr_t)smp_init);
  const struct module_header *bh = (const struct module_header *)module_blob;
  mod_text_start = bh->text_start;
  mod_text_end = bh->text_end;
}

int smp_wait_up(unsigned cpu) { return WAIT_UNTIL(LOAD(cpu_up[cpu])); }

unsigned smp_start_cpus(unsigned max_cpus, int (*start)(unsigned cpu)) {
  unsigned n = 1;
  int up = 1;
  while (n < max_cpus && (up = start(n)) > 0) n++;
  if (up < 0) {
    kputs("sfu-error 9-smp: cpu ");
    kput_dec(n);
    kputs(" never came up\n");
  }
  kputs("smp: ");
  kput_dec(n);
  kputs(" CPUs\n");
  if (n < 2) {
    kputs("sfu-error 9-smp: no second CPU\n");
    kernel_done(1);
  }
  return n;
}

static uint64_t rounds_ms;

uint64_t smp_rounds(unsigned ncpus_running) {
  ncpus = ncpus_running;
  uint64_t rounds_ok = 0, t0 = smp_now();
  for (uint64_t gen = 1; gen <= ROUNDS; gen++) {
    if (module_round(gen)) break;
    rounds_ok++;
  }
  rounds_ms = (smp_now() - t0) * 1000 / smp_freq(); /* printed once the ticks stopped */
  return rounds_ok;
}

int smp_finish(unsigned ncpus_running, uint64_t rounds_ok) {
  int failed = 0;
  smp_stop();
  for (unsigned c = 1; c < ncpus_running; c++)
    if (!WAIT_UNTIL(LOAD(cpu_done[c]))) failed += error("a CPU did not stop", 0, 0);
  kputs("smp: ");
  kput_dec(rounds_ok);
  kputs(" rounds in ");
  kput_dec(rounds_ms);
  kputs(" ms\n");
  kernel_count("9-smp/rounds", rounds_ok, ROUNDS);
  uint64_t mod_total = 0, mod_ok = 0, unl_total = 0, unl_ok = 0, cut_total = 0, cut_ok = 0;
  for (unsigned c = 0; c < ncpus_running; c++) {
    print_result(c);
    failed += results[c].ok != results[c].samples || results[c].samples < MIN_SAMPLES;
    mod_total += results[c].module;
    mod_ok += results[c].module_ok;
    unl_total += results[c].unloaded;
    unl_ok += results[c].unloaded_ok;
    cut_total += results[c].cut;
    cut_ok += results[c].cut_ok;
  }
  kernel_count("9-smp/module", mod_ok, mod_total);
  if (unl_total) kernel_count("9-smp/unloaded", unl_ok, unl_total);
  kputs("smp: ");
  kput_dec(unl_total);
  kputs(" samples in the module's text while unregistered, ");
  kput_dec(unl_ok);
  kputs(" right; ");
  kput_dec(cut_total);
  kputs(" walks cut by an unregistration, ");
  kput_dec(cut_ok);
  kputs(" right\n");
  if (cut_total) kernel_count("9-smp/cut", cut_ok, cut_total);
  if (unl_ok != unl_total || cut_ok != cut_total) failed++;
  if (mod_total < MIN_MODULE_SAMPLES) {
    kputs("sfu-error 9-smp: too few samples in the module\n");
    failed++;
  }
  failed += rounds_ok != ROUNDS;
  return failed;
}
