/* _start: QEMU's -kernel loads this ELF at its physical addresses and jumps here at EL1, MMU off,
 * every exception masked. Sets up what C needs and calls kernel_main, which never returns.
 *
 * Stacks: the handlers run on SP_EL1 (the IRQ stack), everything else on SP_EL0 (the task stack,
 * PSTATE.SPSel = 0). The CPU then switches stacks on every exception taken from task code, and
 * the entry code finds the interrupted SP in SP_EL0. */
#include "trap_frame.h"

#define SCTLR_EnIA (1 << 31)
#define TCR_T0SZ_48 16          /* 48-bit VAs: where PAC bits start, and what the walker strips */
#define TCR_T1SZ_48 (16 << 16)

	.section .text.boot, "ax"
	.globl _start
	.type _start, %function
	.p2align 2
_start:
	.cfi_startproc
#ifndef ARM64_NO_OUTERMOST_ROWS
	.cfi_undefined x30          /* the outermost frame: a walk ends here */
#endif
	msr daifset, #0xf
	msr tpidr_el1, xzr          /* CPU index 0 (arm64.h: this_cpu) */

	/* C expects a zeroed .bss. */
	adrp x0, __bss_start
	add x0, x0, :lo12:__bss_start
	adrp x1, __bss_end
	add x1, x1, :lo12:__bss_end
1:	cmp x0, x1
	b.hs 2f
	str xzr, [x0], #8
	b 1b
2:
	adrp x0, vectors
	add x0, x0, :lo12:vectors
	msr vbar_el1, x0

	/* The MMU stays off, but the VA size still decides where a signed pointer's PAC goes. */
	mov x0, #TCR_T0SZ_48
	movk x0, #(TCR_T1SZ_48 >> 16), lsl #16
	msr tcr_el1, x0

#ifdef SFU_PAC
	/* Any non-zero key, so signed return addresses really differ from plain ones. */
	ldr x0, =0x0123456789abcdef
	ldr x1, =0xfedcba9876543210
	msr S3_0_C2_C1_0, x0        /* APIAKeyLo_EL1 */
	msr S3_0_C2_C1_1, x1        /* APIAKeyHi_EL1 */
	mrs x0, sctlr_el1
	orr x0, x0, #SCTLR_EnIA
	msr sctlr_el1, x0
#endif
	isb

	adrp x0, irq_stack_hi
	add x0, x0, :lo12:irq_stack_hi
	mov sp, x0
	adrp x0, task_stack_hi
	add x0, x0, :lo12:task_stack_hi
	msr sp_el0, x0
	msr spsel, #0
	isb

	/* A zero frame record ends the frame chain, for frame-pointer walkers. */
	mov x29, #0
	mov x30, #0
	stp xzr, xzr, [sp, #-16]!
#ifdef ARM64_NO_OUTERMOST_ROWS
	/* SFrame V1 has no outermost rows (gas ignores .cfi_undefined): the return address is
	 * the record's 0 instead, which ends a walk as cleanly. */
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
#endif
	bl kernel_main
1:	wfi                         /* the outermost return address a walk sees; never returned to */
	b 1b
	.cfi_endproc
	.size _start, .-_start

	.section .note.GNU-stack, "", %progbits
