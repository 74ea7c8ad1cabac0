/* The arm64 SMP kernel (smp.elf, booted with -smp): scenario 10 on CPU 0 alone (reentry.c), then
 * scenario 9 (common/smp.c): CPU 0 starts the others with PSCI CPU_ON, every CPU takes its own
 * timer ticks and checks a walk from each, while CPU 0 loads, registers, unregisters and poisons
 * the module 2000 times. This file is the arm64 glue: the timer, the call decoding, the CPUs. */
#include "arm64.h"
#include "smp.h"

extern char secondary_entry[], _start[];
void secondary_main(unsigned cpu);

static uint64_t period;

static uint8_t secondary_stacks[ARM64_MAX_CPUS - 1][16384 + 4096 + 16384]
    __attribute__((aligned(4096)));

unsigned smp_this_cpu(void) { return this_cpu(); }

uint64_t smp_now(void) {
  isb();
  return read_sysreg(cntvct_el0);
}

uint64_t smp_freq(void) { return timer_freq(); }

void smp_sync_icache(void) { __asm__ volatile("dsb ish\n\tic ialluis\n\tdsb ish\n\tisb" ::: "memory"); }

void smp_sync_fetch(void) { isb(); }

uint64_t smp_root(unsigned cpu) { return cpu == 0 ? (uint64_t)_start : (uint64_t)secondary_entry; }

/* BL (its target), or an indirect call: BLR and the PAC forms BLRAA/BLRAB/BLRAAZ/BLRABZ. */
int smp_call_before(uint64_t ra, uint64_t *target) {
  uint32_t insn = *(const volatile uint32_t *)(ra - 4);
  *target = 0;
  if ((insn & 0xfc000000u) == 0x94000000u) {
    int64_t imm = (int64_t)((uint64_t)(insn & 0x03ffffffu) << 38) >> 36;
    *target = ra - 4 + (uint64_t)imm;
    return 1;
  }
  return (insn & 0xfffffc1fu) == 0xd63f0000u || (insn & 0xfefff800u) == 0xd63f0800u;
}

/* B imm26. */
uint64_t smp_jump_at(uint64_t at) {
  uint32_t insn = *(const volatile uint32_t *)at;
  if ((insn & 0xfc000000u) != 0x14000000u) return 0;
  return at + (uint64_t)((int64_t)((uint64_t)(insn & 0x03ffffffu) << 38) >> 36);
}

static void on_tick(struct trap_frame *frame) {
  struct sfu_regs regs;
  trap_regs(frame, &regs);
  smp_tick(&regs);
  if (!smp_stopping()) timer_arm(smp_next_interval(this_cpu(), period), on_tick);
}

void secondary_main(unsigned cpu) {
  timer_init(); /* this CPU's GIC interface and timer interrupt */
  timer_arm(smp_next_interval(cpu, period), on_tick);
  irq_enable();
  smp_work(cpu);
  irq_disable();
  timer_stop();
  smp_cpu_done(cpu);
  for (;;) __asm__ volatile("wfi");
}

/* CPU c, given its stacks first, started by PSCI (which refuses a CPU the machine lacks). */
static int start_cpu(unsigned c) {
  uint8_t *s = secondary_stacks[c - 1];
  cpu_stacks[c] = (struct cpu_stacks){(char *)s, (char *)s + 16384, (char *)s + 16384 + 4096,
                                      (char *)s + sizeof(secondary_stacks[0])};
  if (psci_cpu_on(c, (uint64_t)secondary_entry, c) != 0) return 0;
  return smp_wait_up(c) ? 1 : -1;
}

void kernel_main(void) {
  kernel_register_table();
  kputs("sfunwind arm64 SMP test kernel\n");
  smp_init();
  timer_init();
  period = timer_freq() / 10000; /* 100 us to 200 us between ticks, per CPU */
  if (period == 0) period = 1;

  int failed = scenario_reentry(); /* on this CPU alone (reentry.c) */

  /* Start the others: as many as QEMU gives (PSCI refuses the rest). */
  unsigned ncpus = smp_start_cpus(ARM64_MAX_CPUS, start_cpu);

  timer_arm(smp_next_interval(0, period), on_tick);
  irq_enable();
  uint64_t rounds_ok = smp_rounds(ncpus);
  smp_stop();
  irq_disable();
  timer_stop();
  failed += smp_finish(ncpus, rounds_ok);
  kernel_done(failed);
}
