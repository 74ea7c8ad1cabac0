/* SFrame table decoder: validate an .sframe section once, then look up rows by PC.
 *
 * Freestanding and callable from C. The decoder works in place on the section bytes: it never
 * copies, allocates or reads a byte outside the section, and reads every multi-byte field one
 * byte at a time, so a table may sit at any alignment and in either byte order.
 *
 * Failure contract: every function returns an sfu_error; SFU_OK is the only success.
 * On failure the output arguments are unspecified and must not be used.
 */
#ifndef SFU_SFRAME_H
#define SFU_SFRAME_H

#include "sfu/types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every reason the decoder can give, with the name sfu_error_name() returns.
 * One line each; docs/errors.md says when each is raised and which test proves it. */
#define SFU_ERRORS(X)                                                                         \
  X(SFU_OK, "ok")                                                                             \
  X(SFU_E_EMPTY, "empty-section")                     /* zero bytes: there is no table */     \
  X(SFU_E_NULL_ARGUMENT, "null-argument")             /* a required pointer was NULL */       \
  X(SFU_E_SECTION_TOO_LARGE, "section-too-large")     /* 2 GiB or more */                     \
  X(SFU_E_TRUNCATED_HEADER, "truncated-header")       /* fewer than 28 bytes */               \
  X(SFU_E_BAD_MAGIC, "bad-magic")                     /* neither 0xdee2 nor 0xe2de */         \
  X(SFU_E_BAD_VERSION, "bad-version")                 /* not 1, 2 or 3 */                     \
  X(SFU_E_VERSION_DISABLED, "version-disabled")       /* known, but off in Kconfig */         \
  X(SFU_E_UNKNOWN_FLAGS, "unknown-flags")             /* a flag bit this version lacks */     \
  X(SFU_E_BAD_ABI, "bad-abi")                         /* unknown ABI/arch byte */             \
  X(SFU_E_ABI_BYTE_ORDER, "abi-byte-order-mismatch")  /* e.g. AMD64 table stored big-endian */ \
  X(SFU_E_ABI_MISMATCH, "abi-mismatch")               /* not the ABI the caller wants */      \
  X(SFU_E_BAD_FIXED_RA_OFFSET, "bad-fixed-ra-offset") /* AMD64 needs one, others must not */  \
  X(SFU_E_AUXHDR_OUT_OF_BOUNDS, "auxhdr-out-of-bounds")                                       \
  X(SFU_E_FDES_OUT_OF_BOUNDS, "fde-subsection-out-of-bounds")                                 \
  X(SFU_E_FRES_OUT_OF_BOUNDS, "fre-subsection-out-of-bounds")                                 \
  X(SFU_E_SUBSECTIONS_OVERLAP, "subsections-overlap")                                         \
  X(SFU_E_ATTR_OUT_OF_BOUNDS, "fde-attributes-out-of-bounds") /* V3 record past FRE data */  \
  X(SFU_E_BAD_FDE_INFO, "bad-fde-info")               /* reserved FDE info bits set */        \
  X(SFU_E_BAD_FRE_TYPE, "bad-fre-type")               /* FRE address width not 1/2/4 */       \
  X(SFU_E_BAD_FDE_TYPE, "bad-fde-type")               /* V3 FDE type not default/flex */      \
  X(SFU_E_PCMASK_ZERO_REP, "pcmask-zero-repeat-size")                                         \
  X(SFU_E_FUNCTION_OUTSIDE_TEXT, "function-outside-text") /* or its range wraps */            \
  X(SFU_E_FDES_NOT_SORTED, "fdes-not-sorted")         /* sorted flag set, starts not rising */ \
  X(SFU_E_FUNCTIONS_OVERLAP, "functions-overlap")                                             \
  X(SFU_E_FRE_OUT_OF_BOUNDS, "fre-out-of-bounds")     /* a row runs past the FRE data */      \
  X(SFU_E_BAD_OFFSET_SIZE, "bad-offset-size")         /* data word size code 3 */             \
  X(SFU_E_BAD_WORD_COUNT, "bad-data-word-count")      /* too many/few words for ABI, type */  \
  X(SFU_E_FRE_START_NOT_RISING, "fre-start-not-rising")                                       \
  X(SFU_E_FRE_START_OUTSIDE_FUNCTION, "fre-start-outside-function")                           \
  X(SFU_E_BAD_FLEX_RULE, "bad-flex-rule")             /* malformed V3 flexible rule */        \
  X(SFU_E_BAD_REGISTER, "bad-register-number")        /* register number above 255 */         \
  X(SFU_E_CFA_OFFSET_RANGE, "cfa-offset-out-of-range") /* s390x: decoded offset over 32 bits */ \
  X(SFU_E_FRE_COUNT_MISMATCH, "fre-count-mismatch")   /* FDE row counts != header count */    \
  X(SFU_E_FRE_LENGTH_MISMATCH, "fre-length-mismatch") /* rows do not fill fre_len exactly */  \
  X(SFU_E_NOT_INITIALIZED, "table-not-initialized")   /* lookup on a table init refused */    \
  X(SFU_E_NO_FUNCTION, "no-function-for-pc")          /* no FDE covers the PC */              \
  X(SFU_E_NO_ROW, "no-row-for-pc")                    /* FDE found, PC before its first row */ \
  X(SFU_E_NO_TEXT_RANGE, "no-text-range")             /* sfu_register needs text_end */        \
  X(SFU_E_TEXT_OVERLAP, "text-overlap")               /* text already has a registered table */ \
  X(SFU_E_REGISTRY_FULL, "registry-full")             /* CONFIG_SFU_MAX_MODULES reached */      \
  X(SFU_E_NOT_REGISTERED, "not-registered")           /* sfu_unregister of an unknown module */ \
  X(SFU_E_NO_SYMBOLS, "no-symbol-table")              /* none given, or a reservation unfilled */ \
  X(SFU_E_SYMBOLS_DISABLED, "symbols-disabled")       /* CONFIG_SFU_SYMBOLS is off */          \
  X(SFU_E_SYMBOLS_BAD_MAGIC, "bad-symbols-magic")                                              \
  X(SFU_E_SYMBOLS_BAD_VERSION, "bad-symbols-version")                                          \
  X(SFU_E_SYMBOLS_UNKNOWN_FLAGS, "unknown-symbols-flags")                                      \
  X(SFU_E_SYMBOLS_TRUNCATED, "symbols-truncated")     /* a part runs past the section */       \
  X(SFU_E_SYMBOL_BAD_TOKEN, "bad-symbol-token")       /* built from itself or a later token */ \
  X(SFU_E_SYMBOLS_NOT_SORTED, "symbols-not-sorted")   /* starts not strictly rising */         \
  X(SFU_E_SYMBOLS_OVERLAP, "symbols-overlap")         /* a function runs into the next */      \
  X(SFU_E_SYMBOL_OUTSIDE_TEXT, "symbol-outside-text") /* or its range wraps */                 \
  X(SFU_E_SYMBOL_BAD_NAME_OFFSET, "bad-symbol-name-offset") /* names not in order, or gaps */  \
  X(SFU_E_SYMBOL_BAD_NAME, "bad-symbol-name")         /* empty, or a NUL character */          \
  X(SFU_E_SYMBOL_NAME_TOO_LONG, "symbol-name-too-long") /* over SFU_SYMBOL_NAME_MAX */         \
  X(SFU_E_SYMBOL_TOKENS_TOO_DEEP, "symbol-tokens-too-deep") /* over SFU_SYMBOL_TOKEN_DEPTH */  \
  X(SFU_E_NO_SYMBOL, "no-symbol-for-pc")              /* no function of the table covers it */ \
  X(SFU_E_NO_BUILD_ID, "no-build-id")                 /* none given */                         \
  X(SFU_E_BUILD_ID_TRUNCATED, "build-id-note-truncated") /* a note runs past the section */    \
  X(SFU_E_NOT_A_BUILD_ID, "not-a-gnu-build-id")       /* no note named GNU of type 3 */        \
  X(SFU_E_BAD_BUILD_ID_SIZE, "bad-build-id-size")     /* descriptor of 0 or > 64 bytes */ \
  X(SFU_E_CRASH_DISABLED, "crash-records-disabled")   /* CONFIG_SFU_CRASH_RECORDS is off */    \
  X(SFU_E_CRASH_NO_AREA, "crash-no-area")             /* image linked without the fragment */ \
  X(SFU_E_CRASH_AREA_MISALIGNED, "crash-area-misaligned") /* not 8-byte aligned */            \
  X(SFU_E_CRASH_AREA_TOO_SMALL, "crash-area-too-small") /* under SFU_CRASH_FIXED_SIZE */      \
  X(SFU_E_CRASH_CAPTURE_BUSY, "crash-capture-busy")   /* another capture is writing */         \
  X(SFU_E_CRASH_RECORD_KEPT, "crash-record-kept")     /* a complete record waits for take */   \
  X(SFU_E_CRASH_NO_RECORD, "crash-no-record")         /* no magic, or a freed area */          \
  X(SFU_E_CRASH_RECORD_TORN, "crash-record-torn")     /* the capture never finished */         \
  X(SFU_E_CRASH_RECORD_TAKEN, "crash-record-taken")   /* handed over already */                \
  X(SFU_E_CRASH_WRONG_ARCH, "crash-wrong-arch")       /* an ABI this build does not read */    \
  X(SFU_E_CRASH_BAD_VERSION, "crash-bad-version")     /* record format not 1 */                \
  X(SFU_E_CRASH_BAD_LENGTH, "crash-bad-length")       /* the bytes end before the record */    \
  X(SFU_E_CRASH_BAD_CRC, "crash-bad-crc")             /* contents differ from the checksum */  \
  X(SFU_E_CRASH_BAD_LAYOUT, "crash-bad-layout")       /* a part out of place or malformed */ \
  X(SFU_E_TOO_MANY_ROWS, "function-rows-over-limit")  /* over CONFIG_SFU_MAX_FUNCTION_ROWS */ \
  X(SFU_E_UNSORTED_TOO_LARGE, "unsorted-table-too-large") /* unsorted, over CONFIG_SFU_MAX_UNSORTED_FDES */ \
  X(SFU_E_BAD_INDEX_MEMORY, "bad-index-memory")       /* under sfu_index_size, or not 8-aligned */ \
  X(SFU_E_SYMBOL_BAD_PREFIX, "bad-symbol-prefix")     /* borrows from no name, or past its end */ \
  X(SFU_E_SYMBOL_PREFIX_TOO_DEEP, "symbol-prefix-too-deep") /* over SFU_SYMBOL_PREFIX_DEPTH */ \
  X(SFU_E_BAD_PROFILE_PARAMS, "profile-bad-params")   /* sfu_profile_init: sizes, unit, NULL */ \
  X(SFU_E_BAD_PROFILE_MEMORY, "profile-bad-memory")   /* NULL, not 8-aligned, or too small */  \
  X(SFU_E_PROFILE_DISABLED, "profile-disabled")       /* CONFIG_SFU_PROFILE is off */          \
  X(SFU_E_BUILD_ID_DISABLED, "build-id-disabled")     /* a note, CONFIG_SFU_BUILD_ID off */

