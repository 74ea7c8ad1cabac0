/* Output: a tiny formatter writing through the caller's character sink, and backtrace lines.
 *
 * Freestanding and callable from C. Nothing here allocates, locks or buffers: every character
 * goes straight to sink->putc, in order, from the calling context (so a sink that is safe in an
 * NMI makes printing safe in an NMI). A NULL sink, or a sink whose putc is NULL, prints nothing.
 *
 * A backtrace (sfu_print_backtrace) is one line per frame, a module line before the first frame
 * of each module, then one stop line:
 *
 *   module 0 vmlinux 0x0000000000100000-0x0000000000180000 build-id 5b3f0c...
 *    #0     0x0000000000100800  sp 0x0000000000007ef0  task   [regs]       vmlinux  do_fault+0x10/0x48
 *    #1   ? 0x0000000000100120  sp 0x0000000000007f10  task   [fp]         vmlinux  main_loop+0x2c/0x90
 *   module 1 ext4 0x0000000000300000-0x0000000000340000 no build-id
 *    #2   ? 0x0000000000300030  sp 0x0000000000007fb0  task   [table]      ext4
 *   stop: end-of-stack (unreliable)
 *
 * Module line: "module " N " " name " " text_start "-" text_end " build-id " hex, or " no build-id"
 * when the module has none (build_id_error not SFU_OK). N counts this trace's modules from 0;
 * name as the frame lines print it ("(unnamed)" without one; any byte that is not printable
 * ASCII as '?'); text_start and text_end the module's registered text range, "0x" + 16 lowercase
 * hex digits; the build-id bytes as lowercase hex. It says where the module's text ran and which
 * build it was, so a host naming the frames of an image that runs away from its link address
 * (relocated firmware, KASLR, a position-independent image) finds the image by its build-id and
 * the load bias (run-time text start minus link-time text start) from the range: `sfu symbolize
 * --image ELF` reads it. A crash record's printed trace has the same lines (sfu/crash.h). Each
 * module's line comes once per trace (a fifth module seen after four others may repeat one).
 *
 * Frame line, field by field (sfu_print_frame prints one, '\n' included):
 *   " #" index      decimal, left-aligned, padded to 3 digits (wider indexes push the line right)
 *   " ? " / "   "   '?' when frame->reliable is 0: it or an earlier frame of the trace came
 *                   from a fallback step (frame pointer, back chain), or its pc is in no
 *                   registered text (then it is the last frame, but for a [regs] or [trap]
 *                   frame at pc 0, a call through a NULL pointer, whose callers follow, all
 *                   '?': sfu/unwind.h, sfu_walk_start); Linux marks guesses so too
 *   pc              "0x" + 16 lowercase hex digits: the return address (frame 0: the start PC)
 *   "  sp " sp      the same, the frame's stack pointer
 *   "  " kind       the stack sp is on, padded to 5: task, irq, exc, other
 *   "  [" source "]" how the frame was found, padded to 11 with the brackets:
 *                   regs (the start registers), table (an SFrame row), fp (frame-record step),
 *                   backchain (s390x back-chain step), trap (registers saved by entry code),
 *                   signal (the context a V3 signal-trampoline row restores)
 *   "  " module     the name of the registered table whose text holds pc, up to
 *                   SFU_PRINT_STR_MAX bytes; "-" when none holds it, "(unnamed)" when it was
 *                   registered without a name
 *   "  " symbol     only when the module has symbols (symbols_error SFU_OK) and one of its
 *                   functions covers the lookup address, and CONFIG_SFU_SYMBOLS is on:
 *                   name "+" offset "/" size, both "0x" + lowercase hex without padding. The
 *                   lookup address is pc for [regs], [trap] and [signal] frames, pc - 1 for
 *                   the others
 *                   (a return address: the call before it, which may be its caller's last
 *                   instruction when the callee never returns); the offset is always pc's, so
 *                   it may equal the size ("f+0x10/0x10"), as Linux's %pB prints
 * Fields are separated by fixed spaces, so the columns line up; no line ends in a space.
 * Names (module and function, here and in the module line) are printed clean: any byte that is
 * not printable ASCII (0x20-0x7e) as '?'. A name holding CR, LF or ESC can neither start a line
 * of its own in the log (a forged "stop:" line, or a forged "sfu-crash-end" inside a printed crash
 * record) nor send control codes to the console; every line ends at the '\n' printed after it.
 *
 * Stop line: "stop: " + sfu_stop_name(reason) + " (reliable)" or " (unreliable)" (without the
 * names, CONFIG_SFU_NAMES=n, the code sfu_stop_name returns, "S1", printed from the number). A trace is
 * reliable only when it reached the end of the stack (SFU_STOP_END) with at least one frame and
 * no frame marked unreliable: docs/errors.md, "How a walk ends reliably", lists each way, all
 * decided at the top of a declared stack or by an outermost row. A walk cut short by the frame
 * cap or by any guard is unreliable, whatever its frames were.
 *
 */
