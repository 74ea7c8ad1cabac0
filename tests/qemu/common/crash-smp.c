/* Scenario 8, the crash-smp kernels: two CPUs panic at once (tests/qemu/README.md, "Two CPUs
 * panicking at once"). Built with crash.c, whose crash_main runs the boots; this file replaces
 * its crash_fault_taken and starts the other CPUs before boot 1's fault.
 *
 * Boot 1: CPU 0 starts CPU 1 (arch_start_cpu), both meet at a barrier and fault in crash_fault
 * at the bottom of run_chain at the same moment. Each handler captures into the one crash area
 * at once: exactly one capture may win. The winner's first stack read (sfu_hook_read_nofault,
 * below) is held until every other CPU's capture has answered and the loser is inside
 * sfu_crash_wait, so the loser really meets a capture in progress (SFU_E_CRASH_CAPTURE_BUSY) and
 * a reset now would tear the record: it calls sfu_crash_wait first. Then each CPU prints, under
 * a print lock (the kernel's, not sfunwind's), its whole trace "8-crash/cpuN" and its capture's
 * answer:
 *
 *   sfu-crash-captured NAME 8-crash/cpuN      the answer of that CPU's capture
 *   sfu-crash-waited NAME SPINS               the loser's sfu_crash_wait and how long it spun
 *
 * Once every CPU printed, a loser resets the machine; the winner waits for it. Boot 2 takes the
 * record (crash.c), which the runner (run.py --crash smp) compares with the winner's trace.
 *
 * -DCRASH_SMP_NO_WAIT builds the kernel that forgets sfu_crash_wait and resets at once: its boot
 * 2 finds a torn record, and the run must fail; -DCRASH_SMP_NO_LOCK the one without the print
 * lock, whose traces interleave (the checks shown to fail: tests/qemu/runner_test.py). */
#include "crash.h"

#define MAX_CPUS 4
#define NCPUS 2
#define SPIN_LIMIT (1ull << 31) /* bounded waits: far longer than anything here takes */
#define WAIT_SPINS (1u << 30)
#define HOLD_SPINS 5000000u

static volatile unsigned ready, go;
static volatile int answered[MAX_CPUS], capturing[MAX_CPUS], waiting[MAX_CPUS];
static volatile int printed[MAX_CPUS], print_ready[MAX_CPUS];
static volatile uint32_t print_lock;

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_SEQ_CST)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_SEQ_CST)

/* Spins until cond holds, at most SPIN_LIMIT turns: 0 if it never did. */
#define SPIN_UNTIL(cond)                                   \
  ({                                                       \
    uint64_t n_ = 0;                                       \
    while (!(cond) && n_ < SPIN_LIMIT) n_++;               \
    (int)(cond);                                           \
  })

static void lock_print(void) {
#ifdef CRASH_SMP_NO_LOCK
  return;
#endif
  while (__atomic_exchange_n(&print_lock, 1, __ATOMIC_ACQUIRE))
    while (LOAD(print_lock)) {
    }
}

static void unlock_print(void) { __atomic_store_n(&print_lock, 0, __ATOMIC_RELEASE); }

/* The barrier: every CPU faults once all are here. */
static void meet(void) {
  __atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
  if (!SPIN_UNTIL(LOAD(ready) == NCPUS)) {
    kputs("sfu-error 8-crash: the CPUs never met\n");
    kernel_done(1);
  }
}

/* CPU 0, from crash_main before its fault: the other CPUs start and meet it. */
void crash_start_others(void) {
  for (unsigned cpu = 1; cpu < NCPUS; cpu++)
    if (arch_start_cpu(cpu) != 0) {
      kputs("sfu-error 8-crash: could not start cpu ");
      kput_dec(cpu);
      kputs("\n");
      kernel_done(1);
    }
  meet();
}

/* The other CPUs, from their entry code: meet CPU 0 and fault. */
__attribute__((noinline)) void crash_secondary(unsigned cpu) {
  (void)cpu;
  meet();
  run_chain(crash_fault);
  kputs("sfu-error 8-crash: crash_fault did not fault\n");
  kernel_done(1);
}

int sfu_hook_read_nofault(void *dst, uint64_t src, size_t len) {
  unsigned cpu = arch_cpu_index() % MAX_CPUS;
  if (LOAD(capturing[cpu]) == 1) {
    /* This CPU's capture claimed the area (it reads stacks only after): hold it until every
     * other CPU's capture answered and the losers wait for it, and a little longer. */
    STORE(capturing[cpu], 2);
    for (unsigned c = 0; c < NCPUS; c++)
      if (c != cpu && !SPIN_UNTIL(LOAD(answered[c]) && (LOAD(waiting[c]) || LOAD(printed[c])))) {
        lock_print();
        kputs("sfu-error 8-crash: held capture: cpu ");
        kput_dec(c);
        kputs(" never answered\n");
        unlock_print();
      }
    /* A capture of a big stack would take this long: long enough that a reset coming now (a
     * loser that did not wait) always cuts it. */
    for (volatile uint32_t i = 0; i < HOLD_SPINS; i++) {
    }
  }
  const volatile uint8_t *from = (const volatile uint8_t *)(uintptr_t)src;
  uint8_t *to = (uint8_t *)dst;
  for (size_t i = 0; i < len; i++) to[i] = from[i];
  return 0;
}