enum sfu_error {
#define SFU_ERROR_ENUM(name, text) name,
  SFU_ERRORS(SFU_ERROR_ENUM)
#undef SFU_ERROR_ENUM
  SFU_ERROR_COUNT
};

/* The stable short name of an error ("bad-magic"); "unknown-error" for values out of range. */
const char *sfu_error_name(enum sfu_error err);

/* ABI/arch identifiers, as stored in the header. */
enum sfu_abi {
  SFU_ABI_ANY = 0, /* in sfu_table_desc: host builds accept any ABI, target builds their own */
  SFU_ABI_AARCH64_BE = 1,
  SFU_ABI_AARCH64_LE = 2,
  SFU_ABI_AMD64_LE = 3,
  SFU_ABI_S390X_BE = 4,
};

/* The architecture an ABI value names, as sfunwind prints it ("unknown" for any other value). */
static inline const char *sfu_abi_name(uint8_t abi) {
  switch (abi) {
    case SFU_ABI_AMD64_LE: return "x86_64";
    case SFU_ABI_AARCH64_LE: return "arm64";
    case SFU_ABI_AARCH64_BE: return "arm64-be";
    case SFU_ABI_S390X_BE: return "s390x";
    default: return "unknown";
  }
}

/* Header flags. */
#define SFU_F_FDE_SORTED 0x1u
#define SFU_F_FRAME_POINTER 0x2u /* V1 and V2 only */
#define SFU_F_FDE_FUNC_START_PCREL 0x4u /* V2 errata 1, and V3 */

