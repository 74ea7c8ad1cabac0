/* The unwinder: registered tables, declared stacks, and a walk from a register set.
 *
 * Freestanding and callable from C. A walk reads memory only inside the stacks its caller
 * declares (through sfu_hook_read_nofault when the kernel defines one), writes nothing but the
 * caller's cursor and the row cache (CONFIG_SFU_ROW_CACHE: entries in the library's .bss, each
 * guarded by a sequence count, filled with one compare-and-swap or left alone), takes no locks
 * and allocates nothing: it may run in an interrupt, an NMI or a nested fault, on any CPU, while
 * another CPU registers or unregisters tables.
 */
#ifndef SFU_UNWIND_H
#define SFU_UNWIND_H

#include "sfu/types.h"

#include "sfu/sframe.h"
#include "sfu/symbols.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Tables ------------------------------------------------------------------------------- */

/* One registered table: the kernel image's own, or a loadable module's. Caller-owned storage;
 * it must stay valid while registered and until no walk can still be reading it (below).
 * Read-only for callers once registered. Its text range is table.text_start/table.text_end. */
struct sfu_module {
  struct sfu_table table;
  const char *name; /* for backtraces; may be NULL */
  /* The GNU build-id (the note's descriptor bytes, pointing into the note given), or NULL and 0
   * when build_id_error is not SFU_OK. */
  const uint8_t *build_id;
  uint32_t build_id_size;
  /* SFU_OK when usable; SFU_E_NO_SYMBOLS / SFU_E_NO_BUILD_ID when none was given;
   * SFU_E_SYMBOLS_DISABLED / SFU_E_BUILD_ID_DISABLED when the build leaves the reader out;
   * otherwise why it was refused (the module is registered and walks all the same, without it). */
  enum sfu_error symbols_error;
  enum sfu_error build_id_error;
  struct sfu_symbols symbols; /* names for backtraces, when symbols_error is SFU_OK */
  /* Private: this registration's number, which keys its rows in the row cache; 0 once
   * unregistered. Numbers wrap after 2^64 - 1 registrations: harmless, as sfu_unregister leaves
   * none of a module's rows in the cache for a later holder of its number to meet. */
  uint64_t serial;
};

/* Everything a module can bring. Only `table` is required (as for sfu_register); give NULL and
 * 0 for what the module does not have. */
struct sfu_module_desc {
  struct sfu_table_desc table; /* the .sframe section and the module's text range */
  const char *name;            /* for backtraces; may be NULL */
  const void *symbols;         /* the .sfu_symbols section `sfu gen` wrote, its size and */
  size_t symbols_size;         /* load address (function starts are relative to it); every */
  uint64_t symbols_addr;       /* function must lie in the table's text range */
  const void *build_id_note;   /* the .note.gnu.build-id section: its notes, read in the */
  size_t build_id_note_size;   /* table's byte order */
  void *index;                 /* optional: memory for the table's block index (sfu/sframe.h), */
  size_t index_size;           /* 8-byte aligned, sfu_index_size(&table) bytes; NULL and 0: none */
};

/* Registers the module as sfu_register does: the table's error decides, and on any error the
 * module is not registered. With index memory, builds the table's block index into it first
 * (sfu_table_index; SFU_E_BAD_INDEX_MEMORY if it is too small or misaligned): a walk's lookup in
 * the module then reads one bucket of the index, or searches one block's functions where the
 * bucket cannot say. Then, before it is published, validates the symbol table
 * (sfu_symbols_init, against the table's text range) and finds the build-id
 * (sfu_build_id_from_note): a refusal of either is recorded in symbols_error or build_id_error
 * and does not stop the registration. Call from normal context. */
enum sfu_error sfu_register_module(struct sfu_module *module, const struct sfu_module_desc *desc);

/* The table-only form of sfu_register_module (no symbols, no build-id).
 * Validates the table (as sfu_table_init does) and publishes it to walks on every CPU.
 * desc->text_end must be set: a walk picks the table whose text holds the PC. Refuses with
 * SFU_E_NO_TEXT_RANGE, SFU_E_TEXT_OVERLAP (another registered table covers some of that text),
 * SFU_E_REGISTRY_FULL (CONFIG_SFU_MAX_MODULES tables already), or any decoder error.
 * Call from normal context. Registrations on several CPUs at once are safe (each claims its own
 * slot; of two whose text overlaps, at least one is refused), and a registration reads no other
 * registered module (the registry keeps each one's text range), so a module may be freed by the
 * rule below while another CPU registers. */
enum sfu_error sfu_register(struct sfu_module *module, const struct sfu_table_desc *desc,
                            const char *name);

