/* The EL1 exception vectors. Each of the 16 slots is its own entry code: it saves the interrupted
 * registers as a struct trap_frame (trap_frame.h) on SP_EL1, calls the C handler with it, and
 * returns through exception_return.
 *
 * For the walker, [entry_text_start, entry_text_end) is a trap entry (walk.c): a return address
 * in it means "the registers saved at the entry frame's SP are the interrupted context". The CFI
 * here only says what DWARF can: the entry code has no caller (x30 is not a return address). */
#include "trap_frame.h"

/* SFrame V1 cannot say "no caller": gas 2.40 writes ".cfi_undefined x30" as "RA in x30", a wrong
 * row. Without CFI the entry code has no rows, which the walker does not need here. */
#ifdef ARM64_NO_OUTERMOST_ROWS
#define ENTRY_CFI(directive)
#else
#define ENTRY_CFI(directive) directive
#endif

/* One slot: 32 instructions at most. from_task: the exception came from task code (SPSel 0),
 * whose SP is SP_EL0; otherwise from a handler on this same stack. */
.macro vector_entry name, from_task, handler, index=-1
	.p2align 7
	.type \name, %function
\name:
	ENTRY_CFI(.cfi_startproc)
	ENTRY_CFI(.cfi_undefined x30)
	sub sp, sp, #TF_SIZE
	ENTRY_CFI(.cfi_def_cfa_offset TF_SIZE)
	stp x0, x1, [sp, #TF_X(0)]
	stp x2, x3, [sp, #TF_X(2)]
	stp x4, x5, [sp, #TF_X(4)]
	stp x6, x7, [sp, #TF_X(6)]
	stp x8, x9, [sp, #TF_X(8)]
	stp x10, x11, [sp, #TF_X(10)]
	stp x12, x13, [sp, #TF_X(12)]
	stp x14, x15, [sp, #TF_X(14)]
	stp x16, x17, [sp, #TF_X(16)]
	stp x18, x19, [sp, #TF_X(18)]
	stp x20, x21, [sp, #TF_X(20)]
	stp x22, x23, [sp, #TF_X(22)]
	stp x24, x25, [sp, #TF_X(24)]
	stp x26, x27, [sp, #TF_X(26)]
	stp x28, x29, [sp, #TF_X(28)]
	.if \from_task
	mrs x0, sp_el0
	.else
	add x0, sp, #TF_SIZE
	.endif
	stp x30, x0, [sp, #TF_X(30)]
	mrs x0, elr_el1
	mrs x1, spsr_el1
	stp x0, x1, [sp, #TF_ELR]
	mov x0, sp
	.if \index >= 0
	mov x1, #\index
	.endif
	bl \handler
	b exception_return
	ENTRY_CFI(.cfi_endproc)
	.size \name, .-\name
	.if . - \name > 128
	.error "vector entry \name does not fit its 128-byte slot"
	.endif
.endm

	.section .text.vectors, "ax"
	.p2align 11
	.globl vectors, entry_text_start, entry_text_end
vectors:
entry_text_start:
	/* Current EL with SP_EL0: task code. */
	vector_entry el1t_sync, 1, handle_sync
	vector_entry el1t_irq, 1, handle_irq
	vector_entry el1t_fiq, 1, handle_fiq
	vector_entry el1t_serror, 1, handle_unexpected, 3
	/* Current EL with SP_EL1: inside a handler. */
	vector_entry el1h_sync, 0, handle_sync
	vector_entry el1h_irq, 0, handle_irq
	vector_entry el1h_fiq, 0, handle_fiq
	vector_entry el1h_serror, 0, handle_unexpected, 7
	/* Lower ELs: nothing runs there. */
	vector_entry el0_sync, 1, handle_unexpected, 8
	vector_entry el0_irq, 1, handle_unexpected, 9
	vector_entry el0_fiq, 1, handle_unexpected, 10
	vector_entry el0_serror, 1, handle_unexpected, 11
	vector_entry el0_32_sync, 1, handle_unexpected, 12
	vector_entry el0_32_irq, 1, handle_unexpected, 13
	vector_entry el0_32_fiq, 1, handle_unexpected, 14
	vector_entry el0_32_serror, 1, handle_unexpected, 15

/* Back to the interrupted code, with the ELR and SPSR the handler may have changed. The frame's
 * SP is not restored: a handler does not move the interrupted stack. */
	.p2align 2
	.type exception_return, %function
exception_return:
	ENTRY_CFI(.cfi_startproc)
	ENTRY_CFI(.cfi_undefined x30)
	ENTRY_CFI(.cfi_def_cfa_offset TF_SIZE)
	ldp x0, x1, [sp, #TF_ELR]
	msr elr_el1, x0
	msr spsr_el1, x1
	ldp x0, x1, [sp, #TF_X(0)]
	ldp x2, x3, [sp, #TF_X(2)]
	ldp x4, x5, [sp, #TF_X(4)]
	ldp x6, x7, [sp, #TF_X(6)]
	ldp x8, x9, [sp, #TF_X(8)]
	ldp x10, x11, [sp, #TF_X(10)]
	ldp x12, x13, [sp, #TF_X(12)]
	ldp x14, x15, [sp, #TF_X(14)]
	ldp x16, x17, [sp, #TF_X(16)]
	ldp x18, x19, [sp, #TF_X(18)]
	ldp x20, x21, [sp, #TF_X(20)]
	ldp x22, x23, [sp, #TF_X(22)]
	ldp x24, x25, [sp, #TF_X(24)]
	ldp x26, x27, [sp, #TF_X(26)]
	ldp x28, x29, [sp, #TF_X(28)]
	ldr x30, [sp, #TF_X(30)]
	add sp, sp, #TF_SIZE
	ENTRY_CFI(.cfi_def_cfa_offset 0)
	eret
	ENTRY_CFI(.cfi_endproc)
	.size exception_return, .-exception_return
entry_text_end:

	.section .note.GNU-stack, "", %progbits