/* What the caller knows about the section it hands over. */
struct sfu_table_desc {
  const void *section;   /* the .sframe bytes */
  size_t size;           /* their length */
  uint64_t section_addr; /* the address the section is loaded at (function starts are relative) */
  uint64_t text_start;   /* every function must lie in [text_start, text_end); */
  uint64_t text_end;     /* text_end == 0 means "do not check" */
  uint8_t abi;           /* enum sfu_abi the table must have; SFU_ABI_ANY: see above */
};

/* A validated view of one section. Fixed size, caller-owned, no pointers into anything but the
 * section itself. Fields are read-only for callers; use the accessors below. */
struct sfu_table {
  const uint8_t *sec;
  uint64_t sec_addr;
  uint64_t text_start, text_end;
  uint32_t sec_size;
  uint32_t num_fdes, num_fres, fre_len;
  uint32_t fdes_at; /* offset in the section of the FDE sub-section */
  uint32_t fres_at; /* offset in the section of the FRE sub-section */
  uint8_t version, flags, abi, big_endian;
  int8_t fixed_fp_offset, fixed_ra_offset;
  uint8_t fde_size;
  uint8_t ready; /* 0 closed, 1 opened, 2 opened and fully validated */
  /* The block index (sfu_table_index), or NULL: its first bucket (the row palette lies just before
   * it), index_entries buckets of SFU_INDEX_BUCKET bytes. */
  const uint8_t *index;
  uint32_t index_entries;
};

