/* The C side of the exception vectors: checked fault traces, a scenario's own synchronous
 * exceptions, interrupts, and everything unexpected (reported, then the run ends). */
#include "arm64.h"

static struct {
  unsigned ec;
  const char *name, *expect;
  int armed, taken;
} next_fault;

static sync_hook scenario_hook;

static struct {
  const char *name, *expect;
} in_handler;

struct fixup {
  uint64_t fault, resume;
};
extern const struct fixup __fixup_start[], __fixup_end[]; /* kernel.lds.S */
static volatile unsigned fixups_taken;

unsigned trap_fixups(void) { return fixups_taken; }

/* A listed instruction that aborted resumes at its fixup, as a kernel's exception table does. */
static int trap_fixup(struct trap_frame *frame) {
#ifdef ARM64_NO_FIXUP /* the kernel built to be wrong: an abort in a no-fault read ends the run */
  return 0;
#endif
  for (const struct fixup *p = __fixup_start; p < __fixup_end; p++)
    if (p->fault == frame->elr) {
      frame->elr = p->resume;
      fixups_taken++;
      return 1;
    }
  return 0;
}

void trace_next_fault(unsigned ec, const char *name, const char *expect) {
  next_fault.ec = ec;
  next_fault.name = name;
  next_fault.expect = expect;
  next_fault.taken = 0;
  next_fault.armed = 1;
}

void trace_fault_in_handler(const char *name, const char *expect) {
  in_handler.name = name;
  in_handler.expect = expect;
}

int fault_traced(void) {
  int taken = next_fault.taken;
  next_fault.armed = 0;
  next_fault.taken = 0;
  return taken;
}

void set_sync_hook(sync_hook hook) { scenario_hook = hook; }

static void report(const char *what, const struct trap_frame *frame, uint64_t esr) {
  kputs("sfu-error unexpected ");
  kputs(what);
  kputs(": esr ");
  kput_hex(esr);
  kputs(" elr ");
  kput_hex(frame->elr);
  kputs(" far ");
  kput_hex(read_sysreg(far_el1));
  kputs("\n");
}

void handle_sync(struct trap_frame *frame) {
  uint64_t esr = read_sysreg(esr_el1);
  if (ESR_EC(esr) == EC_DABT_CUR && trap_fixup(frame)) return;
  if (next_fault.armed && ESR_EC(esr) == next_fault.ec) {
    struct sfu_regs regs;
    trap_regs(frame, &regs);
    next_fault.armed = 0;
    kernel_trace(next_fault.name, next_fault.expect, &regs);
    if (in_handler.name) {
      sfu_capture_here(&regs);
      kernel_trace(in_handler.name, in_handler.expect, &regs);
      in_handler.name = 0;
    }
    next_fault.taken = 1;
    /* Every fault the scenarios raise is one 4-byte instruction; a call through NULL (ELR 0)
     * "returns" to its caller instead. */
    frame->elr = frame->elr == 0 ? frame->x[30] : frame->elr + 4;
    return;
  }
  if (scenario_hook && scenario_hook(frame, esr)) return;
  report("exception", frame, esr);
  kernel_done(1);
}

void handle_irq(struct trap_frame *frame) {
  uint32_t iar = gic_ack();
  uint32_t intid = iar & 0x3ff;
  if (intid == GIC_SPURIOUS) return;
  if (intid == TIMER_INTID) {
    timer_irq(frame);
  } else {
    kputs("sfu-error unexpected interrupt ");
    kput_dec(intid);
    kputs("\n");
  }
  gic_eoi(iar);
}

static fiq_hook_fn fiq_hook;

void set_fiq_hook(fiq_hook_fn hook) { fiq_hook = hook; }

void handle_fiq(struct trap_frame *frame) {
  if (fiq_hook) {
    fiq_hook(frame);
    __asm__ volatile("" ::: "memory"); /* not a tail call: handle_fiq stays in the trace */
    return;
  }
  handle_unexpected(frame, (frame->spsr & 1) ? 6 : 2); /* SPSR.M[0]: taken from SP_EL1 */
}

void handle_unexpected(struct trap_frame *frame, uint64_t vector) {
  kputs("sfu-error vector ");
  kput_dec(vector);
  kputs(" taken\n");
  report("exception", frame, read_sysreg(esr_el1));
  kernel_done(1);
}
