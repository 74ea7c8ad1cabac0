/* Crash records: a walk written into memory that survives a warm reset, handed over once at the
 * next boot, and printed as checksummed text a serial log carries intact.
 *
 * Freestanding and callable from C. Nothing here allocates or locks, and nothing is kept anywhere
 * but the caller's area: a capture needs about 0.5-0.6 KB of its caller's stack (a walk cursor,
 * the frame being written, the stacks visited) besides the walk's own steps, a print about
 * 0.6 KB (gcc -O2, all three architectures). Capture may run in a panic, an exception handler,
 * an NMI or a nested fault. The byte layout is docs/crash-record.md; a record is written in the
 * target's byte order and says which (its ABI byte), so a host reads any architecture's records.
 *
 * Life of a record (the area is memory the caller owns, usually linker/sfunwind-crash.ld's):
 *
 *   boot:   sfu_crash_take(&view, area, size)    hands over the record the last boot left, once,
 *                                                and frees the area for new captures. Call it
 *                                                early, before anything can capture.
 *   panic:  sfu_crash_capture(area, size, &info, &regs, &config)
 *                                                walks from regs and writes the record.
 *   any:    sfu_crash_print(&sink, &view)         the record as text lines (format below).
 *
 * Who wins: the FIRST capture. A capture claims the area with one atomic compare-and-swap on the
 * record's state word before it writes anything. A second capture while one is in progress (a
 * fault inside the capture, another CPU panicking at the same moment) gets
 * SFU_E_CRASH_CAPTURE_BUSY and writes nothing; one after it completed gets SFU_E_CRASH_RECORD_KEPT
 * and writes nothing: the first record, usually the cause, is kept until the next boot takes it.
 * A loser that resets the machine next should sfu_crash_wait first, or the winner's record is
 * cut short.
 * A reset in the middle of a capture leaves the state "writing": the next take refuses it as
 * SFU_E_CRASH_RECORD_TORN, never as a trace.
 *
 * The same rule as for walks holds for module memory: a capture reads the registered modules
 * (their text ranges, build-ids and names), so free a module only once no capture can be running.
 *
 * The area must be 8-byte aligned (the state word is updated with an atomic instruction, which
 * arm64 refuses on a misaligned address): SFU_E_CRASH_AREA_MISALIGNED otherwise. Records written
 * into cached memory must reach RAM before the reset: clean the area's cache lines after a
 * capture if the reset path does not. With CONFIG_SFU_CRASH_RECORDS off, capture, open and take
 * answer SFU_E_CRASH_DISABLED, sfu_crash_print prints nothing, and the code is left out (sfu_crc32
 * stays).
 */
#ifndef SFU_CRASH_H
#define SFU_CRASH_H

#include "sfu/types.h"

#include "sfu/print.h"
#include "sfu/unwind.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why the kernel captured. Any other value is the kernel's own code (use 0x100 and up). */
enum sfu_crash_reason {
  SFU_CRASH_PANIC = 1,     /* an explicit panic() */
  SFU_CRASH_EXCEPTION = 2, /* an unexpected exception or trap: detail holds its number */
  SFU_CRASH_WATCHDOG = 3,  /* a watchdog or lockup detector */
  SFU_CRASH_ASSERT = 4,    /* a failed assertion */
};

/* A reason's name as records print it: "panic", "exception", "watchdog", "assert"; "other" for
 * 0 and the kernel's own codes. */
static inline const char *sfu_crash_reason_name(uint32_t reason) {
  switch (reason) {
    case SFU_CRASH_PANIC: return "panic";
    case SFU_CRASH_EXCEPTION: return "exception";
    case SFU_CRASH_WATCHDOG: return "watchdog";
    case SFU_CRASH_ASSERT: return "assert";
    default: return "other";
  }
}

/* At most this many bytes of the message are kept (NUL included). */
#define SFU_CRASH_MESSAGE_MAX 64
/* Room for a module's build-id: every one registration accepts (sfu/symbols.h); and for its
 * name, up to this many bytes (NUL included). */