/* Checks the header and that every sub-section lies inside the section, and fills *table.
 * Lookups on a table opened this way never read outside the section, but a corrupt table can
 * give wrong rows until sfu_table_validate accepts it. Returns SFU_E_EMPTY for a zero-length
 * section: there is no table. */
enum sfu_error sfu_table_open(struct sfu_table *table, const struct sfu_table_desc *desc);

/* Checks every FDE and every row of an opened table, in time linear in the section size.
 * On failure the table is closed: lookups return SFU_E_NOT_INITIALIZED. */
enum sfu_error sfu_table_validate(struct sfu_table *table);

/* What a kernel calls at registration: sfu_table_open, then sfu_table_validate when
 * CONFIG_SFU_VALIDATE_ON_REGISTER is set (the default). */
enum sfu_error sfu_table_init(struct sfu_table *table, const struct sfu_table_desc *desc);

/* ---- The block index: an optional lookup accelerator, built once into caller memory ---------
 *
 * Like Linux's ORC lookup table, one entry per SFU_INDEX_BLOCK bytes of text, but an entry is a
 * whole cache line (a bucket of SFU_INDEX_BUCKET bytes) that holds the block's rows themselves:
 * where in the block the row changes (up to 29 times) and, for each stretch, an id into a palette
 * of the table's distinct rows (up to 255, each the three rules and the flags a walk applies). A
 * walk's lookup then reads one bucket and one palette row, not the function records and the rows.
 * A block the bucket cannot describe (more changes, a row the full palette lacks, a repeating-block
 * function such as a .plt) is searched as without the index, and so is every block of a table only
 * opened (not validated): each bucket also counts the functions starting at or before its block,
 * so sfu_table_find searches only those of one block. Only sorted tables (SFU_F_FDE_SORTED) with a
 * text range use it; an unsorted table, or one without text_end, is looked up as without it. */
#define SFU_INDEX_BLOCK 256u
#define SFU_INDEX_BUCKET 64u
/* Fixed bytes besides the buckets: 64 to align them, 512 for the hash that merges equal rows while
 * building, 6144 for the palette (256 rows of 24 bytes). */
#define SFU_INDEX_FIXED (64u + 512u + 256u * 24u)
/* sfu_index_size for text_size bytes of text (more than 0), as a constant expression: for memory
 * set aside statically from the most text an image will have. */
