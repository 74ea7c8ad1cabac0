/* The gc suite's kernel (tests/linker/gc.sh): live functions, and dead ones that --gc-sections
 * must remove with or without sfunwind: here, in an object of their own (gc_dead.c), in archive
 * members (gc_lib.c, gc_lib_data.c), static, reading data of their own, in a section whose name
 * is a pattern to ld (beside a live one it would match). It registers its image, so sfunwind's
 * library is linked too. Never run: gc.sh only links it. */
#include <sfu/image.h>

extern char _stext[], _etext[];
int gc_lib_live(int x);          /* gc_lib.c, next to gc_lib_dead */
extern const int gc_lib_table[]; /* gc_lib_data.c: pulls in a member whose function is dead */

static struct sfu_module gc_module;
volatile long gc_sink;

/* gc_dead first: linked at 0 with .debug_frame, its FDE (left at 0 by ld) comes before that of
 * gc_live, the function at 0 once gc_dead is gone. */
__attribute__((noinline)) int gc_dead(int x) { return x * 7 - 2; }
__attribute__((noinline)) int gc_live(int x) { return x * 3 + 1; }

static const char gc_dead_message[] = "read only by gc_dead_reads_data";
__attribute__((noinline)) const char *gc_dead_reads_data(void) { return gc_dead_message; }

/* used: kept in the object, but nothing calls it. */
static __attribute__((used, noinline)) int gc_dead_static(int x) { return x ^ 0x55; }

/* "*" in a section name: a pattern that, written as it is, would match the live one too. */
__attribute__((noinline, section(".text.gc*odd"))) int gc_dead_odd(int x) { return x + 11; }
__attribute__((noinline, section(".text.gcXodd"))) int gc_live_odd(int x) { return x + 13; }

__attribute__((noinline)) void gc_kernel_main(void)
{
    gc_sink = gc_live(2) + gc_live_odd(1) + gc_lib_live(3) + gc_lib_table[0];
    gc_sink = (long)sfu_error_name(sfu_register_image(&gc_module, _stext, _etext));
}

void _start(void)
{
    gc_kernel_main();
    for (;;) {
    }
}
