/* The arm64 crash kernels (scenario 8, common/crash.c): a store to an address no CPU has at the
 * bottom of run_chain, and a synchronous-exception hook that hands the registers the entry code
 * saved to the capture, with the syndrome and the faulting address. */
#include "arm64.h"
#include "crash.h"

/* Above every physical address QEMU's CPUs have: with the MMU off, an address-size fault. */
#define NO_SUCH_ADDRESS (1ull << 55)

__attribute__((noinline)) void crash_fault(void) {
  __asm__ volatile("str xzr, [%0]" ::"r"(NO_SUCH_ADDRESS) : "memory");
}

static int on_sync(struct trap_frame *frame, uint64_t esr) {
  if (ESR_EC(esr) != EC_DABT_CUR) return 0;
  struct sfu_regs regs;
  trap_regs(frame, &regs);
  crash_fault_taken(&regs, (uint32_t)esr, read_sysreg(far_el1));
}

void kernel_main(void) {
  set_sync_hook(on_sync);
  kernel_done(crash_main());
}
