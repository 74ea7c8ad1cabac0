/* s390x test kernel: the periodic tick (timer.c). */
#ifndef S390X_TIMER_H
#define S390X_TIMER_H

#include "s390x.h"

/* Calls hook from the CPU-timer interrupt every interval_us microseconds (counted from the end of
 * the last call), on the interrupt stack, until timer_stop. Unmasks external interrupts. */
void timer_start(unsigned interval_us, void (*hook)(struct trap_frame *tf));
/* From the hook: the ticks after this one come interval_ns nanoseconds of CPU time apart (the
 * profile kernel draws each interval at random, profile/main.c). */
void timer_set_interval_ns(uint64_t interval_ns);
/* Masks external interrupts again and stops the ticks. */
void timer_stop(void);

#endif /* S390X_TIMER_H */