#define SFU_CRASH_BUILD_ID_MAX SFU_BUILD_ID_MAX
#define SFU_CRASH_NAME_MAX 32
/* The fixed part of a record (header and registers): an area smaller than this holds nothing. */
#define SFU_CRASH_FIXED_SIZE 400

/* What the kernel knows about the crash, besides the registers. */
struct sfu_crash_info {
  uint32_t reason;        /* enum sfu_crash_reason, or the kernel's own code */
  uint32_t detail;        /* for SFU_CRASH_EXCEPTION: x86_64 the vector, arm64 the whole ESR_ELx */
                          /* (EC and ISS: `sfu minidump` reads both), s390x the program- */
                          /* interruption code; any other reason: the kernel's own */
  uint64_t fault_address; /* the faulting data address, if there is one (else 0) */
  const char *message;    /* short text, may be NULL; truncated to SFU_CRASH_MESSAGE_MAX - 1 */
};                        /* (a NULL info records reason 0 and nothing else) */

/* Walks from regs (as sfu_walk_start does, with config) and writes one record at the start of
 * [area, area + size): the info, the registers, every frame, the stop reason, the text range,
 * name and GNU build-id of every registered module, and raw stack bytes from each stack the walk
 * visited (up to CONFIG_SFU_CRASH_STACK_BYTES in all, innermost stack first, each from the lowest
 * SP seen on that stack up, clipped to the declared stack; at most 8 stacks), read as the walk
 * reads stacks. Modules, frames and stack bytes that do not fit in `size` are left out, in that
 * order of priority, and the record says so. To record the current point, fill regs with
 * sfu_capture_here first. Bytes of the area past the record are not written.
 * Returns SFU_OK; SFU_E_CRASH_CAPTURE_BUSY or SFU_E_CRASH_RECORD_KEPT (above: nothing written);
 * SFU_E_CRASH_AREA_TOO_SMALL when not even the fixed part fits (SFU_CRASH_FIXED_SIZE),
 * SFU_E_CRASH_AREA_MISALIGNED, SFU_E_CRASH_WRONG_ARCH (config->abi is not one this build walks),
 * SFU_E_NULL_ARGUMENT (area, regs or config): all four with nothing written. */
enum sfu_error sfu_crash_capture(void *area, size_t size, const struct sfu_crash_info *info,
                                 const struct sfu_regs *regs, const struct sfu_walk_config *config);

/* For a capture that lost (SFU_E_CRASH_CAPTURE_BUSY) and would reset the machine next: a reset
 * now would cut the winner's record short. Waits, at most max_spins reads of the state word,
 * for the capture in progress to finish. SFU_OK once the record is complete;
 * SFU_E_CRASH_CAPTURE_BUSY if it is still being written after max_spins (its CPU may itself have
 * faulted: a reset then leaves a torn record, which the next boot refuses by name);
 * SFU_E_CRASH_NO_RECORD if the area holds no capture, complete or running; SFU_E_NULL_ARGUMENT,
 * SFU_E_CRASH_AREA_MISALIGNED. Reads only the state word. */
enum sfu_error sfu_crash_wait(const void *area, uint32_t max_spins);

/* A checked record: where its parts are. Fixed size, caller-owned; points into the record. */
struct sfu_crash_view {
  const uint8_t *rec;
  uint32_t length;
  uint8_t abi;        /* enum sfu_abi of the crashed image: its architecture and byte order */
  uint8_t big_endian;
  uint16_t num_frames, num_modules, num_windows;
  uint32_t regs_at, frames_at, modules_at, windows_at; /* offsets in the record */
};

