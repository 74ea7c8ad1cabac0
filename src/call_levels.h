// Inlining choices that trade code for stack on s390x only. There every call level costs the
// caller's 160-byte register save area, so a step's deepest call chain (the stack target of
// sfu_backtrace) is counted in levels; elsewhere a level costs a return address and what the
// callee spills, and the compiler's own choice is smaller and faster.
#pragma once

#if defined(__s390x__)
// A helper that should be a call level of its own, so that it can be a frameless leaf and its
// caller spills nothing across it.
#define SFU_S390X_LEAF [[gnu::noinline]]
// A helper that should not be a call level at all: folded into its caller.
#define SFU_S390X_INLINE [[gnu::always_inline]] inline
#else
#define SFU_S390X_LEAF
#define SFU_S390X_INLINE
#endif
