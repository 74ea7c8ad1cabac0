/* A program linked with linker/sfunwind.ld (through tests/linker/insert.ld) and built with
 * -Wa,--gsframe: it registers its own table with sfu_register_image and walks from a point three
 * calls deep, and from inside sfunwind's own code (the library's table). Its build-id must be found; when its script reserves .sfu_symbols (the embed
 * suite's images, given their tables by `sfu gen`), the names must come out right at the address
 * the program was loaded at (a PIE, moved by the loader). Prints "build-id: HEX" and the
 * backtrace, then "linker: N passed, M failed".
 * tests/linker/pie.sh links it -static-pie against the position-independent core and runs it
 * where Linux puts it; with -DLINKED_IMAGE_HOOK it defines sfu_hook_read_nofault, as a kernel
 * with a no-fault copy does, and checks that the walks read through it. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "sfu/image.h"
#include "sfu/print.h"

extern char __executable_start[], etext[];

static int passed, failed;

#ifdef LINKED_IMAGE_HOOK
/* The kernel's no-fault copy (a plain one here): every stack word a walk reads comes through it. */
static unsigned long hook_reads;
int sfu_hook_read_nofault(void *dst, uint64_t src, size_t len) {
  hook_reads++;
  memcpy(dst, (const void *)(uintptr_t)src, len);
  return 0;
}
#endif
static void check(int ok, const char *what) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", what);
  ok ? passed++ : failed++;
}

static struct sfu_stack stack;
static uint64_t pcs[16];
static size_t npcs;
static enum sfu_stop why;

/* The program's own stack, the only one its walks read. */
static struct sfu_walk_config walk_config(void) {
  struct sfu_walk_config config = {0};
  config.stacks = &stack;
  config.num_stacks = 1;
  config.abi = SFU_ABI_AMD64_LE;
  return config;
}

__attribute__((noinline)) void walk_here(void) {
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  struct sfu_walk_config config = walk_config();
  npcs = sfu_backtrace(&regs, &config, pcs, 16, &why);
  __asm__ volatile("" ::: "memory");  /* keep the call above from becoming a tail call */
}
__attribute__((noinline)) void middle(void) { walk_here(); __asm__ volatile(""); }
__attribute__((noinline)) void outer(void) { middle(); __asm__ volatile(""); }

/* A walk from inside sfunwind: the sink's first character comes from within the library
 * (sfu_print_backtrace and what it calls), so a walk started there crosses sfunwind's own
 * functions, with rows from the library's own table (it is built with gas's SFrame). */
static uint64_t inner_pcs[32];
static size_t inner_n;
static enum sfu_stop inner_why;
static int inner_reliable[32], walked_inside;
static uint64_t main_return;  /* where print_through_sfunwind returns to, in main */

__attribute__((noinline)) static void walking_putc(void *ctx, char c) {
  (void)ctx;
  (void)c;
  if (walked_inside) return;
  walked_inside = 1;
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  struct sfu_walk_config config = walk_config();
  struct sfu_cursor cursor;
  struct sfu_frame f;
  sfu_walk_start(&cursor, &regs, &config);
  while (inner_n < 32 && sfu_walk_next(&cursor, &f)) {
    inner_reliable[inner_n] = f.reliable;
    inner_pcs[inner_n++] = f.pc;
  }
  inner_why = sfu_walk_stop(&cursor);
}

__attribute__((noinline)) void print_through_sfunwind(void) {
  struct sfu_regs regs;
  sfu_capture_here(&regs);
  struct sfu_walk_config config = walk_config();
  struct sfu_sink sink = {walking_putc, 0};
  main_return = (uint64_t)(uintptr_t)__builtin_return_address(0);
  sfu_print_backtrace(&sink, &regs, &config);
  __asm__ volatile("" ::: "memory");  /* not a tail call */
}

/* The symbol covering pc is fn's, named name. */
static int named(const struct sfu_module *m, uint64_t pc, void (*fn)(void), const char *name) {
  struct sfu_symbol sym;
  char buf[64];
  if (sfu_symbols_find(&m->symbols, pc, &sym) != SFU_OK) return 0;
  sfu_symbol_name(&m->symbols, &sym, buf, sizeof buf);
  return sym.start == (uint64_t)(uintptr_t)fn && strcmp(buf, name) == 0;
}

