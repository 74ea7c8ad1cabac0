/* make demo: a banner, an invalid opcode at the bottom of a call chain, and the backtrace
 * sfunwind finds from the faulting registers (demo.py names each frame). */
#include "x86.h"

static noipa void demo_fault(void) { __asm__ volatile("1: ud2\n2:\n" FIXUP(1b, 2b)); }

static void on_invalid_opcode(struct trap_frame *f) {
  struct sfu_regs regs;
  trap_regs(f, &regs);
  kputs("#UD (invalid opcode) at ");
  kput_hex(f->rip);
  kputs(". Walking from the registers the CPU saved:\n\n");
  /* A checked trace, so that make qemu-test keeps the demo honest too. */
  kernel_trace("demo/invalid-opcode",
               "demo_fault " RUN_CHAIN_FRAMES " kernel_main _start | end-of-stack",
               &regs);

  struct sfu_walk_config config = {0};
  arch_walk_config(&config);
  uint64_t pcs[32];
  enum sfu_stop why;
  size_t n = sfu_backtrace(&regs, &config, pcs, 32, &why);
  kputs("\n");
  kput_dec(n);
  kputs(" frames, from the fault up to _start; the walk stopped because: ");
  kputs(sfu_stop_name(why));
  kputs("\n");
  trap_fixup(f);
}

void kernel_main(void);
void kernel_main(void) {
  serial_init();
  cpu_init();
  stacks_init();
  kernel_register_table();
  kputs(
      "\n  sfunwind demo: x86_64 under QEMU\n"
      "  --------------------------------\n"
      "  This kernel's SFrame table is registered. kernel_main now calls run_chain, which\n"
      "  passes straight on (a tail call) to chain_1 -> ... -> chain_6 -> demo_fault, and\n"
      "  demo_fault executes ud2.\n\n");
  trap_set_handler(VEC_UD, on_invalid_opcode);
  run_chain(demo_fault);
  kputs("\nBack in kernel_main after the fault: done.\n");
  kernel_done(0);
}
