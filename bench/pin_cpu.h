// Both bench programs run on the CPU they start on: a migration in the middle of a batch would
// show as noise.
#pragma once

#include <sched.h>

inline void pin_to_current_cpu() {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(sched_getcpu(), &set);
  sched_setaffinity(0, sizeof set, &set);
}
