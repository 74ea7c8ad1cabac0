/* Scenario 8, crash records: the crash kernels' shared half (tests/qemu/README.md, "Crash
 * records"). The run boots twice. Boot 1 finds no record, faults at the bottom of run_chain, and
 * its exception handler prints the checked trace, captures a record into the image's crash area
 * (linker/sfunwind-crash.ld) and resets the machine. Boot 2 takes the record and prints it; the
 * host decodes the printed record with `sfu crash` and compares it with boot 1's trace. */
#include "crash.h"

/* Boot 1 crashes and resets; boot 2 takes the record and ends the run. */
#define CRASH_BOOTS 2
#define BOOT_GUARD_MAGIC 0x7366752d626f6f74ull /* "sfu-boot" */

/* The boot count, in memory a warm reset keeps (.noinit: in no loaded segment, which every
 * kernel.lds places): a record that did not survive shows as boot 2 without one, and a machine
 * that keeps resetting stops at boot 3 instead of looping. QEMU starts with RAM zeroed, so the
 * first boot of a run finds no magic. */
static volatile struct {
  uint64_t magic, boots;
} boot_guard __attribute__((section(".noinit")));

static uint64_t count_boot(void) {
  if (boot_guard.magic != BOOT_GUARD_MAGIC) {
    boot_guard.boots = 0;
    boot_guard.magic = BOOT_GUARD_MAGIC;
  }
  return ++boot_guard.boots;
}

int crash_main(void) {
  uint64_t boot = count_boot();
  kputs("sfu-boot ");
  kput_dec(boot);
  kputs("\n");
  if (crash_boot_started) crash_boot_started();
  if (boot > CRASH_BOOTS) {
    kputs("sfu-error 8-crash: boot ");
    kput_dec(boot);
    kputs(": the machine reset more often than the scenario does\n");
    boot_guard.magic = 0;
    return 1;
  }
  kernel_register_table();
  struct sfu_crash_view view;
  enum sfu_error err = sfu_crash_take_image(&view);
  if (err == SFU_OK) {
    sfu_crash_print(&console, &view);
  } else {
    kputs("sfu-crash-refused ");
    kputs(sfu_error_name(err));
    kputs("\n");
  }
  if (boot == CRASH_BOOTS) {
    boot_guard.magic = 0; /* the run is over: a later reset would start it again */
    return 0;
  }
  if (crash_start_others) crash_start_others(); /* crash-smp.c: the other CPUs fault too */
  run_chain(crash_fault);
  kputs("sfu-error 8-crash: crash_fault did not fault\n");
  return 1;
}

/* crash-smp.c has its own. */
__attribute__((weak)) void crash_fault_taken(const struct sfu_regs *regs, uint32_t detail,
                                             uint64_t fault_address) {
  kernel_trace("8-crash/fault",
               "crash_fault " RUN_CHAIN_FRAMES " crash_main kernel_main _start | end-of-stack", regs);
  struct sfu_walk_config config = {0};
  arch_walk_config(&config);
  const struct sfu_crash_info info = {SFU_CRASH_EXCEPTION, detail, fault_address,
                                      "8-crash: crash_fault, six calls down run_chain"};
  enum sfu_error err = crash_capture(&info, regs, &config);
  kputs("sfu-crash-captured ");
  kputs(sfu_error_name(err));
  kputs("\n");
  arch_reset();
  kputs("sfu-error 8-crash: the machine did not reset\n");
  kernel_done(1);
}

/* crash-torn.c has its own. */
__attribute__((weak)) enum sfu_error crash_capture(const struct sfu_crash_info *info,
                                                   const struct sfu_regs *regs,
                                                   const struct sfu_walk_config *config) {
  return sfu_crash_capture_image(info, regs, config);
}