/* Withdraws a table: no walk that starts after this returns will use it, nor be served its rows
 * from the row cache (it empties the module's entries: a scan of CONFIG_SFU_ROW_CACHE entries,
 * no wait). A walk already running on another CPU may still read it, so free the module's memory
 * only after every such walk has ended (for example after the kernel's RCU grace period or an
 * IPI round to all CPUs). Returns SFU_E_NOT_REGISTERED if the module is not registered. */
enum sfu_error sfu_unregister(struct sfu_module *module);

/* The registered module whose text holds pc, or NULL. Lock-free; safe in any context. */
const struct sfu_module *sfu_module_for_pc(uint64_t pc);

/* ---- Stacks ------------------------------------------------------------------------------- */

enum sfu_stack_kind {
  SFU_STACK_TASK = 0,
  SFU_STACK_IRQ = 1,
  SFU_STACK_EXCEPTION = 2,
  SFU_STACK_OTHER = 3,
};

/* A stack a walk may read: bytes [lo, hi). */
struct sfu_stack {
  uint64_t lo, hi;
  uint32_t kind; /* enum sfu_stack_kind, reported in each frame */
};

/* The kernel's no-fault copy, if it has one: copy len bytes from src to dst, return 0 on
 * success, non-zero if the memory could not be read. Declared weak: when the kernel does not
 * define it, the walker reads declared stack memory directly. And hidden: the linker resolves it
 * inside the image, to the kernel's definition or to 0, so a position-independent image (ld -pie,
 * -static-pie) gets at most an R_*_RELATIVE relocation for it, never a GLOB_DAT or JUMP_SLOT
 * against the symbol, which an image that relocates itself has no dynamic linker to resolve. A
 * definition needs no attribute: the library's hidden reference makes the linked symbol hidden. */
int sfu_hook_read_nofault(void *dst, uint64_t src, size_t len) __attribute__((weak, visibility("hidden")));

/* ---- Registers ---------------------------------------------------------------------------- */

/* The registers a walk starts from, by DWARF number, filled from the trap frame. Set a bit in
 * `valid` for each register you fill. The SP must be given (a walk without it is a bad start);
 * give FP and, on arm64/s390x, the return-address register too, since leaf functions rely on them.
 *   x86_64: r[0..15] rax rdx rcx rbx rsi rdi rbp rsp r8..r15 (rbp 6, rsp 7)
 *   arm64:  r[0..30] x0..x30 (x29 FP, x30 LR), r[31] sp
 *   s390x:  r[0..15] r0..r15 (r11 FP, r14 RA, r15 SP), r[16..31] f0 f2 f4 f6 f1 f3 f5 f7
 *           f8 f10 f12 f14 f9 f11 f13 f15 (raw 64-bit contents) */
#define SFU_REGS_MAX 32
struct sfu_regs {
  uint64_t pc;
  uint64_t r[SFU_REGS_MAX];
  uint32_t valid; /* bit n: r[n] holds a value */
};

/* Fills *regs with the caller's registers at the point it returns to (assembly, per
 * architecture), so a walk can start from the current function: its first frame is the caller.
 * Only registers a function keeps across calls (and SP, FP) are captured. */
void sfu_capture_here(struct sfu_regs *regs);

/* DWARF numbers the API names. */
#define SFU_X86_64_RBP 6
#define SFU_X86_64_RSP 7
#define SFU_ARM64_FP 29
#define SFU_ARM64_LR 30
#define SFU_ARM64_SP 31
#define SFU_S390X_FP 11
#define SFU_S390X_RA 14
#define SFU_S390X_SP 15

/* ---- Trap frames -------------------------------------------------------------------------- */

/* A kernel's interrupt/exception entry code saves the interrupted registers, then calls C. A walk
 * that reaches a return address inside [start, end) of such code (its call to C) reads the saved
 * registers and goes on in the interrupted context: that frame is reported with source SFU_SOURCE_TRAP_FRAME, its PC is looked
 * up as is (it was interrupted, not calling), and it may keep RA/FP in registers like a topmost
 * frame. Offsets count from the entry frame's SP, the SP the entry code had when it called C.
 * A frame stopped inside the entry code instead (the start registers, or an interrupted context
 * another trap frame restores: an NMI over the entry) is stepped by the code's own rows, as any
 * code is: its frame may not be built yet, or be popped already, where the layout would read it.
 * Entry code whose CFI marks it outermost ends such a walk there (docs/errors.md). */
struct sfu_trap_layout {
  int32_t pc;                /* offset of the saved PC */
  int32_t reg[SFU_REGS_MAX]; /* offset of each saved register, by DWARF number */
  uint32_t saved;            /* bit n: reg[n] was saved; the SP must be */
};

struct sfu_trap_entry {
  uint64_t start, end; /* the entry code */
  const struct sfu_trap_layout *layout;
};

