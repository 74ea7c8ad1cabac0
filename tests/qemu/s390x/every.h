/* s390x every-instruction kernels: what the stepper (every.c) and the stepped workload
 * (every-work.c) share. */
#ifndef S390X_EVERY_H
#define S390X_EVERY_H

#include <stdint.h>

/* every-work.c: the whole stepped workload, ROUNDS rounds of it, then a trace of itself. */
void every_workload(unsigned rounds);

/* every.c: a one-shot CPU-timer tick, some microseconds from now; its handler (stepped too) walks
 * the interrupted task. */
void every_tick_arm(unsigned us);

/* every.c: checks the workload makes of its own walks (sfu_backtrace stepped in the task) and
 * of the ticks and faults it meets; each failure is counted and reported at the end. */
void every_note_walk(const char *what, int ok);

#endif /* S390X_EVERY_H */
