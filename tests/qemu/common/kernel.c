/* The test kernels' shared half: console output, table registration, checked traces, and the
 * call chain of scenario 1. */
#include "kernel.h"

#include "sfu/image.h"

static void console_putc(void *ctx, char c) {
  (void)ctx;
  if (c == '\n') arch_putc('\r');
  arch_putc(c);
}

const struct sfu_sink console = {console_putc, 0};

void kputs(const char *s) { sfu_print_str(&console, s); }
void kput_hex(uint64_t v) { sfu_print_hex(&console, v, 0); }
void kput_dec(uint64_t v) { sfu_print_udec(&console, v); }

static struct sfu_module kernel_module;

/* "sfu-error WHAT NAME": the runner fails the run on it. */
static void report(const char *what, enum sfu_error err) {
  kputs("sfu-error ");
  kputs(what);
  sfu_print_error(&console, err); /* the name, or without names its code (walk-only.elf) */
  kputs("\n");
}

#ifdef KERNEL_BLOCK_INDEX
/* This variant registers with the block index, so its walks read their rows from the index's
 * buckets (the other variants search the table). The test kernels have well under 1 MiB of text. */
#define KERNEL_TEXT_MAX (1u << 20)
static uint64_t kernel_index[SFU_INDEX_BYTES(KERNEL_TEXT_MAX) / 8];
#define KERNEL_INDEX kernel_index, sizeof kernel_index
#else
#define KERNEL_INDEX 0, 0
#endif

void kernel_register_table(void) {
  enum sfu_error err = sfu_register_image_indexed(&kernel_module, _stext, _etext, KERNEL_INDEX);
  if (err != SFU_OK) {
    report("register ", err);
    kernel_done(1);
  }
#ifdef KERNEL_BLOCK_INDEX
  if (!kernel_module.table.index) kputs("sfu-error index not built\n");
#endif
  /* Every test kernel has both (sfu gen writes the names, ld --build-id the note): traces print
   * names the runner checks, crash records carry the build-id. */
#ifdef KERNEL_WALK_ONLY
  /* The walk-only core (configs/walk-only.config) reads no names and no build-id: its traces
   * print addresses, and module lines that say "no build-id". */
  if (kernel_module.symbols_error != SFU_E_SYMBOLS_DISABLED) report("symbols ", kernel_module.symbols_error);
  if (kernel_module.build_id_error != SFU_E_BUILD_ID_DISABLED) report("build-id ", kernel_module.build_id_error);
#else
  if (kernel_module.symbols_error != SFU_OK) report("symbols ", kernel_module.symbols_error);
  if (kernel_module.build_id_error != SFU_OK) report("build-id ", kernel_module.build_id_error);
#endif
}

/* The trace after its "sfu-trace NAME" line. */
static void trace_body(const char *expect, const struct sfu_regs *regs) {
  struct sfu_walk_config config = {0};
  arch_walk_config(&config);
  kputs("\nsfu-expect ");
  kputs(expect);
  kputs("\n");
  sfu_print_backtrace(&console, regs, &config);
  kputs("sfu-end\n");
}

void kernel_trace(const char *name, const char *expect, const struct sfu_regs *regs) {
  kputs("sfu-trace ");
  kputs(name);
  trace_body(expect, regs);
}

void kernel_trace_numbered(const char *prefix, uint64_t n, const char *expect, const struct sfu_regs *regs) {
  kputs("sfu-trace ");
  kputs(prefix);
  kput_dec(n);
  trace_body(expect, regs);
}

void kernel_count(const char *name, uint64_t ok, uint64_t total) {
  kputs("sfu-count ");
  kputs(name);
  kputs(" ");
  kput_dec(ok);
  kputs(" ");
  kput_dec(total);
  kputs("\n");
}

void kernel_regs_from_layout(const void *base, const struct sfu_trap_layout *layout,
                             struct sfu_regs *regs) {
  /* Every slot is an aligned 64-bit field of the entry code's frame. */
  const uint8_t *p = (const uint8_t *)base;
  regs->pc = *(const uint64_t *)(p + layout->pc);
  for (unsigned n = 0; n < SFU_REGS_MAX; n++)
    regs->r[n] = ((layout->saved >> n) & 1) ? *(const uint64_t *)(p + layout->reg[n]) : 0;
  regs->valid = layout->saved;
}

void kernel_done(int failed) {
  kputs("sfu-done ");
  kput_dec((uint64_t)failed);
  kputs("\n");
  arch_exit(failed);
}

/* Each link does some work after the call so the call is not a tail call, and the barrier keeps
 * the compiler from merging or inlining the links. */
#define CHAIN_LINK(name, next)                                   \
  __attribute__((noinline)) void name(void (*fault)(void)) {     \
    next(fault);                                                 \
    __asm__ volatile("" ::: "memory");                           \
  }

__attribute__((noinline)) void chain_6(void (*fault)(void)) {
  fault();
  __asm__ volatile("" ::: "memory");
}
CHAIN_LINK(chain_5, chain_6)
CHAIN_LINK(chain_4, chain_5)
CHAIN_LINK(chain_3, chain_4)
CHAIN_LINK(chain_2, chain_3)
CHAIN_LINK(chain_1, chain_2)

void run_chain(void (*fault)(void)) { chain_1(fault); }