/* ---- Walking ------------------------------------------------------------------------------ */

/* Why a walk stopped. One line each; sfu_stop_name gives the short name. */
#define SFU_STOPS(X)                                                                          \
  X(SFU_STOP_NONE, "not-stopped")                      /* the walk can go on */               \
  X(SFU_STOP_END, "end-of-stack")                      /* clean: outermost row; RA 0, or    */ \
                                                       /* FP/back chain 0 (fallback), at a  */ \
                                                       /* stack's top (docs/errors.md); or  */ \
                                                       /* after a frame in no known text    */ \
                                                       /* (shown, unreliable)               */ \
  X(SFU_STOP_BAD_START, "bad-start")                   /* no SP, SP in no stack, unknown ABI, */ \
                                                       /* arm64_va_bits not 0 or 36..52     */ \
  X(SFU_STOP_NO_UNWIND_INFO, "no-unwind-info")         /* known text, no row, no fallback */  \
                                                       /* (or FP/back chain 0 away from a   */ \
                                                       /* stack's top: no frame to follow)  */ \
  X(SFU_STOP_TABLE_ERROR, "table-error")               /* the row could not be decoded */     \
  X(SFU_STOP_CFA_OUTSIDE_STACK, "cfa-outside-stacks")  /* CFA in no declared stack */         \
  X(SFU_STOP_WRONG_DIRECTION, "stack-going-wrong-way") /* CFA did not rise */                 \
  X(SFU_STOP_STACK_ORDER, "stack-switch-backwards")    /* to a stack declared earlier */      \
  X(SFU_STOP_REPEATED_FRAME, "repeated-frame")         /* same PC and CFA as the last frame */ \
  X(SFU_STOP_FRAME_CAP, "frame-cap-reached")           /* max_frames frames given */          \
  X(SFU_STOP_READ_REFUSED, "read-refused")             /* outside the stacks, or hook said no */ \
  X(SFU_STOP_RA_NOT_RECOVERABLE, "ra-not-recoverable") /* a register rule below the top */    \
  X(SFU_STOP_REGISTER_UNKNOWN, "register-unknown")     /* rule needs a register not known */ \
  X(SFU_STOP_ZERO_RETURN_ADDRESS, "zero-return-address") /* RA 0 away from a stack's top: */ \
                                                       /* a saved RA was overwritten (any   */ \
                                                       /* step: row, frame record, chain)   */

enum sfu_stop {
#define SFU_STOP_ENUM(name, text) name,
  SFU_STOPS(SFU_STOP_ENUM)
#undef SFU_STOP_ENUM
  SFU_STOP_COUNT
};

const char *sfu_stop_name(enum sfu_stop stop);

/* How a frame was found. */
enum sfu_frame_source {
  SFU_SOURCE_REGISTERS = 0, /* the start registers themselves */
  SFU_SOURCE_TABLE,         /* an SFrame row (for the caller of a frame at PC 0: the rule */
                            /* of a function's first instruction, below) */
  SFU_SOURCE_FRAME_POINTER, /* a frame-record step where no row covers the PC: unreliable */
  SFU_SOURCE_BACK_CHAIN,    /* an s390x back-chain step where no row covers the PC: unreliable */
  SFU_SOURCE_TRAP_FRAME,    /* the interrupted context, from registers saved by entry code */
  SFU_SOURCE_SIGNAL_FRAME,  /* the context a V3 signal-trampoline row restores: interrupted, */
                            /* not calling, so its pc is where it stopped */
};

struct sfu_frame {
  uint64_t pc;  /* the return address (or the start PC for frame 0) */
  uint64_t sp;  /* the frame's stack pointer */
  uint64_t cfa; /* the CFA its caller's rules were computed from (0 for frame 0) */
  const struct sfu_module *module; /* whose text holds sfu_frame_lookup_pc (pc - 1 for a */
                                   /* return address), or NULL */
  uint8_t source;                  /* enum sfu_frame_source */
  uint8_t reliable;                /* 0 once any frame so far came from a fallback, or */
                                   /* its pc is in no registered text (the last frame, */
                                   /* unless a topmost frame at pc 0: below) */
  uint8_t stack_kind;              /* kind of the stack sp is on */
  uint8_t index;                   /* 0 for the first frame (saturates at 255) */
};

/* Where a frame's function and line are looked up: a return address ([table], [fp],
 * [backchain]) at pc - 1, inside its call (a call to a function that never returns can be its
 * caller's last instruction); a pc where the CPU stopped ([regs], [trap], [signal]) as it is. */
