/* tinyk: a small kernel for QEMU (arm64 virt, x86_64 q35, s390x ccw) that panics on purpose and
 * prints where it was, with sfunwind. Everything here is the kernel's own; only <sfu/...> comes
 * from sfunwind. Built with -ffreestanding -nostdinc: no libc headers at all. */
#ifndef TINYK_KERNEL_H
#define TINYK_KERNEL_H

#include <sfu/unwind.h> /* uint64_t and friends come with it (sfu/types.h) */

/* Provided by arch/<arch>/. */
void console_putc(char c);
void machine_exit(int status) __attribute__((noreturn));
/* An instruction the CPU does not know: the planted fault. */
#if defined(__aarch64__)
#define BAD_INSTRUCTION() __asm__ volatile("udf #0")
#elif defined(__x86_64__)
#define BAD_INSTRUCTION() __asm__ volatile("ud2")
#elif defined(__s390x__)
#define BAD_INSTRUCTION() __asm__ volatile(".2byte 0x0000") /* opcode 0: operation exception */
#endif

/* console.c */
void console_puts(const char *s);
void console_hex(uint64_t v);

/* panic.c: prints the backtrace from the registers a trap saved, then exits QEMU. */
extern volatile int panic_expected;
void panic_with_backtrace(const char *what, const struct sfu_regs *regs,
                          const struct sfu_walk_config *config) __attribute__((noreturn));

/* main.c */
void kernel_main(void);

#endif
