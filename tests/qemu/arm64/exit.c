/* Leaving QEMU: semihosting's SYS_EXIT carries the status (run with -semihosting). Without
 * semihosting the HLT is an undefined instruction: it is skipped, and PSCI SYSTEM_OFF (through
 * HVC on virt without EL2/EL3) stops QEMU with status 0; the serial output still says sfu-done.
 * Resetting the machine (the crash scenario's runs, without -no-reboot): PSCI SYSTEM_RESET.
 * QEMU loads the ELF again and enters _start at EL1, MMU off; RAM outside the loaded segments
 * keeps its contents. (With the MMU off every data access is non-cacheable: nothing to clean.) */
#include "arm64.h"

#define SEMIHOST_SYS_EXIT 0x18
#define ADP_STOPPED_APPLICATION_EXIT 0x20026
#define ADP_STOPPED_RUN_TIME_ERROR 0x20023
#define PSCI_SYSTEM_OFF 0x84000008u
#define PSCI_SYSTEM_RESET 0x84000009u

static void semihost_exit(int failed) {
  /* AArch64 SYS_EXIT takes a block: the reason, and the exit status. */
  static uint64_t block[2];
  block[0] = failed ? ADP_STOPPED_RUN_TIME_ERROR : ADP_STOPPED_APPLICATION_EXIT;
  block[1] = failed ? 1 : 0;
  register uint64_t x0 __asm__("x0") = SEMIHOST_SYS_EXIT;
  register uint64_t x1 __asm__("x1") = (uint64_t)block;
  __asm__ volatile("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
}

/* QEMU implements PSCI itself on virt without EL2/EL3, over HVC (the DTB's /psci method). */
static void psci_call(uint32_t function) {
  register uint64_t x0 __asm__("x0") = function;
  __asm__ volatile("hvc #0" : "+r"(x0)::"x1", "x2", "x3", "memory");
}

void arch_reset(void) { psci_call(PSCI_SYSTEM_RESET); }

static int skip_undefined(struct trap_frame *frame, uint64_t esr) {
  if (ESR_EC(esr) != EC_UNKNOWN) return 0;
  frame->elr += 4;
  return 1;
}

void arch_exit(int failed) {
  irq_disable();
  set_sync_hook(skip_undefined);
  semihost_exit(failed);
  psci_call(PSCI_SYSTEM_OFF);
  for (;;) __asm__ volatile("wfi");
}