static void out_putc(void *ctx, char c) {
  (void)ctx;
  putchar(c);
}

/* pc is a return address less than `size` bytes into the function at start. */
static int near(uint64_t pc, uint64_t start, uint64_t size) { return pc > start && pc < start + size; }

static int inside(uint64_t pc, void (*fn)(void)) {
  uint64_t start = (uint64_t)(uintptr_t)fn;
  return pc > start && pc < start + 64;
}

int main(void) {
  static struct sfu_module module;
  enum sfu_error err = sfu_register_image(&module, __executable_start, etext);
  check(err == SFU_OK, "the linked table registers");
  if (err) printf("  %s\n", sfu_error_name(err));
  check(sfu_module_for_pc((uint64_t)(uintptr_t)&outer) == &module, "the module holds the program's text");

  pthread_attr_t attr;
  void *lo;
  size_t size;
  pthread_getattr_np(pthread_self(), &attr);
  pthread_attr_getstack(&attr, &lo, &size);
  stack.lo = (uint64_t)(uintptr_t)lo;
  stack.hi = stack.lo + size;

  outer();
  check(npcs >= 4, "walked at least four frames");
  check(npcs >= 1 && inside(pcs[0], walk_here), "frame 0 in walk_here");
  check(npcs >= 2 && inside(pcs[1], middle), "frame 1 in middle");
  check(npcs >= 3 && inside(pcs[2], outer), "frame 2 in outer");
  check(npcs >= 4 && pcs[3] > (uint64_t)(uintptr_t)&main && pcs[3] < (uint64_t)(uintptr_t)&main + 512,
        "frame 3 in main");
  check(why == SFU_STOP_END, "the walk ends cleanly where the program's text ends");

  print_through_sfunwind();
  size_t k = 1;  /* the frame of print_through_sfunwind, the one before main's: sfunwind's before it */
  while (k + 1 < inner_n && inner_pcs[k + 1] != main_return) k++;
  check(k >= 2 && k + 1 < inner_n && near(inner_pcs[k], (uintptr_t)&print_through_sfunwind, 0x200),
        "a walk from inside sfunwind crosses its functions into sfu_print_backtrace's caller and main");
  int reliable = k + 1 < inner_n;
  for (size_t i = 0; i <= k + 1 && i < inner_n; i++) reliable &= inner_reliable[i];
  check(inner_why == SFU_STOP_END && reliable, "every frame up to main reliable: the library's own rows, no fallback");

#ifdef LINKED_IMAGE_HOOK
  check(hook_reads > 0, "the walks read the stack through the image's sfu_hook_read_nofault");
#endif
  check(module.build_id_error == SFU_OK && module.build_id_size >= 8, "the build-id note is found");
  printf("build-id: ");
  for (uint32_t i = 0; i < module.build_id_size; i++) printf("%02x", module.build_id[i]);
  printf("\n");
  if (__sfu_symbols_start) {
    check(module.symbols_error == SFU_OK, "the symbol table registers");
    if (module.symbols_error) printf("  %s\n", sfu_error_name(module.symbols_error));
    check(named(&module, (uint64_t)(uintptr_t)&outer, outer, "outer") &&
              named(&module, (uint64_t)(uintptr_t)&middle + 1, middle, "middle") &&
              named(&module, pcs[0] - 1, walk_here, "walk_here"),
          "names at the address the program runs at");
    struct sfu_regs regs;
    sfu_capture_here(&regs);
    struct sfu_walk_config config = walk_config();
    struct sfu_sink sink = {out_putc, 0};
    sfu_print_backtrace(&sink, &regs, &config);
  } else {
    check(module.symbols_error == SFU_E_NO_SYMBOLS, "no .sfu_symbols reserved: registered without names");
  }
  printf("linker: %d passed, %d failed\n", passed, failed);
  return failed != 0;
}
