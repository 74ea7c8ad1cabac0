/* The sfu-profile suite's end-to-end program (tests/profile/e2e.py): linked with the host core built
 * with CONFIG_SFU_PROFILE=y and with linker/sfunwind.ld (gas's SFrame table, a build-id), it
 * registers its own table, samples its own stacks into a profile and prints it, as a kernel's timer
 * interrupt and its console would. The samples are taken where the code is, not by a timer: each
 * SAMPLE() is one sample of the stack it sits in, so the counts are known (hot 6, cold 3, main 1
 * and, in a stack deeper than the profile keeps, 2 cut at depth) and the suite checks exact output.
 * Built -no-pie (the image where it was linked) and -pie (where Linux's loader put it: a moved
 * image, named through its module line's bias). Prints the profile, then "raw N ADDR..." per
 * sample: the same stack walked again by sfu_backtrace, the suite's second count. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>

#include "sfu/image.h"
#include "sfu/profile.h"

extern char __executable_start[], etext[];

#define MAX_STACKS 16
#define MAX_DEPTH 8
static uint64_t memory[SFU_PROFILE_MEMORY_SIZE(MAX_STACKS, MAX_DEPTH) / 8];
static struct sfu_profile profile;
static struct sfu_stack stack;
static struct sfu_walk_config config;

/* One sample of the stack it is in, first frame the function it is written in; and the same walk
 * again, printed raw. */
#define SAMPLE()                                                                   \
  do {                                                                             \
    struct sfu_regs regs;                                                          \
    sfu_capture_here(&regs);                                                       \
    sfu_profile_sample(&profile, &regs, &config);                                  \
    uint64_t pcs[MAX_DEPTH];                                                       \
    enum sfu_stop why;                                                             \
    size_t n = sfu_backtrace(&regs, &config, pcs, MAX_DEPTH, &why);                \
    printf("raw %zu", n);                                                          \
    for (size_t i = 0; i < n; i++) printf(" 0x%llx", (unsigned long long)pcs[i]); \
    printf("\n");                                                                  \
  } while (0)

static volatile int sink;

__attribute__((noinline)) void hot(void) {
  for (int i = 0; i < 6; i++) {
    sink++;
    SAMPLE();
  }
}

__attribute__((noinline)) void cold(void) {
  for (int i = 0; i < 3; i++) {
    sink++;
    SAMPLE();
  }
}

__attribute__((noinline)) void work(void) {
  hot();
  cold();
  __asm__ volatile("" ::: "memory"); /* not a tail call */
}

/* Deeper than the profile keeps: counted with its first MAX_DEPTH frames, as cut-at-depth. */
__attribute__((noinline)) void deep(int n) {
  if (n == 0) {
    SAMPLE();
    SAMPLE();
  } else {
    deep(n - 1);
  }
  __asm__ volatile("" ::: "memory");
}

static void out_putc(void *ctx, char c) {
  (void)ctx;
  putchar(c);
}

int main(void) {
  static struct sfu_module module;
  enum sfu_error err = sfu_register_image(&module, __executable_start, etext);
  if (err != SFU_OK) {
    printf("registering the table: %s\n", sfu_error_name(err));
    return 1;
  }
  pthread_attr_t attr;
  void *lo;
  size_t size;
  pthread_getattr_np(pthread_self(), &attr);
  pthread_attr_getstack(&attr, &lo, &size);
  stack.lo = (uint64_t)(uintptr_t)lo;
  stack.hi = stack.lo + size;
  config.stacks = &stack;
  config.num_stacks = 1;
  config.abi = SFU_ABI_AMD64_LE;

  struct sfu_profile_params params = {MAX_STACKS, MAX_DEPTH, 250000, "nanoseconds"};
  err = sfu_profile_init(&profile, memory, sizeof memory, &params);
  if (err != SFU_OK) {
    printf("sfu_profile_init: %s\n", sfu_error_name(err));
    return 1;
  }
  work();
  SAMPLE();
  deep(10);
  struct sfu_sink sink = {out_putc, 0};
  sfu_profile_print(&sink, &profile);
  return 0;
}
