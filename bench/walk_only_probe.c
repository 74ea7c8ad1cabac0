/* What a walk-only kernel calls (configs/walk-only.config): register the image's table, then, in a
 * trap handler, print a backtrace from the registers the entry code saved, crossing trap frames,
 * and one from the current function. Linked with --gc-sections against libsfu.a, its map says how
 * many bytes of sfunwind such a kernel carries (bench/walk_only_size.py). Never run. */
#include "sfu/image.h"
#include "sfu/print.h"

static struct sfu_module module;
static volatile char port;

static void probe_putc(void *ctx, char c) {
  (void)ctx;
  port = c;
}

static const struct sfu_sink sink = {probe_putc, 0};
/* Filled by the kernel at boot; volatile so that nothing is folded away. */
static struct sfu_stack stacks[2];
static struct sfu_trap_layout layout;
static struct sfu_trap_entry traps[1] = {{0, 0, &layout}};
extern char probe_text_start[], probe_text_end[];

static void walk_config(struct sfu_walk_config *c) {
  c->stacks = stacks;
  c->num_stacks = 2;
  c->traps = traps;
  c->num_traps = 1;
}

/* A trap handler: the registers the entry code saved, as the kernel copies them. */
void probe_trap(const struct sfu_regs *saved);
void probe_trap(const struct sfu_regs *saved) {
  struct sfu_walk_config config = {0};
  walk_config(&config);
  sfu_print_backtrace(&sink, saved, &config);
}

void probe_start(void);
void probe_start(void) {
  enum sfu_error err = sfu_register_image(&module, probe_text_start, probe_text_end);
  if (err != SFU_OK) {
    sfu_print_str(&sink, "sfunwind: table refused: ");
    sfu_print_error(&sink, err);
    sfu_print_str(&sink, "\n");
  }
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  probe_trap(&regs);
}
