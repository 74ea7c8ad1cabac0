/* Scenario 5's premise (pac-gen-v2, built with -mbranch-protection=pac-ret+leaf): boot.S turned
 * on instruction-key signing, so every return address the kernel saves carries a PAC in its top
 * bits, and the same traces must still come out. Checked here once: a code address signed as
 * the prologues sign x30 must change. */
#include "arm64.h"

int pac_check(void) {
#ifdef SFU_PAC
  register uint64_t ptr __asm__("x17") = (uint64_t)kernel_main;
  register uint64_t modifier __asm__("x16") = 0x40000000;
  __asm__ volatile("hint #8" : "+r"(ptr) : "r"(modifier)); /* PACIA1716 */
  if (ptr == (uint64_t)kernel_main) {
    kputs("sfu-error pac: signing left the address unchanged (SCTLR_EL1.EnIA off?)\n");
    return 1;
  }
  kputs("pac: kernel_main ");
  kput_hex((uint64_t)kernel_main);
  kputs(" signs as ");
  kput_hex(ptr);
  kputs("\n");
#endif
  return 0;
}
