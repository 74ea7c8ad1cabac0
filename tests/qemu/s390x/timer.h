/* s390x test kernel: the periodic tick (timer.c). */
#ifndef S390X_TIMER_H
#define S390X_TIMER_H

#include "s390x.h"

/* Calls hook from the CPU-timer interrupt every interval_us microseconds (counted from the end of
 * the last call), on the interrupt stack, until timer_stop. Unmasks external interrupts. */
void timer_start(unsigned interval_us, void (*hook)(struct trap_frame *tf));
/* Masks external interrupts again and stops the ticks. */
void timer_stop(void);

#endif /* S390X_TIMER_H */
