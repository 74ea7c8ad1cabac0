/* The every-instruction kernels' own stepped work (every.h), beside workload.c's shapes. Built
 * with gcc's sibling calls on (unlike workload.c): the tail calls below are b and br. */
#include "every.h"

#define WORK __attribute__((noipa))

volatile int every_in_library, every_in_workload;

/* ---- Tail calls ---------------------------------------------------------------------------- */

WORK static uint64_t tail_leaf(uint64_t x) { return x * 5 + 3; }

/* A frame torn down before the jump: the callee returns straight to this function's caller. */
WORK static uint64_t tail_frame(uint64_t x) {
  volatile uint64_t a[4] = {x, x + 1, x + 2, x + 3};
  return tail_leaf(a[2] ^ a[0]);
}

/* Two tail calls in a row: tail_chain jumps to tail_frame, which jumps to tail_leaf. */
WORK static uint64_t tail_chain(uint64_t x) { return tail_frame(x ^ 7); }

/* Through a pointer: br. */
typedef uint64_t (*tail_fn)(uint64_t);
WORK static uint64_t tail_pointer(tail_fn fn, uint64_t x) { return fn(x + 1); }

const uint64_t every_tail_b[EVERY_TAIL_B] = {(uint64_t)tail_leaf, (uint64_t)tail_frame};
const uint64_t every_tail_br[EVERY_TAIL_BR] = {(uint64_t)tail_leaf};

static volatile tail_fn tail_target = tail_leaf; /* read at run time: the call stays a br */

WORK static uint64_t tail_calls(uint64_t x) {
  uint64_t v = tail_chain(x);
  v += tail_frame(v);
  v += tail_pointer(tail_target, v);
  return v;
}

/* ---- Synchronous exceptions ------------------------------------------------------------------ */

/* In a function with a frame and a call: its return address is on the stack at the brk. */
WORK static uint64_t exception_in_frame(uint64_t x) {
  volatile uint64_t local[3] = {x, x * 3, x ^ 0x55};
  __asm__ volatile("brk %0" ::"i"(BRK_EVERY_EXCEPTION) : "memory");
  return tail_leaf(local[1]) + local[2];
}

/* In a leaf: the return address is still in x30 at the brk. */
WORK static uint64_t exception_in_leaf(uint64_t x) {
  __asm__ volatile("brk %0" ::"i"(BRK_EVERY_EXCEPTION) : "memory");
  return x + 1;
}

/* ---- Walks by the library ------------------------------------------------------------------- */

/* The print's last 32 characters. */
static struct {
  char last[32];
  unsigned n;
} printed;

static void keep_last(void *ctx, char c) {
  (void)ctx;
  printed.last[printed.n++ % sizeof printed.last] = c;
}

static int printed_ends(const char *tail) {
  unsigned len = 0;
  while (tail[len]) len++;
  if (printed.n < len) return 0;
  for (unsigned i = 0; i < len; i++)
    if (printed.last[(printed.n - len + i) % sizeof printed.last] != tail[i]) return 0;
  return 1;
}

/* A walk from here with sfu_backtrace: whole (end-of-stack) and ending in _start. */
WORK static int library_walk(void) {
  struct sfu_regs regs;
  struct sfu_walk_config config = {0};
  uint64_t pcs[24];
  enum sfu_stop why = SFU_STOP_NONE;
  arch_walk_config(&config);
  every_in_library = 1;
  sfu_capture_here(&regs);
  size_t n = sfu_backtrace(&regs, &config, pcs, 24, &why);
  every_in_library = 0;
  return why == SFU_STOP_END && n >= 2 && pcs[n - 1] == every_start_ra;
}

/* The same walk printed, names and all: the trace must end reliably. */
WORK static int library_print(void) {
  static const struct sfu_sink sink = {keep_last, 0};
  struct sfu_regs regs;
  struct sfu_walk_config config = {0};
  arch_walk_config(&config);
  printed.n = 0;
  every_in_library = 1;
  sfu_capture_here(&regs);
  size_t n = sfu_print_backtrace(&sink, &regs, &config);
  every_in_library = 0;
  return n >= 2 && printed_ends("stop: end-of-stack (reliable)\n");
}

uint64_t every_handler_work(uint64_t seed, int walk) {
  uint64_t v = tail_chain(seed);
  if (walk) every_library_result(library_walk());
  return v + tail_frame(v);
}

void every_work(volatile int *stop) {
  volatile uint64_t sink;
  sink = tail_calls(3);
  sink = exception_in_frame(sink);
  sink = exception_in_leaf(sink);
  every_library_result(library_walk());
  every_library_result(library_print());
  (void)sink;
  every_in_workload = 1;
  workload_run(stop);
  every_in_workload = 0;
}
