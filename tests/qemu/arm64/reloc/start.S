/* reloc_start: the reloc kernel's entry (scenario 11, common/reloc.h). QEMU loads the image at its
 * link address and enters here at EL1, MMU off, as it enters the other kernels' _start. On a
 * stack in the image as loaded, reloc_move copies the image to its place for this run's seed and
 * relocates the copy; then the copy's _start (boot.S) runs the crash kernel there. Nothing here
 * uses an absolute address: adrp reaches the loaded image, and _start plus reloc_move's answer
 * the copy. A reset enters here again, the image loaded afresh and the seed written again: the
 * same place. */
/* First in the image (reloc/kernel.lds.S): _start is then not at the module's offset 0, where
 * Breakpad names no function (a PUBLIC record at 0 is ignored). */
	.section .text.reloc, "ax"
	.globl reloc_start
	.type reloc_start, %function
	.p2align 2
reloc_start:
	.cfi_startproc
	.cfi_undefined x30          /* no caller, and not in any trace: the copy's _start is */
	msr daifset, #0xf
	adrp x0, task_stack_hi
	add x0, x0, :lo12:task_stack_hi
	mov sp, x0
	bl reloc_move               /* x0: from here to the copy */
	adrp x1, _start
	add x1, x1, :lo12:_start
	add x1, x1, x0
	/* The copy is code written by data stores: nothing stale may be fetched for it. */
	dsb sy
	ic iallu
	dsb sy
	isb
	br x1
	.cfi_endproc
	.size reloc_start, .-reloc_start

	.section .note.GNU-stack, "", %progbits
