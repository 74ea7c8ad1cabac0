/* Scenario 8, the crash-torn kernels: the machine resets in the middle of the capture, as a
 * watchdog or a nested fault's reset might, and boot 2 must refuse the record as torn.
 *
 * No test hook in the library: the kernel defines sfu_hook_read_nofault, the kernel hook every
 * stack read of a walk and of a capture goes through, and resets the machine from inside it.
 * Which read: a first capture into a scratch buffer counts them (the record, a few KiB, fits in
 * it and in the area alike, so both captures read the same words); the real capture is cut at
 * the middle one, after it claimed the area and before it finished. */
#include "crash.h"

static uint8_t scratch[16384] __attribute__((aligned(8)));
static volatile uint32_t reads, reset_at;

int sfu_hook_read_nofault(void *dst, uint64_t src, size_t len) {
  if (++reads == reset_at) {
    arch_reset();
    kputs("sfu-error 8-crash: the machine did not reset\n");
    kernel_done(1);
  }
  const volatile uint8_t *from = (const volatile uint8_t *)(uintptr_t)src;
  uint8_t *to = (uint8_t *)dst;
  for (size_t i = 0; i < len; i++) to[i] = from[i];
  return 0;
}

enum sfu_error crash_capture(const struct sfu_crash_info *info, const struct sfu_regs *regs,
                             const struct sfu_walk_config *config) {
  reads = 0;
  enum sfu_error err = sfu_crash_capture(scratch, sizeof scratch, info, regs, config);
  uint32_t total = reads;
  if (err != SFU_OK || total < 2) {
    kputs("sfu-error 8-crash: the counting capture gave ");
    kputs(sfu_error_name(err));
    kputs(" after ");
    kput_dec(total);
    kputs(" reads\n");
    return err;
  }
  /* The runner checks that the reset comes strictly inside the capture. */
  kputs("sfu-crash-tear ");
  kput_dec(total / 2);
  kputs(" ");
  kput_dec(total);
  kputs("\n");
  reads = 0;
  reset_at = total / 2;
  err = sfu_crash_capture_image(info, regs, config);
  reset_at = 0;
  kputs("sfu-error 8-crash: the capture ended before its read ");
  kput_dec(total / 2);
  kputs("\n");
  return err;
}
