/* s390x test kernel: interrupt entry code.
 * An interrupt stores the old PSW in the lowcore and loads the new one; no register changes. Each
 * entry stores r0-r15 in its lowcore save area, switches to its own stack, copies the whole
 * interrupted context into a struct trap_frame there (s390x.h), and calls the C handler with it,
 * its SP 160 bytes below the frame. On return it loads the (possibly changed) context back.
 *
 * The walker crosses this code through the trap layout (arch_walk_config): a return address into
 * [pgm_entry, pgm_entry_end), [ext_entry, ext_entry_end) or [rst_entry, rst_entry_end) means "the
 * registers are in the trap frame at SP + 160". Its CFI calls it outermost (RA undefined): a walk
 * given no trap layout ends here, cleanly. */
#include "s390x.h"

/* Copies the interrupted context from the lowcore into a trap frame on STACK (the lowcore slot
 * that holds this CPU's stack top: LC_IRQ_STACK, LC_EXC_STACK), calls HANDLER, and returns to the
 * context through OLD_PSW. */
.macro TRAP_ENTRY name, save, old_psw, stack, handler
	.globl \name, \name\()_end
	.type \name, @function
\name:
	.cfi_startproc
	.cfi_undefined %r14
	stmg %r0, %r15, \save
	lg %r15, \stack
	aghi %r15, -(STACK_FRAME_OVERHEAD + TF_SIZE)
	xc 0(8,%r15), 0(%r15)
	mvc STACK_FRAME_OVERHEAD+TF_GPRS(128,%r15), \save
	mvc STACK_FRAME_OVERHEAD+TF_PSW_MASK(16,%r15), \old_psw
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	std %f\n, STACK_FRAME_OVERHEAD+TF_FPRS+8*\n(%r15)
	.endr
	.ifc \old_psw, LC_PGM_OLD_PSW
	mvc STACK_FRAME_OVERHEAD+TF_INT_CODE(4,%r15), LC_PGM_ILC
	.endif
	.ifc \old_psw, LC_EXT_OLD_PSW
	mvc STACK_FRAME_OVERHEAD+TF_INT_CODE(4,%r15), LC_EXT_CPU_ADDR
	.endif
	.ifc \old_psw, LC_RESTART_OLD_PSW
	xc STACK_FRAME_OVERHEAD+TF_INT_CODE(4,%r15), STACK_FRAME_OVERHEAD+TF_INT_CODE(%r15)
	.endif
	la %r2, STACK_FRAME_OVERHEAD(%r15)
	brasl %r14, \handler
	.irp n, 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15
	ld %f\n, STACK_FRAME_OVERHEAD+TF_FPRS+8*\n(%r15)
	.endr
	mvc \old_psw(16), STACK_FRAME_OVERHEAD+TF_PSW_MASK(%r15)
	lmg %r0, %r15, STACK_FRAME_OVERHEAD+TF_GPRS(%r15)
	lpswe \old_psw
	.cfi_endproc
\name\()_end:
	.size \name, .-\name
.endm

	.text
	TRAP_ENTRY pgm_entry, LC_PGM_SAVE, LC_PGM_OLD_PSW, LC_EXC_STACK, program_check_handler
	TRAP_ENTRY ext_entry, LC_EXT_SAVE, LC_EXT_OLD_PSW, LC_IRQ_STACK, external_handler
/* The restart interruption cannot be masked: it comes inside the other handlers too (scenario
 * 10 sends one inside a tick's walk). Its own old PSW, save area and stack keep theirs intact. */
	TRAP_ENTRY rst_entry, LC_RST_SAVE, LC_RESTART_OLD_PSW, LC_RST_STACK, restart_handler

/* SVC, machine check and I/O interrupts: none is expected. Say so and end the run. */
	.globl unexpected_entry
	.type unexpected_entry, @function
unexpected_entry:
	.cfi_startproc
	.cfi_undefined %r14
	larl %r15, exc_stack_hi
	aghi %r15, -STACK_FRAME_OVERHEAD
	brasl %r14, unexpected_interrupt   /* does not return */
	.cfi_endproc
	.size unexpected_entry, .-unexpected_entry

	.section .note.GNU-stack, "", @progbits
