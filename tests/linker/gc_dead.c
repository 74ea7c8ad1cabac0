/* The gc suite: an object on the link line whose every function is dead. */
int gc_dead_object_a(int x) { return x * 5; }
int gc_dead_object_b(int x) { return gc_dead_object_a(x) + 1; }