#define SFU_INDEX_BYTES(text_size) \
  ((((text_size) + SFU_INDEX_BLOCK - 1) / SFU_INDEX_BLOCK + 1) * SFU_INDEX_BUCKET + SFU_INDEX_FIXED)

/* Bytes of index memory for a table whose text is [desc->text_start, desc->text_end): 64 bytes
 * per 256-byte block of text and one more bucket, plus SFU_INDEX_FIXED (6720) bytes; a function of
 * the text range alone. 0 when there is no text range, or the text is too large to index (an index
 * would need 4 GiB or more). Callable before anything is registered, so the memory can be set
 * aside (statically, for the kernel image) ahead of time. */
size_t sfu_index_size(const struct sfu_table_desc *desc);

/* Builds the block index of an opened (or validated) table into `memory` (8-byte aligned, at
 * least sfu_index_size bytes for the table's text range), in time linear in the table's
 * functions, rows and blocks, and points the table at it; lookups only read it from then on.
 * The rows are described only if the table was validated before (sfu_table_validate, or
 * sfu_table_init with validation on, as registration does). Refuses with SFU_E_BAD_INDEX_MEMORY
 * (too small, misaligned, or the text cannot be indexed), SFU_E_NOT_INITIALIZED; a table without
 * the sorted flag is left without an index (SFU_OK). The memory must stay valid, unchanged, as
 * long as the table is used. */
enum sfu_error sfu_table_index(struct sfu_table *table, void *memory, size_t size);

/* How one value (CFA, RA or FP of the caller) is recovered. */
enum sfu_rule_kind {
  SFU_RULE_UNCHANGED = 0, /* the callee has not changed it: still in its register */
  SFU_RULE_UNDEFINED,     /* there is none: the RA and CFA of an outermost row */
  SFU_RULE_AT_CFA,        /* stored at CFA + offset */
  SFU_RULE_CFA_PLUS,      /* is CFA + offset (V3 flexible rules) */
  SFU_RULE_REGISTER,      /* is DWARF register `reg` + offset */
  SFU_RULE_AT_REGISTER,   /* stored at DWARF register `reg` + offset */
};

struct sfu_rule {
  uint8_t kind; /* enum sfu_rule_kind */
  uint8_t reg;  /* DWARF register number, for the REGISTER kinds */
  int32_t offset;
};

/* Row flags. */
#define SFU_ROW_RA_SIGNED 0x01u    /* the saved RA carries pointer-authentication bits */
#define SFU_ROW_SIGNAL_FRAME 0x02u /* function is a signal/exception trampoline (V3) */
#define SFU_ROW_OUTERMOST 0x04u    /* RA undefined: the walk ends here, cleanly */
#define SFU_ROW_PAUTH_KEY_B 0x08u  /* AArch64: signed with the B key */
#define SFU_ROW_FLEX 0x10u         /* from a V3 flexible FDE */
#define SFU_ROW_PCMASK 0x20u       /* from a repeating-block (PLT-like) FDE */

/* The decoded rules for one PC. The CFA rule is REGISTER or AT_REGISTER (s390x offsets are
 * already decoded: offset * 8 + 160), UNDEFINED in an outermost row. RA and FP use any kind. */
struct sfu_row {
  uint64_t func_start;
  uint32_t func_size;
  uint32_t row_start; /* offset of the row from func_start (inside the block for PCMASK) */
  struct sfu_rule cfa, ra, fp;
  uint32_t flags; /* SFU_ROW_* */
};

/* Finds the function covering pc and the row that applies to it. Bounded: the functions of one
 * index block (a binary search over all functions without an index) of a sorted table, or a
 * linear scan of an unsorted one (at most CONFIG_SFU_MAX_UNSORTED_FDES functions, refused at
 * open beyond that); then the function's rows, at most CONFIG_SFU_MAX_FUNCTION_ROWS (a function
 * with more is refused at validation, and by the lookup of a table only opened). Only the row
 * that applies is decoded. */
enum sfu_error sfu_table_find(const struct sfu_table *table, uint64_t pc, struct sfu_row *row);

#ifdef __cplusplus
}
#endif

#endif /* SFU_SFRAME_H */
