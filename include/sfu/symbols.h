/* Function names on the device: the compact symbol table `sfu gen` writes into .sfu_symbols
 * (byte layout: docs/symbols.md), validated once, then looked up by PC.
 *
 * Freestanding and callable from C. Like the SFrame decoder, the reader works in place on the
 * section bytes, reads every multi-byte field one byte at a time in the table's byte order, never
 * reads outside the section, never allocates and takes no lock: a lookup and a name decode are
 * safe in an interrupt or an NMI. A lookup is a binary search over fixed-size entries; a name
 * decodes in time bounded by SFU_SYMBOL_NAME_MAX and SFU_SYMBOL_PREFIX_DEPTH, on a stack of
 * SFU_SYMBOL_TOKEN_DEPTH bytes.
 *
 * Failure contract: as sfu/sframe.h (every function returns an sfu_error, SFU_OK the only
 * success; output arguments are unspecified on failure).
 */
#ifndef SFU_SYMBOLS_H
#define SFU_SYMBOLS_H

#include "sfu/types.h"

#include "sfu/sframe.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sfu_sink; /* sfu/print.h */

/* A name decodes to at most this many bytes (the writer truncates longer ones), its tokens nest
 * at most this deep, and it borrows a prefix through at most this many earlier names. A table
 * breaking any is refused when it is validated. */
#define SFU_SYMBOL_NAME_MAX 512
#define SFU_SYMBOL_TOKEN_DEPTH 32
#define SFU_SYMBOL_PREFIX_DEPTH 16

/* What the caller knows about the section it hands over. */
struct sfu_symbols_desc {
  const void *section;   /* the .sfu_symbols bytes (a reservation may hold zeros after the table) */
  size_t size;           /* their length */
  uint64_t section_addr; /* the address the section is loaded at: function starts are relative */
  uint64_t text_start;   /* every function must lie in [text_start, text_end); */
  uint64_t text_end;     /* text_end == 0 means "do not check" */
};

/* A validated view of one table. Fixed size, caller-owned, points only into the section. Fields
 * are read-only for callers. */
struct sfu_symbols {
  const uint8_t *sec;
  uint64_t sec_addr;
  uint32_t num_symbols;
  uint32_t tokens_at;  /* offset of the token pairs */
  uint32_t entries_at; /* offset of the entry array */
  uint32_t names_at;   /* offset of the encoded names */
  uint32_t names_size;
  uint32_t table_size; /* bytes the table uses, from its start */
  uint8_t token_map[32]; /* bit c set: code c is a token, else the character c itself */
  uint8_t big_endian;
  uint8_t ready; /* 0 refused or never initialized, 1 validated */
};

/* Checks the header, the bounds of every part, that the entries are sorted, do not overlap and
 * lie in the text range, and decodes every name once (each within the limits above): linear in
 * the table's size. Refuses with a named error (docs/errors.md); SFU_E_NO_SYMBOLS for a section
 * of zero bytes or one that starts with four zero bytes (a reservation `sfu gen` never filled).
 * On failure the view is closed: lookups return SFU_E_NOT_INITIALIZED. */
enum sfu_error sfu_symbols_init(struct sfu_symbols *symbols, const struct sfu_symbols_desc *desc);

/* One function of the table. */
struct sfu_symbol {
  uint64_t start; /* its address */
  uint32_t size;  /* its bytes: it covers [start, start + size) */
  uint32_t index; /* its entry, for sfu_symbol_name */
};

/* The function covering pc: O(log n) probes, no allocation. SFU_E_NO_SYMBOL when none covers
 * it. (Look a return address up at pc - 1: see sfu_print_symbol in sfu/print.h.) */
enum sfu_error sfu_symbols_find(const struct sfu_symbols *symbols, uint64_t pc,
                                struct sfu_symbol *symbol);

/* Entry `index` (< num_symbols, in address order), for listing a whole table. SFU_E_NO_SYMBOL
 * past the last. */
enum sfu_error sfu_symbols_entry(const struct sfu_symbols *symbols, uint32_t index,
                                 struct sfu_symbol *symbol);

/* Decodes the name of symbol->index into buf (NUL-terminated, cut to size - 1 bytes if it is
 * longer) and returns its full length, or 0 when nothing could be decoded (a closed view, an
 * index out of range, a NULL argument; buf then holds "" if it has room). */
size_t sfu_symbol_name(const struct sfu_symbols *symbols, const struct sfu_symbol *symbol,
                       char *buf, size_t size);

/* Writes the same name straight into the sink, a character at a time, with no buffer; returns
 * its length (0 as above, nothing printed). */
size_t sfu_symbol_print_name(const struct sfu_sink *sink, const struct sfu_symbols *symbols,
                             const struct sfu_symbol *symbol);

/* ---- GNU build-id --------------------------------------------------------------------------- */

/* A build-id descriptor is at most this many bytes (ld writes 8, 16 or 20). */
#define SFU_BUILD_ID_MAX 64

/* Finds the NT_GNU_BUILD_ID note (type 3, name "GNU") among the ELF notes in
 * [note, note + size) (usually the .note.gnu.build-id section, one note) read in the given byte
 * order, and points *id at its descriptor bytes, *id_size their number. Refuses with
 * SFU_E_NO_BUILD_ID (nothing given: NULL or zero bytes), SFU_E_BUILD_ID_TRUNCATED (a note runs
 * past the end), SFU_E_NOT_A_BUILD_ID (no note of that name and type),
 * SFU_E_BAD_BUILD_ID_SIZE (a descriptor of 0 or more than SFU_BUILD_ID_MAX bytes). */
enum sfu_error sfu_build_id_from_note(const void *note, size_t size, int big_endian,
                                      const uint8_t **id, uint32_t *id_size);

#ifdef __cplusplus
}
#endif

#endif /* SFU_SYMBOLS_H */