#ifndef SFU_PRINT_H
#define SFU_PRINT_H

#include "sfu/types.h"

#include "sfu/unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where printed characters go: putc(ctx, c) once per character. Call it through the pointer in
 * parentheses, (sink->putc)(sink->ctx, c), where a libc may define putc as a macro. */
struct sfu_sink {
  void (*putc)(void *ctx, char c);
  void *ctx;
};

/* The characters of str up to its NUL, at most SFU_PRINT_STR_MAX of them; "(null)" for NULL. */
#define SFU_PRINT_STR_MAX 4096
void sfu_print_str(const struct sfu_sink *sink, const char *str);

/* "0x" and the value in lowercase hex, zero-padded to at least min_digits digits (at most 16
 * count: a larger min_digits is taken as 16). 0 with min_digits 0 prints "0x0". */
void sfu_print_hex(const struct sfu_sink *sink, uint64_t value, unsigned min_digits);

/* Decimal, with '-' for negative values; the whole int64_t range, INT64_MIN included. */
void sfu_print_dec(const struct sfu_sink *sink, int64_t value);

/* Unsigned decimal, 0 to 18446744073709551615. */
void sfu_print_udec(const struct sfu_sink *sink, uint64_t value);

/* What sfu_error_name returns for err: its name, or, in a core built without the names
 * (CONFIG_SFU_NAMES=n), its code ("E5"; "E?" past the list), printed from the number: a kernel
 * that reports errors this way links no table of names or codes. */
void sfu_print_error(const struct sfu_sink *sink, enum sfu_error err);

/* One frame's line (format above), ending in '\n'; its index is frame->index (which saturates at
 * 255: sfu_print_backtrace counts frames itself). Prints nothing for a NULL frame. */
void sfu_print_frame(const struct sfu_sink *sink, const struct sfu_frame *frame);

/* The symbol column on its own: prints "name+0xoff/0xsize" for pc, from the function of the
 * module's symbols covering lookup_pc (pc, or pc - 1 for a return address), and returns 1; prints
 * nothing and returns 0 when the module is NULL, has no usable symbols, or none covers lookup_pc.
 * No buffer: the name is decoded straight into the sink, clean as the frame line prints it
 * (sfu_symbol_print_name, sfu/symbols.h, prints the bytes as stored). */
int sfu_print_symbol(const struct sfu_sink *sink, const struct sfu_module *module, uint64_t lookup_pc,
                     uint64_t pc);

/* Walks from regs (sfu_walk_start, then the steps sfu_walk_next takes, on a cursor of its own on
 * this stack: 192-296 bytes of frame with it, 0.5-1.2 KB with the walk's steps, bench/results.md)
 * and prints every frame, then the stop line. Returns the number of frames, which is also what it
 * returns when the sink prints nothing. */
size_t sfu_print_backtrace(const struct sfu_sink *sink, const struct sfu_regs *regs,
                           const struct sfu_walk_config *config);

#ifdef __cplusplus
}
#endif

#endif /* SFU_PRINT_H */
