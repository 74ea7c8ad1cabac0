/* s390x test kernel: the periodic tick, from the CPU timer.
 * The CPU timer counts down (bit 51 is one microsecond) and requests an external interrupt while
 * it is negative and CR0's CPU-timer subclass is on. The handler runs on the interrupt stack
 * (entry.S) with external interrupts masked; the timer is re-armed when the hook returns, so the
 * interval counts from the end of one tick's work to the next tick. */
#include "timer.h"

#include "traps.h"

static void (*timer_hook)(struct trap_frame *tf);
static uint64_t interval;

static void set_cpu_timer(uint64_t value) { __asm__ volatile("spt %0" ::"Q"(value)); }

void timer_start(unsigned interval_us, void (*hook)(struct trap_frame *tf)) {
  interval = (uint64_t)interval_us << 12;
  timer_hook = hook;
  set_cpu_timer(interval);
  lctlg0(stctg0() | CR0_CPU_TIMER);
  uint8_t old_mask; /* STOSM/STNSM change the PSW's first byte, the system mask */
  __asm__ volatile("stosm %0,%1" : "=Q"(old_mask) : "i"(PSW_MASK_EXT >> 56) : "memory");
}

void timer_set_interval_ns(uint64_t interval_ns) { interval = interval_ns * 4096 / 1000; }

void timer_stop(void) {
  uint8_t old_mask;
  __asm__ volatile("stnsm %0,%1" : "=Q"(old_mask) : "i"(~(PSW_MASK_EXT >> 56) & 0xff) : "memory");
  lctlg0(stctg0() & ~(uint64_t)CR0_CPU_TIMER);
  set_cpu_timer(~0ull >> 1); /* positive again: no request left pending */
  /* The hook stays: on the smp kernel another CPU may still tick with it. */
}

void external_handler(struct trap_frame *tf) {
  if ((tf->int_code & 0xffff) != EXT_CPU_TIMER || !timer_hook) {
    kputs("sfu-error unexpected external interrupt code ");
    kput_hex(tf->int_code & 0xffff);
    kputs("\n");
    kernel_done(1);
  }
  timer_hook(tf);
  set_cpu_timer(interval);
}
