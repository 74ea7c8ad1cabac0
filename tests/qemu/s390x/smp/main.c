/* The s390x SMP kernel (smp.elf, booted with -smp 2, without -icount): scenario 9 (common/smp.c).
 * CPU 0 gives CPU 1 a lowcore of its own (SIGP SET PREFIX) holding the new PSWs, a restart new
 * PSW at secondary_entry and the tops of its own stacks, then starts it with SIGP RESTART. Every
 * CPU takes its own CPU-timer ticks and checks a walk from each while CPU 0 loads, registers,
 * unregisters and poisons the module 2000 times. This file is the s390x glue: the CPUs (started by
 * cpu.c), the TOD clock, the call decoding. */
#include "kernel.h"
#include "s390x.h"
#include "smp.h"
#include "timer.h"
#include "traps.h"

#define TICK_US 100
#ifndef SMP_NCPUS
#define SMP_NCPUS 2 /* as many as the run's -smp */
#endif

extern char secondary_entry[], _start[];
void secondary_main(unsigned cpu);

unsigned smp_this_cpu(void) { return this_cpu(); }

uint64_t smp_now(void) {
  uint64_t tod;
  __asm__ volatile("stckf %0" : "=Q"(tod)::"cc");
  return tod;
}
uint64_t smp_freq(void) { return 4096000000ull; } /* TOD bit 51 is one microsecond */

/* Storage is coherent with instruction fetch; serialize (BCR 14,0) after writing code, and on
 * the CPU that runs it before it does (BCR 15,0). */
void smp_sync_icache(void) { __asm__ volatile("bcr 14,0" ::: "memory"); }
void smp_sync_fetch(void) { __asm__ volatile("bcr 15,0" ::: "memory"); }

uint64_t smp_root(unsigned cpu) {
  return cpu == 0 ? (uint64_t)(uintptr_t)_start : (uint64_t)(uintptr_t)secondary_entry;
}

/* BRASL (6 bytes, C0x5 and a halfword offset from itself) or BRAS (4 bytes, A7x5): their target;
 * or an indirect BASR/BALR (2 bytes, 0D/05) or BAS/BAL (4 bytes, 4D/45): the calls gcc makes. */
int smp_call_before(uint64_t ra, uint64_t *target) {
  const volatile uint8_t *r = (const volatile uint8_t *)(uintptr_t)ra;
  *target = 0;
  if (r[-6] == 0xc0 && (r[-5] & 0x0f) == 0x05) {
    int32_t half = (int32_t)((uint32_t)r[-4] << 24 | (uint32_t)r[-3] << 16 | (uint32_t)r[-2] << 8 | r[-1]);
    *target = ra - 6 + (uint64_t)((int64_t)half * 2);
    return 1;
  }
  if (r[-4] == 0xa7 && (r[-3] & 0x0f) == 0x05) {
    int16_t half = (int16_t)((uint16_t)r[-2] << 8 | r[-1]);
    *target = ra - 4 + (uint64_t)((int64_t)half * 2);
    return 1;
  }
  return r[-2] == 0x0d || r[-2] == 0x05 || r[-4] == 0x4d || r[-4] == 0x45;
}

/* JG (BRCL 15, C0F4) or J (BRC 15, A7F4): a halfword offset from the instruction. */
uint64_t smp_jump_at(uint64_t at) {
  const volatile uint8_t *p = (const volatile uint8_t *)(uintptr_t)at;
  if (p[0] == 0xc0 && p[1] == 0xf4)
    return at + (uint64_t)((int64_t)(int32_t)((uint32_t)p[2] << 24 | (uint32_t)p[3] << 16 | (uint32_t)p[4] << 8 | p[5]) * 2);
  if (p[0] == 0xa7 && p[1] == 0xf4) return at + (uint64_t)((int64_t)(int16_t)((uint16_t)p[2] << 8 | p[3]) * 2);
  return 0;
}

static void on_tick(struct trap_frame *tf) {
  struct sfu_regs regs;
  trap_regs(tf, &regs);
  smp_tick(&regs);
}

void secondary_main(unsigned cpu) {
  timer_start(TICK_US, on_tick); /* this CPU's timer; unmasks external interrupts */
  smp_work(cpu);
  timer_stop();
  smp_cpu_done(cpu);
  for (;;) {
  }
}

/* For smp_start_cpus: 1 when CPU c came up, 0 when there is no such CPU, -1 when it never came up. */
static int start_cpu(unsigned c) {
  int started = s390x_start_cpu(c);
  if (started <= 0) return started;
  return smp_wait_up(c) ? 1 : -1;
}

__attribute__((noreturn)) void kernel_main(void);
void kernel_main(void) {
  kputs("sfunwind s390x SMP test kernel\n");
  kernel_register_table();
  smp_init();
  unsigned ncpus = smp_start_cpus(SMP_NCPUS, start_cpu);
  int failed = ncpus < SMP_NCPUS;
  timer_start(TICK_US, on_tick);
  uint64_t rounds_ok = smp_rounds(ncpus);
  smp_stop();
  timer_stop();
  failed += smp_finish(ncpus, rounds_ok);
  /* QEMU ends the run at CPU 0's disabled wait (arch_exit) only once no other CPU runs. */
  for (unsigned c = 1; c < ncpus; c++) sigp(c, SIGP_STOP, 0);
  kernel_done(failed);
}
