/* Scenario 10 on arm64 (in smp.elf, on CPU 0 before the others start): a walk interrupted by a
 * walk.
 *
 * The interrupt: FIQ. QEMU's virt GICv2 has no NMI (GICv3.3 NMIs and FEAT_NMI are not in QEMU
 * 7.2, and GICv2 has no priority masking to build pseudo-NMIs on), so the highest-priority
 * interrupt left is a group 0 interrupt signalled as FIQ (GICC_CTLR.FIQEn): everything else is
 * made group 1 (IRQ), and the handler of a tick unmasks F (PSTATE.F is set on every exception
 * entry) while I stays masked, as a kernel using FIQ as its NMI keeps F clear everywhere but in
 * the FIQ handler. The FIQ is SGI 1, sent by this CPU to itself (GICD_SGIR), priority 0x40
 * above the timer's 0x80.
 *   10-reentry/tick   a timer tick's handler walks the interrupted workload, a checked trace; at
 *                     the walk's READ_FIQ-th read the kernel's sfu_hook_read_nofault sends the
 *                     SGI and waits for it:
 *   10-reentry/fiq    the FIQ handler walks from itself, across the FIQ's trap frame into the hook, the walker
 *                     inside the tick's walk, the tick handler, across the IRQ's trap frame into
 *                     the workload, to _start. Printed into a buffer while the tick's trace is
 *                     printed, and after it. Both @callers. */
#include "arm64.h"
#include "reentry.h"

#define READ_FIQ 1 /* the first stack read: a walk from the workload has at least one */
#define SGI_FIQ 1

static void reentry_raise(void) { gic_send_sgi_self(SGI_FIQ); }

/* Every walk of this kernel reads through here: a plain copy (the MMU is off, nothing faults),
 * and the FIQ at the armed read. */
int sfu_hook_read_nofault(void *dst, uint64_t src, size_t len) {
  reentry_before_read();
  const volatile uint8_t *s = (const volatile uint8_t *)src;
  uint8_t *d = (uint8_t *)dst;
  for (size_t i = 0; i < len; i++) d[i] = s[i];
  return 0;
}

static void on_fiq(struct trap_frame *frame) {
  (void)frame;
  uint32_t iar = gic_ack();
  if ((iar & 0x3ff) != SGI_FIQ) {
    kputs("sfu-error 10-reentry: FIQ for interrupt ");
    kput_dec(iar & 0x3ff);
    kputs("\n");
    if ((iar & 0x3ff) != GIC_SPURIOUS) gic_eoi(iar);
    return;
  }
  reentry_nested_walk("fiq");
  gic_eoi(iar);
}

static volatile int tick_done;

static void on_tick(struct trap_frame *frame) {
  struct sfu_regs regs;
  trap_regs(frame, &regs);
  __asm__ volatile("msr daifclr, #1" ::: "memory"); /* FIQ on, IRQ still masked */
  reentry_tick_walk(&regs, READ_FIQ);
  __asm__ volatile("msr daifset, #1" ::: "memory");
  timer_stop();
  tick_done = 1;
}

int scenario_reentry(void) {
  gic_fiq_init(SGI_FIQ);
  set_fiq_hook(on_fiq);
  timer_arm(timer_freq() / 20000, on_tick);
  workload_run(&tick_done);
  set_fiq_hook(0);
  return reentry_finish("FIQ");
}
