// Inlining choices that trade code for stack on s390x only. There every call level costs the
// caller's 160-byte register save area, so a step's deepest call chain (the stack target of
// sfu_backtrace) is counted in levels; elsewhere a level costs a return address and what the
// callee spills, and the compiler's own choice is smaller and faster.
#pragma once

#include "config.h"

// A hot helper the walk inlines for speed; a call where the core is built for size
// (CONFIG_SFU_OPTIMIZE_SIZE), as one copy serves every caller.
#ifdef CONFIG_SFU_OPTIMIZE_SIZE
#define SFU_HOT_INLINE inline
#else
#define SFU_HOT_INLINE [[gnu::always_inline]] inline
#endif

// A helper several callers share that the compiler would fold into each: one copy where the core
// is built for size (a COMDAT, kept once however many objects call it).
#ifdef CONFIG_SFU_OPTIMIZE_SIZE
#define SFU_SIZE_SHARED [[gnu::noinline]] inline
#else
#define SFU_SIZE_SHARED inline
#endif

// A helper whose frame should stay off its callers' stack (a call of its own), folded into its
// callers where the core is built for size: there the call costs more than the code it shares.
#ifdef CONFIG_SFU_OPTIMIZE_SIZE
#define SFU_SIZE_INLINE inline
#else
#define SFU_SIZE_INLINE [[gnu::noinline, gnu::noclone]] inline
#endif

#if defined(__s390x__)
// A helper that should be a call level of its own, so that it can be a frameless leaf and its
// caller spills nothing across it. Not where the core is built for size: there -Oz keeps the
// search's probe (fde_start) a call, so the search is no leaf, and folded into its caller it
// adds nothing to the caller's frame (sfu_table_find's stays 232 bytes) and is 136 bytes less code.
#ifdef CONFIG_SFU_OPTIMIZE_SIZE
#define SFU_S390X_LEAF
#else
#define SFU_S390X_LEAF [[gnu::noinline]]
#endif
// A helper that should not be a call level at all: folded into its caller. Not where the core is
// built for size: there its stack has no target, and one copy serves every caller.
#ifdef CONFIG_SFU_OPTIMIZE_SIZE
#define SFU_S390X_INLINE
#else
#define SFU_S390X_INLINE [[gnu::always_inline]] inline
#endif
#else
#define SFU_S390X_LEAF
#define SFU_S390X_INLINE
#endif
