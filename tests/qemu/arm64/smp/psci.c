/* PSCI CPU_ON over HVC (QEMU virt without EL2/EL3 implements PSCI itself): starts the CPU whose
 * MPIDR affinity is `mpidr` at `entry`, at EL1 with the MMU off, x0 = context. 0 on success. */
#include "arm64.h"

#define PSCI_CPU_ON 0xc4000003u

int64_t psci_cpu_on(uint64_t mpidr, uint64_t entry, uint64_t context) {
  register uint64_t x0 __asm__("x0") = PSCI_CPU_ON;
  register uint64_t x1 __asm__("x1") = mpidr;
  register uint64_t x2 __asm__("x2") = entry;
  register uint64_t x3 __asm__("x3") = context;
  __asm__ volatile("hvc #0" : "+r"(x0), "+r"(x1), "+r"(x2), "+r"(x3)::"memory");
  return (int64_t)x0;
}