static inline uint64_t sfu_frame_lookup_pc(const struct sfu_frame *frame) {
  int stopped = frame->source == SFU_SOURCE_REGISTERS || frame->source == SFU_SOURCE_TRAP_FRAME ||
                frame->source == SFU_SOURCE_SIGNAL_FRAME;
  return stopped ? frame->pc : frame->pc - 1;
}

struct sfu_walk_config {
  const struct sfu_stack *stacks; /* the stacks, innermost first: a walk may move only to a */
  uint32_t num_stacks;            /* stack declared later (exception -> IRQ -> task) */
  uint32_t max_frames;            /* 0: CONFIG_SFU_MAX_FRAMES */
  const struct sfu_trap_entry *traps; /* the kernel's entry code, if a walk may cross it */
  uint32_t num_traps;
  uint8_t abi;                    /* SFU_ABI_*; target builds: 0 (their own) */
  uint8_t arm64_va_bits;          /* 0: CONFIG_SFU_ARM64_VA_BITS; else 36..52 (bad-start) */
};

/* Caller-owned walk state. Fixed size; its fields are private. It keeps no copy of the start
 * registers or of the configuration: they are read where the caller keeps them (below), and the
 * registers an entry frame saved are read from the stack when a rule needs one. */
struct sfu_cursor {
  const struct sfu_walk_config *config; /* the caller's */
  const struct sfu_regs *start;         /* the start registers, the caller's */
  const struct sfu_trap_layout *trap;   /* the last entry frame crossed, or NULL */
  uint64_t trap_sp;                     /* that entry frame's SP */
  uint64_t scanned_to;                  /* the stack scanned for buckets to prefetch, to here */
  uint64_t pc, sp, fp;                  /* the current frame's; fp only if fp_known */
  uint64_t prev_cfa;
  const struct sfu_module *module; /* the table for the current PC's lookup, or NULL */
  uint32_t max_frames;             /* config's, its defaults applied */
  int32_t stack_index;             /* stack of the current SP */
  uint32_t frames;                 /* frames given so far */
  uint8_t abi, arm64_va_bits;      /* config's, its defaults applied */
  uint8_t stop;                    /* enum sfu_stop */
  uint8_t topmost;                 /* the current frame may keep RA/FP in registers */
  uint8_t exact_pc;                /* look the current PC up as is, not PC - 1 */
  uint8_t reliable;
  uint8_t last_source;             /* enum sfu_frame_source of the current frame */
  uint8_t fp_known;
};

/* Prepares a walk from the given registers and configuration. Neither is copied: keep *regs and
 * *config (and the stacks and traps it names) unchanged until the walk ends. The first
 * sfu_walk_next gives the frame of the registers themselves; each later one, the caller of the
 * last.
 *
 * A call through a NULL function pointer: a topmost frame (these registers, or an interrupted
 * context a trap frame restores) whose pc is 0 and in no registered text (on s390x also 2, 4 or 6:
 * an old PSW just past the instruction at 0, as a trap frame saves it) is given, unreliable,
 * and the walk goes on from the return address the call left, by the rule of a function's first
 * instruction: x86_64 the word at SP (the caller's SP 8 above it), arm64 x30, s390x r14 (SP
 * unchanged). Give x30/r14 in the registers or the trap layout, or the walk stops there with
 * SFU_STOP_REGISTER_UNKNOWN. Every frame from the PC-0 frame on is unreliable (a jump through
 * NULL leaves no return address of its own: the rule then finds the caller's caller), so such a
 * trace never ends reliably. docs/errors.md lists every way a walk does end reliably. */
void sfu_walk_start(struct sfu_cursor *cursor, const struct sfu_regs *regs,
                    const struct sfu_walk_config *config);

/* Fills *frame and returns 1, or returns 0 when the walk has stopped: sfu_walk_stop says why. */
int sfu_walk_next(struct sfu_cursor *cursor, struct sfu_frame *frame);

enum sfu_stop sfu_walk_stop(const struct sfu_cursor *cursor);

/* Convenience: walks and stores up to max PCs. Returns how many; *why gets the stop reason
 * (SFU_STOP_NONE if the array filled first). */
size_t sfu_backtrace(const struct sfu_regs *regs, const struct sfu_walk_config *config,
                     uint64_t *pcs, size_t max, enum sfu_stop *why);

/* The row cache's counts since boot, for sizing CONFIG_SFU_ROW_CACHE: steps whose row it served
 * (*hits) and steps that searched the table for one (*misses), over every CPU. Returns 1 with
 * CONFIG_SFU_ROW_CACHE_STATS, else 0 and both 0. Counts are relaxed atomic adds: a read while
 * walks run may miss the latest. Either pointer may be NULL. */
int sfu_row_cache_counts(uint64_t *hits, uint64_t *misses);

#ifdef __cplusplus
}
#endif

#endif /* SFU_UNWIND_H */
