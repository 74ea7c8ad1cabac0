/* The local APIC (xAPIC, memory-mapped at its reset address): the one-shot timer of the
 * sampling and stack-switch scenarios, and NMIs sent to this CPU. QEMU's APIC timer counts
 * nanoseconds at divide-by-1. */
#include "x86.h"

#define APIC_BASE 0xfee00000ull
#define APIC_ID 0x20
#define APIC_EOI 0xb0
#define APIC_SVR 0xf0
#define APIC_ICR_LOW 0x300
#define APIC_ICR_HIGH 0x310
#define APIC_LVT_TIMER 0x320
#define APIC_TIMER_INITIAL 0x380
#define APIC_TIMER_CURRENT 0x390
#define APIC_TIMER_DIVIDE 0x3e0

#define SVR_ENABLE 0x100
#define LVT_MASKED 0x10000
#define ICR_NMI 0x400
#define ICR_ASSERT 0x4000
#define ICR_PENDING 0x1000

static inline volatile uint32_t *reg(unsigned offset) {
  return (volatile uint32_t *)(uintptr_t)(APIC_BASE + offset);
}

void apic_init(void) {
  *reg(APIC_SVR) = SVR_ENABLE | VEC_SPURIOUS;
  *reg(APIC_LVT_TIMER) = LVT_MASKED | VEC_TIMER;
  *reg(APIC_TIMER_DIVIDE) = 0xb; /* divide by 1 */
}

void apic_timer_oneshot(uint32_t ns) {
  *reg(APIC_LVT_TIMER) = VEC_TIMER; /* one-shot, unmasked */
  *reg(APIC_TIMER_INITIAL) = ns ? ns : 1;
}

void apic_eoi(void) { *reg(APIC_EOI) = 0; }

void apic_send_nmi_self(void) {
  while (*reg(APIC_ICR_LOW) & ICR_PENDING) {
  }
  *reg(APIC_ICR_HIGH) = *reg(APIC_ID) & 0xff000000u; /* destination: this APIC's ID */
  *reg(APIC_ICR_LOW) = ICR_NMI | ICR_ASSERT;
}

unsigned this_cpu(void) { return *reg(APIC_ID) >> 24; }

void apic_timer_stop(void) {
  *reg(APIC_LVT_TIMER) = LVT_MASKED | VEC_TIMER;
  *reg(APIC_TIMER_INITIAL) = 0;
}

uint32_t apic_timer_count(void) { return *reg(APIC_TIMER_CURRENT); }

#define ICR_INIT 0x500
#define ICR_STARTUP 0x600

static void send_ipi(unsigned apic_id, uint32_t low) {
  while (*reg(APIC_ICR_LOW) & ICR_PENDING) {
  }
  *reg(APIC_ICR_HIGH) = apic_id << 24;
  *reg(APIC_ICR_LOW) = low;
  while (*reg(APIC_ICR_LOW) & ICR_PENDING) {
  }
}

/* The universal start-up: INIT, then two STARTUPs (the second is ignored by a CPU the first
 * started). Real hardware wants 10 ms after INIT and 200 us after each STARTUP; QEMU acts on them
 * at once, so the waits are short spins. */
void apic_start_cpu(unsigned apic_id, unsigned vector) {
  send_ipi(apic_id, ICR_INIT | ICR_ASSERT);
  for (volatile unsigned i = 0; i < 100000; i++) {
  }
  for (unsigned n = 0; n < 2; n++) {
    send_ipi(apic_id, ICR_STARTUP | (vector & 0xff));
    for (volatile unsigned i = 0; i < 10000; i++) {
    }
  }
}
