/* The x86_64 SMP kernel (smp.elf, booted with -smp 2, without -icount): scenario 9 (common/smp.c).
 * CPU 0 starts the others with INIT and STARTUP IPIs into a real-mode trampoline (start.c,
 * trampoline.S), each on its own stacks, GDT and TSS (IST stacks for the timer, NMIs and double
 * faults); every CPU takes its own local APIC timer ticks and checks a walk from each while CPU 0
 * loads, registers, unregisters and poisons the module 2000 times. This file is the x86_64 glue:
 * the CPUs, the time, the call decoding. */
#include "x86.h"
#include "smp.h"

#ifndef SMP_NCPUS
#define SMP_NCPUS 2 /* as many as the run's -smp */
#endif
#define PERIOD_NS 100000 /* 100 us to 200 us between ticks, per CPU */

extern char ap_entry64[], _start[];

static uint64_t tsc_hz;

static inline uint64_t rdtsc(void) {
  uint32_t lo, hi;
  __asm__ volatile("lfence; rdtsc" : "=a"(lo), "=d"(hi)::"memory");
  return (uint64_t)hi << 32 | lo;
}

unsigned smp_this_cpu(void) { return this_cpu(); }
uint64_t smp_now(void) { return rdtsc(); }
uint64_t smp_freq(void) { return tsc_hz; }
void smp_sync_icache(void) { __asm__ volatile("mfence" ::: "memory"); } /* coherent */

/* Cross-modified code: a serializing instruction before running it (SDM 8.1.3). */
void smp_sync_fetch(void) {
  uint32_t a = 0, b, c = 0, d;
  __asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d)::"memory");
}

uint64_t smp_root(unsigned cpu) { return cpu == 0 ? (uint64_t)_start : (uint64_t)ap_entry64; }

/* The length of an indirect call FF /2 starting at p (after an optional REX prefix), 0 if none. */
static unsigned indirect_call_length(const volatile uint8_t *p) {
  unsigned n = 0;
  if ((p[0] & 0xf0) == 0x40) n = 1;
  if (p[n] != 0xff || ((p[n + 1] >> 3) & 7) != 2) return 0;
  uint8_t modrm = p[n + 1], mod = modrm >> 6, rm = modrm & 7;
  n += 2;
  if (mod == 3) return n;
  if (rm == 4) { /* SIB */
    uint8_t base = p[n] & 7;
    n++;
    if (mod == 0 && base == 5) return n + 4;
  } else if (mod == 0 && rm == 5) {
    return n + 4; /* RIP-relative */
  }
  return n + (mod == 1 ? 1 : mod == 2 ? 4 : 0);
}

/* A direct call (E8 rel32: its target), or an indirect call (FF /2) that ends at ra. */
int smp_call_before(uint64_t ra, uint64_t *target) {
  const volatile uint8_t *r = (const volatile uint8_t *)(uintptr_t)ra;
  *target = 0;
  if (r[-5] == 0xe8) {
    int32_t rel = (int32_t)((uint32_t)r[-4] | (uint32_t)r[-3] << 8 | (uint32_t)r[-2] << 16 |
                            (uint32_t)r[-1] << 24);
    *target = ra + (uint64_t)(int64_t)rel;
    return 1;
  }
  for (unsigned len = 2; len <= 8; len++)
    if (indirect_call_length(r - len) == len) return 1;
  return 0;
}

/* JMP rel32 (E9) or rel8 (EB), read at any byte: a stray match would have to land exactly on the
 * callee's first byte. */
uint64_t smp_jump_at(uint64_t at) {
  const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)at;
  if (p[0] == 0xeb) return at + 2 + (uint64_t)(int64_t)(int8_t)p[1];
  if (p[0] != 0xe9) return 0;
  int32_t rel = (int32_t)((uint32_t)p[1] | (uint32_t)p[2] << 8 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 24);
  return at + 5 + (uint64_t)(int64_t)rel;
}

static void on_tick(struct trap_frame *f) {
  struct sfu_regs regs;
  trap_regs(f, &regs);
  smp_tick(&regs);
  if (!smp_stopping()) apic_timer_oneshot((uint32_t)smp_next_interval(this_cpu(), PERIOD_NS));
  apic_eoi();
}

void secondary_main(unsigned cpu) {
  cpu_init_secondary(cpu, cpu_stacks[cpu]);
  apic_init();
  apic_timer_oneshot((uint32_t)smp_next_interval(cpu, PERIOD_NS));
  irq_enable();
  smp_work(cpu);
  irq_disable();
  apic_timer_stop();
  apic_eoi();
  smp_cpu_done(cpu);
  for (;;) __asm__ volatile("hlt");
}

/* The TSC's rate, against the local APIC timer, which QEMU counts in nanoseconds at divide 1. */
static void calibrate_tsc(void) {
  __asm__ volatile("" ::: "memory");
  apic_timer_stop();
  apic_timer_oneshot(0xffffffffu); /* interrupts are off: it never interrupts */
  uint32_t c0 = apic_timer_count();
  uint64_t t0 = rdtsc();
  while (c0 - apic_timer_count() < 20000000u) { /* 20 ms */
  }
  uint32_t c1 = apic_timer_count();
  uint64_t t1 = rdtsc();
  apic_timer_stop();
  tsc_hz = (t1 - t0) * 1000000000ull / (c0 - c1);
  if (!tsc_hz) tsc_hz = 1;
}

/* For smp_start_cpus: 1 when CPU c came up, -1 when it never did. */
static int start_cpu(unsigned c) {
  ap_start(c);
  return smp_wait_up(c) ? 1 : -1;
}

void kernel_main(void);
void kernel_main(void) {
  serial_init();
  kputs("sfunwind x86_64 SMP test kernel\n");
  cpu_init();
  stacks_init();
  apic_init();
  kernel_register_table();
  smp_init();
  calibrate_tsc();
  ap_install_trampoline();

  trap_set_handler(VEC_TIMER, on_tick);
  unsigned ncpus = smp_start_cpus(SMP_NCPUS, start_cpu);
  int failed = ncpus < SMP_NCPUS;

  apic_timer_oneshot((uint32_t)smp_next_interval(0, PERIOD_NS));
  irq_enable();
  uint64_t rounds_ok = smp_rounds(ncpus);
  smp_stop();
  irq_disable();
  apic_timer_stop();
  failed += smp_finish(ncpus, rounds_ok);
  kernel_done(failed);
}
