/* Starting the other CPUs of the s390x SMP kernels (smp.elf, crash-smp*.elf): CPU 0 gives a CPU
 * a lowcore of its own (SIGP SET PREFIX) holding CPU 0's new PSWs, a restart new PSW at
 * secondary_entry (secondary.S) and the tops of its own stacks, then starts it with SIGP
 * RESTART. Its restart new PSW stays secondary_entry: it takes no restart interruption later, so
 * it has no restart stack (arch_walk_config declares its other three). */
#include "s390x.h"

#define LOWCORE_SIZE 8192
#define STACK 16384

extern char secondary_entry[];

static uint8_t lowcores[S390X_MAX_CPUS - 1][LOWCORE_SIZE] __attribute__((aligned(LOWCORE_SIZE)));
static uint8_t stack_mem[S390X_MAX_CPUS - 1][3][STACK] __attribute__((aligned(4096)));
static struct s390x_cpu_stacks stacks_of[S390X_MAX_CPUS];

int s390x_start_cpu(unsigned c) {
  if (c == 0 || c >= S390X_MAX_CPUS) return 0;
  uint8_t *lc = lowcores[c - 1];
  /* This CPU's lowcore: the same new PSWs (the first 512 bytes hold them; the rest stays 0). */
  uintptr_t zero = 0;
  __asm__("" : "+r"(zero)); /* CPU 0's lowcore, at real address 0 (prefix 0) */
  for (unsigned n = 0; n < 512; n++) lc[n] = ((const volatile uint8_t *)zero)[n];
  char *t = (char *)stack_mem[c - 1][0], *i = (char *)stack_mem[c - 1][1], *e = (char *)stack_mem[c - 1][2];
  stacks_of[c] = (struct s390x_cpu_stacks){t, t + STACK, i, i + STACK, e, e + STACK, 0, 0};
  cpu_stacks[c] = &stacks_of[c];
  *(uint64_t *)(lc + LC_TASK_STACK) = (uint64_t)(uintptr_t)(t + STACK);
  *(uint64_t *)(lc + LC_IRQ_STACK) = (uint64_t)(uintptr_t)(i + STACK);
  *(uint64_t *)(lc + LC_EXC_STACK) = (uint64_t)(uintptr_t)(e + STACK);
  *(uint64_t *)(lc + LC_RESTART_NEW_PSW) = PSW_MASK_64;
  *(uint64_t *)(lc + LC_RESTART_NEW_PSW + 8) = (uint64_t)(uintptr_t)secondary_entry;
  __asm__ volatile("bcr 14,0" ::: "memory");
  if (sigp(c, SIGP_SET_PREFIX, (uint64_t)(uintptr_t)lc) != 0) return 0; /* no such CPU */
  return sigp(c, SIGP_RESTART, 0) == 0 ? 1 : -1;
}