void crash_fault_taken(const struct sfu_regs *regs, uint32_t detail, uint64_t fault_address) {
  unsigned cpu = arch_cpu_index() % MAX_CPUS;
  char name[] = "8-crash/cpu0";
  name[11] = (char)('0' + cpu);
  char message[] = "8-crash: cpu0 in crash_fault, both CPUs at once";
  message[12] = (char)('0' + cpu);

  struct sfu_walk_config config = {0};
  arch_walk_config(&config);
  const struct sfu_crash_info info = {SFU_CRASH_EXCEPTION, detail, fault_address, message};
  STORE(capturing[cpu], 1);
  enum sfu_error err = sfu_crash_capture_image(&info, regs, &config);
  STORE(capturing[cpu], 0);
  STORE(answered[cpu], 1);

  enum sfu_error waited = SFU_E_CRASH_CAPTURE_BUSY; /* stays so when the kernel does not wait */
  uint64_t spins = 0;
  int lost = err == SFU_E_CRASH_CAPTURE_BUSY || err == SFU_E_CRASH_RECORD_KEPT;
#ifndef CRASH_SMP_NO_WAIT
  if (lost) {
    STORE(waiting[cpu], 1);
    /* Count how long the wait took, as the wait does: reads of the state word, in steps. */
    for (;;) {
      waited = sfu_crash_wait(__sfu_crash_start, 4096);
      if (waited != SFU_E_CRASH_CAPTURE_BUSY || spins >= WAIT_SPINS) break;
      spins += 4096;
    }
  }
#endif

  /* Every CPU starts printing at the same moment (so that without the lock the lines would
   * mix, every run), and everything one CPU prints comes out whole. A loser that does not wait
   * (-DCRASH_SMP_NO_WAIT) does not meet the others either: it prints and resets at once, while
   * the winner's capture is held (the winner cannot reach the meeting before it is released). */
  int meets = 1;
#ifdef CRASH_SMP_NO_WAIT
  meets = !lost;
#endif
  STORE(print_ready[cpu], 1);
  if (meets)
    for (unsigned c = 0; c < NCPUS; c++) SPIN_UNTIL(LOAD(print_ready[c]));
  lock_print();
  static char expect[256];
  const char *parts[] = {"crash_fault " RUN_CHAIN_FRAMES " ",
                         cpu == 0 ? "crash_main kernel_main _start" : "crash_secondary ",
                         cpu == 0 ? "" : arch_secondary_frames, " | end-of-stack"};
  size_t n = 0;
  for (unsigned p = 0; p < 4; p++)
    for (const char *s = parts[p]; *s && n + 1 < sizeof expect; s++) expect[n++] = *s;
  expect[n] = 0;
  kernel_trace(name, expect, regs);
  kputs("sfu-crash-captured ");
  kputs(sfu_error_name(err));
  kputs(" ");
  kputs(name);
  kputs("\n");
  if (lost) {
    kputs("sfu-crash-waited ");
    kputs(spins || waited != SFU_E_CRASH_CAPTURE_BUSY ? sfu_error_name(waited) : "not");
    kputs(" ");
    kput_dec(spins);
    kputs("\n");
  }
  unlock_print();
  STORE(printed[cpu], 1);

  if (lost) {
#ifdef CRASH_SMP_NO_WAIT
    arch_reset();
#endif
    /* Every CPU's trace is out: reset. */
    for (unsigned c = 0; c < NCPUS; c++)
      if (!SPIN_UNTIL(LOAD(printed[c]))) {
        lock_print();
        kputs("sfu-error 8-crash: cpu ");
        kput_dec(c);
        kputs(" never printed its trace\n");
        unlock_print();
      }
    arch_reset();
    kputs("sfu-error 8-crash: the machine did not reset\n");
    kernel_done(1);
  }
  /* The winner (or a capture that failed otherwise): a loser resets the machine. */
  static volatile int never;
  SPIN_UNTIL(LOAD(never));
  SPIN_UNTIL(LOAD(never));
  lock_print();
  kputs("sfu-error 8-crash: cpu ");
  kput_dec(cpu);
  kputs(" (");
  kputs(sfu_error_name(err));
  kputs("): no other CPU reset the machine\n");
  unlock_print();
  kernel_done(1);
}
