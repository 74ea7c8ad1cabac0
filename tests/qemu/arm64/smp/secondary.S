/* secondary_entry: where PSCI CPU_ON starts the other CPUs (main.c), at EL1 with the MMU off and
 * x0 the context id: the CPU's index. The same set-up as _start (boot.S) for one CPU: vectors,
 * TCR_EL1, its own two stacks (cpu_stacks[index], arm64.h), the CPU index in TPIDR_EL1, an
 * outermost frame, then secondary_main(index), which never returns. */
#include "trap_frame.h"

#define TCR_T0SZ_48 16
#define TCR_T1SZ_48 (16 << 16)
#define CPU_STACKS_SIZE 32 /* struct cpu_stacks: irq_lo, irq_hi, task_lo, task_hi */

	.text
	.globl secondary_entry
	.type secondary_entry, %function
	.p2align 2
secondary_entry:
	.cfi_startproc
	.cfi_undefined x30          /* the outermost frame of this CPU */
	msr daifset, #0xf
	mov x19, x0
	msr tpidr_el1, x19
	adrp x0, vectors
	add x0, x0, :lo12:vectors
	msr vbar_el1, x0
	mov x0, #TCR_T0SZ_48
	movk x0, #(TCR_T1SZ_48 >> 16), lsl #16
	msr tcr_el1, x0
	isb

	adrp x1, cpu_stacks
	add x1, x1, :lo12:cpu_stacks
	mov x2, #CPU_STACKS_SIZE
	madd x1, x19, x2, x1
	ldr x0, [x1, #8]            /* irq_hi: SP_EL1, the handlers' */
	mov sp, x0
	ldr x0, [x1, #24]           /* task_hi: SP_EL0 */
	msr sp_el0, x0
	msr spsel, #0
	isb

	mov x29, #0
	mov x30, #0
	stp xzr, xzr, [sp, #-16]!
	mov x0, x19
	bl secondary_main
1:	wfi
	b 1b
	.cfi_endproc
	.size secondary_entry, .-secondary_entry

	.section .note.GNU-stack, "", %progbits