/* Checks a record (magic, state, version, length, CRC-32, that every part lies inside it) and
 * fills *view. Does not write. Target builds accept their own ABI only; host builds any. Refuses
 * with SFU_E_CRASH_NO_RECORD (no magic: empty or random memory; or an area a take freed),
 * SFU_E_CRASH_RECORD_TORN (the capture never finished), SFU_E_CRASH_WRONG_ARCH,
 * SFU_E_CRASH_BAD_VERSION, SFU_E_CRASH_BAD_LENGTH (the bytes end before the record does),
 * SFU_E_CRASH_BAD_CRC, SFU_E_CRASH_BAD_LAYOUT, SFU_E_NULL_ARGUMENT, in that order of checks
 * (docs/crash-record.md). A record already taken is still a valid record here (a host reading a
 * saved copy); sfu_crash_take refuses it. Once it returns SFU_OK, the accessors below read only
 * inside [bytes, bytes + view->length). */
enum sfu_error sfu_crash_open(struct sfu_crash_view *view, const void *bytes, size_t size);

/* At boot: sfu_crash_open on the area, then marks the record taken and the area free, so the
 * record is handed over once (a second take gives SFU_E_CRASH_RECORD_TAKEN) and the next capture
 * may write. Whatever it refuses (torn, random memory, stale), it also frees the area. The view
 * stays readable until the next capture overwrites the area. The state changes only from the one
 * the checks read (one compare-and-swap): if a capture claims the area meanwhile (another CPU
 * panicking), the take writes nothing and answers SFU_E_CRASH_CAPTURE_BUSY, and of two takes at
 * once the second answers SFU_E_CRASH_RECORD_TAKEN. A take cannot tell a capture still running
 * from one a reset cut short: call it before anything can capture. Also
 * SFU_E_CRASH_AREA_MISALIGNED (nothing read or written). */
enum sfu_error sfu_crash_take(struct sfu_crash_view *view, void *area, size_t size);

/* The record's parts, read in its own byte order (a host reads any architecture's). */
struct sfu_crash_summary {
  uint32_t reason, detail;
  uint64_t fault_address;
  char message[SFU_CRASH_MESSAGE_MAX]; /* NUL-terminated */
  uint8_t stop;                        /* enum sfu_stop */
  uint8_t reliable;                    /* the trace reached the end of the stack cleanly */
  uint8_t frames_truncated;            /* the area held fewer frames than the walk gave */
  uint8_t stack_truncated;             /* a visited stack's bytes were cut short (by the area's
                                          size, the stack budget, an unreadable word, or the
                                          8-window limit) */
  uint8_t modules_truncated;           /* the area held fewer modules than were registered */
  uint8_t arm64_va_bits;               /* the walk's settings, for a host that walks again: */
  uint8_t walk_options;                /* SFU_CRASH_WALKED_* */
  uint32_t walk_frames;                /* frames the walk gave (num_frames of them recorded) */
  uint32_t max_frames;                 /* the walk's frame cap */
};

/* walk_options: the fallbacks and address rules the capturing build walked with. */
#define SFU_CRASH_WALKED_FP_FALLBACK 0x1u /* CONFIG_SFU_FP_FALLBACK */
#define SFU_CRASH_WALKED_BACK_CHAIN 0x2u  /* CONFIG_SFU_S390X_BACK_CHAIN */
#define SFU_CRASH_WALKED_ARM64_TBI 0x4u   /* CONFIG_SFU_ARM64_TBI */

struct sfu_crash_module {
  uint64_t text_start, text_end;
  const uint8_t *build_id; /* into the record; NULL when the module had none */
  uint8_t build_id_size;
  char name[SFU_CRASH_NAME_MAX]; /* NUL-terminated, truncated; "" when it had none */
};

struct sfu_crash_window {
  uint64_t addr;        /* target address of the first byte (a multiple of 8) */
  const uint8_t *bytes; /* into the record, in the target's byte order, as in its memory */
  uint32_t size;        /* a multiple of 8 */
  uint32_t kind;        /* the declared stack's kind (its low 8 bits) */
};

