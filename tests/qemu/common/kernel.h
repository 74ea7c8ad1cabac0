/* The test kernels' shared half (tests/qemu/common/) and what each architecture provides
 * (tests/qemu/<arch>/). Freestanding C, built with the target flags of build/<arch>/libsfu.a.
 * Serial protocol the host runner (tests/qemu/run.py) reads: tests/qemu/README.md. */
#ifndef SFU_QEMU_KERNEL_H
#define SFU_QEMU_KERNEL_H

#include <stdint.h>

#include "sfu/print.h"
#include "sfu/unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Each architecture provides ---------------------------------------------------------- */

/* One character to the serial console (16550, PL011, SCLP), polled: safe in any context. */
void arch_putc(char c);

/* Ends the QEMU run; failed is non-zero if anything failed. The runner never reads QEMU's exit
 * status (x86's debug-exit device makes it (v << 1) | 1 anyway): it judges by the sfu-done line
 * kernel_done prints first. */
__attribute__((noreturn)) void arch_exit(int failed);

/* Resets the whole machine, warm: RAM outside the image's loaded segments keeps its contents
 * (the crash scenario's record and boot count; tests/qemu/README.md, "Crash records"). The image
 * then boots again from its entry point. Returns only if no reset came. */
void arch_reset(void);

/* This kernel's walk configuration: its stacks (innermost first: exception/IST, interrupt,
 * boot/task) and its trap entries (the entry code and where it saves registers). */
void arch_walk_config(struct sfu_walk_config *config);

/* The code the table covers: symbols from the architecture's linker script. */
extern char _stext[], _etext[];

/* ---- Common ------------------------------------------------------------------------------ */

/* The console as an sfu_sink, and plain output through it. */
extern const struct sfu_sink console;
void kputs(const char *s);
void kput_hex(uint64_t v);
void kput_dec(uint64_t v);

/* Registers the image's table (from the linker fragment) for [_stext, _etext), with its names
 * and build-id. Prints the error and ends the run (failed) if the table is refused; prints an
 * sfu-error line (the run fails) if the names or the build-id are. Call once, early. */
void kernel_register_table(void);

/* A checked trace: prints
 *   sfu-trace NAME
 *   sfu-expect EXPECT
 *   <sfu_print_backtrace lines from regs>
 *   sfu-end
 * EXPECT names the functions frame by frame, innermost first, space-separated, then " | " and
 * the stop reason: "fault_ud2 chain_6 chain_5 ... kernel_main _start | end-of-stack". The runner
 * symbolizes each frame (a return address as the call before it) and compares. */
void kernel_trace(const char *name, const char *expect, const struct sfu_regs *regs);

/* The same, named PREFIX<n> ("2-sampling/" and 17 give "2-sampling/17"): sampled and stepped
 * traces, one per event. */
void kernel_trace_numbered(const char *prefix, uint64_t n, const char *expect, const struct sfu_regs *regs);

/* A scenario the kernel checks itself: prints "sfu-count NAME OK TOTAL" (OK of TOTAL correct). */
void kernel_count(const char *name, uint64_t ok, uint64_t total);

/* The registers entry code saved, read from its frame (offsets from `base`) through the layout
 * arch_walk_config gives for crossing that code: a trace's start and a crossing of the same
 * frame read the same slots. */
void kernel_regs_from_layout(const void *base, const struct sfu_trap_layout *layout,
                             struct sfu_regs *regs);

/* Ends the run: prints "sfu-done FAILED" (FAILED = on-device failures, usually 0) and exits. */
__attribute__((noreturn)) void kernel_done(int failed);

/* Scenario 1's chain: chain_1 calls chain_2 ... chain_6 calls fault(), none inlined, none a
 * tail call, so each leaves a frame and a return address. run_chain itself jumps to chain_1 (a
 * tail call at -O2): it leaves no frame. */
void run_chain(void (*fault)(void));

/* The frames run_chain leaves under the function it calls, innermost first, for expectations. */
#define RUN_CHAIN_FRAMES "chain_6 chain_5 chain_4 chain_3 chain_2 chain_1"

#ifdef __cplusplus
}
#endif

#endif /* SFU_QEMU_KERNEL_H */
