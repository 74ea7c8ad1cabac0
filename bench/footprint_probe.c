/* A kernel's calls into sfunwind, one feature at a time, for bench/footprint_links.sh: linked with
 * --gc-sections against a build of libsfu.a, its map says which bytes of the library such a kernel
 * carries. Never run. Each PROBE_* flag adds the calls of one feature; with none, the walk core:
 * register the image's table, capture the current registers and walk (sfu_backtrace), crossing
 * trap frames.
 *   PROBE_PRINT        sfu_print_backtrace from a trap handler's saved registers
 *   PROBE_ERROR_NAMES  a refused registration reported: sfu_print_error where the API has it
 *                      (PROBE_HAVE_PRINT_ERROR, which needs no table without the names), else
 *                      sfu_error_name
 *   PROBE_INDEX        index memory given at registration (block index build)
 *   PROBE_CRASH_CAPTURE  sfu_crash_capture_image on the panic path
 *   PROBE_CRASH_TAKE   sfu_crash_take_image and sfu_crash_print at boot */
#include "sfu/crash.h"
#include "sfu/image.h"
#include "sfu/print.h"

/* Everything the kernel owns is volatile or external, so no call is folded away. */
static struct sfu_module module;
static volatile char port;
static volatile uint64_t sink_word;
static struct sfu_stack stacks[2];
static struct sfu_trap_layout layout;
static const struct sfu_trap_entry traps[1] = {{0, 0, &layout}};
extern char probe_text_start[] __attribute__((weak)), probe_text_end[] __attribute__((weak));

static void probe_putc(void *ctx, char c) {
  (void)ctx;
  port = c;
}
static const struct sfu_sink sink = {probe_putc, 0};

static void walk_config(struct sfu_walk_config *c) {
  c->stacks = stacks;
  c->num_stacks = 2;
  c->traps = traps;
  c->num_traps = 1;
}

/* The kernel's own string functions, for the calls gcc may emit in the library (the probe's code:
 * not counted). */
void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
void *memcpy(void *dst, const void *src, size_t n) { return memmove(dst, src, n); }
void *memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (d < s)
    for (size_t i = 0; i < n; i++) d[i] = s[i];
  else
    for (size_t i = n; i > 0; i--) d[i - 1] = s[i - 1];
  return dst;
}
void *memset(void *dst, int c, size_t n) {
  unsigned char *d = dst;
  for (size_t i = 0; i < n; i++) d[i] = (unsigned char)c;
  return dst;
}
int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  for (size_t i = 0; i < n; i++)
    if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
  return 0;
}

#ifdef PROBE_INDEX
/* The kernel's own memory for the index (its .bss, not the library's). */
static uint64_t index_memory[SFU_INDEX_BYTES(1 << 20) / 8];
#endif

void probe_trap(const struct sfu_regs *saved);
void probe_trap(const struct sfu_regs *saved) {
  struct sfu_walk_config config = {0};
  walk_config(&config);
#ifdef PROBE_CRASH_CAPTURE
  struct sfu_crash_info info = {SFU_CRASH_EXCEPTION, 0, 0, "probe"};
  sink_word = sfu_crash_capture_image(&info, saved, &config);
#endif
#ifdef PROBE_PRINT
  sink_word = sfu_print_backtrace(&sink, saved, &config);
#else
  uint64_t pcs[16];
  enum sfu_stop why;
  sink_word = sfu_backtrace(saved, &config, pcs, 16, &why);
  sink_word = pcs[0] + why;
#endif
}

void probe_start(void);
void probe_start(void) {
#ifdef PROBE_INDEX
  enum sfu_error err =
      sfu_register_image_indexed(&module, probe_text_start, probe_text_end, index_memory, sizeof index_memory);
#else
  enum sfu_error err = sfu_register_image(&module, probe_text_start, probe_text_end);
#endif
#if defined(PROBE_ERROR_NAMES) && defined(PROBE_HAVE_PRINT_ERROR)
  if (err != SFU_OK) sfu_print_error(&sink, err);
#elif defined(PROBE_ERROR_NAMES)
  if (err != SFU_OK) sink_word = (uint64_t)(uintptr_t)sfu_error_name(err);
#else
  sink_word = err;
#endif
#ifdef PROBE_CRASH_TAKE
  struct sfu_crash_view view;
  if (sfu_crash_take_image(&view) == SFU_OK) sink_word = sfu_crash_print(&sink, &view);
#endif
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  probe_trap(&regs);
}
