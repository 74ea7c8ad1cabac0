/* Trap handling: vectors.S calls trap_dispatch with the saved registers; each scenario installs
 * the handlers it needs. Also the two ways back from a fault: the fixup table (resume after the
 * faulting instruction) and resume points (return into an earlier resume_save). */
#include "x86.h"

struct fixup {
  uint64_t fault, resume;
};
extern const struct fixup __fixup_start[], __fixup_end[]; /* kernel.lds.S */

static trap_handler handlers[256];

void trap_set_handler(unsigned vector, trap_handler handler) { handlers[vector & 255] = handler; }

static void unexpected(const struct trap_frame *f) {
  kputs("sfu-error unexpected trap: vector ");
  kput_dec(f->vector);
  kputs(" error ");
  kput_hex(f->error);
  kputs(" rip ");
  kput_hex(f->rip);
  kputs(" rsp ");
  kput_hex(f->rsp);
  if (f->vector == VEC_PF) {
    kputs(" address ");
    kput_hex(read_cr2());
  }
  kputs("\n");
  kernel_done(1);
}

/* Called by trap_common (vectors.S) with interrupts off, on the stack the vector's gate gave. */
void trap_dispatch(struct trap_frame *f);
void trap_dispatch(struct trap_frame *f) {
  trap_handler h = handlers[f->vector & 255];
  if (!h) unexpected(f);
  h(f);
  __asm__ volatile("" ::: "memory"); /* a call, not a tail call: traces show this frame */
}

int trap_fixup(struct trap_frame *f) {
  for (const struct fixup *p = __fixup_start; p < __fixup_end; p++) {
    if (p->fault == f->rip) {
      f->rip = p->resume;
      return 1;
    }
  }
  return 0;
}

void trap_resume(struct trap_frame *f, const struct resume_point *p) {
  f->rip = p->rip;
  f->rsp = p->rsp;
  f->rbx = p->rbx;
  f->rbp = p->rbp;
  f->r12 = p->r12;
  f->r13 = p->r13;
  f->r14 = p->r14;
  f->r15 = p->r15;
  f->rax = 1; /* resume_save's second return */
}
