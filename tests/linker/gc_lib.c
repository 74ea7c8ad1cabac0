/* The gc suite: an archive member with a live function and a dead one. */
__attribute__((noinline)) int gc_lib_live(int x) { return x + 5; }
__attribute__((noinline)) int gc_lib_dead(int x) { return x - 5; }