/* Accessors, for a view sfu_crash_open (or take) filled. (Named _get_ because C++ would take a
 * function named like its struct, sfu_crash_summary(), for a constructor-hiding shadow.)
 * Out-of-range indexes, or a NULL view or out, return 0 and leave *out alone; the void ones do
 * nothing then. */
void sfu_crash_get_summary(const struct sfu_crash_view *view, struct sfu_crash_summary *out);
void sfu_crash_get_regs(const struct sfu_crash_view *view, struct sfu_regs *out);
/* Frame i (0 <= i < num_frames): pc, sp, source, reliable, stack kind and index are set; cfa is
 * 0; module is NULL (records name modules by index: module_index gives it, or -1; may be NULL). */
int sfu_crash_get_frame(const struct sfu_crash_view *view, uint32_t i, struct sfu_frame *out,
                        int *module_index);
int sfu_crash_get_module(const struct sfu_crash_view *view, uint32_t i, struct sfu_crash_module *out);
int sfu_crash_get_window(const struct sfu_crash_view *view, uint32_t i, struct sfu_crash_window *out);

/* Prints the record as text (docs/crash-record.md):
 *   sfu-crash-begin v1 ABI len=N crc=0x...    one header line
 *   sfu-crash: ...                            the readable trace: reason, message, modules, one
 *                                             line per frame as sfu_print_frame prints it (names
 *                                             from the registered module with the same build-id
 *                                             and text range, if any), the stop line
 *   sfu-crash-data N BASE64 0xCRC             the record's bytes, 48 per line, each line with the
 *                                             CRC-32 of its own text before the checksum
 *   sfu-crash-end lines=N crc=0x...           the data line count and the record's CRC
 * Everything the record carries (message, module names) and every function name is printed
 * clean, any byte outside printable ASCII as '?': no text inside the record can start a line of
 * its own (a forged "sfu-crash-end") or send control codes to the console.
 * Every line may be preceded by whatever the console adds (a timestamp): readers look for the
 * markers inside lines. Returns the number of lines printed (0 for a NULL view). */
size_t sfu_crash_print(const struct sfu_sink *sink, const struct sfu_crash_view *view);

/* CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320, as zlib's crc32), continuing from crc
 * (0 to start). Exposed so kernels and tests use the same one. */
uint32_t sfu_crc32(uint32_t crc, const void *bytes, size_t len);

/* ---- The image's own area --------------------------------------------------------------------
 * linker/sfunwind-crash.ld reserves it (NOLOAD, SFU_CRASH_AREA_SIZE bytes) and defines these two
 * symbols. Header-only and weak on purpose: the archive itself needs no linker symbol, and an
 * image linked without the fragment still links; its calls answer SFU_E_CRASH_NO_AREA. Hidden:
 * resolved inside the image, so a position-independent image gets no relocation against them
 * (at most R_*_RELATIVE ones). The area is where the image runs: an image that moves itself
 * captures and takes with the area of the copy that runs (docs/porting.md). */
extern unsigned char __sfu_crash_start[] __attribute__((weak, visibility("hidden")));
extern unsigned char __sfu_crash_end[] __attribute__((weak, visibility("hidden")));

static inline enum sfu_error sfu_crash_capture_image(const struct sfu_crash_info *info,
                                                     const struct sfu_regs *regs,
                                                     const struct sfu_walk_config *config) {
  if (!__sfu_crash_start || !__sfu_crash_end) return SFU_E_CRASH_NO_AREA;
  return sfu_crash_capture(__sfu_crash_start, (size_t)(__sfu_crash_end - __sfu_crash_start), info,
                           regs, config);
}

static inline enum sfu_error sfu_crash_take_image(struct sfu_crash_view *view) {
  if (!__sfu_crash_start || !__sfu_crash_end) return SFU_E_CRASH_NO_AREA;
  return sfu_crash_take(view, __sfu_crash_start, (size_t)(__sfu_crash_end - __sfu_crash_start));
}

#ifdef __cplusplus
}
#endif

#endif /* SFU_CRASH_H */
