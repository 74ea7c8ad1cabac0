/* The gc suite: an archive member pulled in for its data, whose function is dead. */
const int gc_lib_table[] = { 1, 2, 3 };
int gc_lib_member_dead(int x) { return x + gc_lib_table[2]; }
