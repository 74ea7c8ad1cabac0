/* Trap-flag helpers for the x86_64 walk test: with EFLAGS.TF set, every instruction raises
 * SIGTRAP. Leaves outside the code under test: never on a walked stack, so no SFrame. */

	.text

	.globl sfut_tf_on
	.type sfut_tf_on, @function
sfut_tf_on:
	.cfi_startproc
	pushfq
	.cfi_adjust_cfa_offset 8
	orq $0x100, (%rsp)
	popfq
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size sfut_tf_on, . - sfut_tf_on

	.globl sfut_tf_off
	.type sfut_tf_off, @function
sfut_tf_off:
	.cfi_startproc
	pushfq
	.cfi_adjust_cfa_offset 8
	andq $~0x100, (%rsp)
	popfq
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
	.size sfut_tf_off, . - sfut_tf_off

	.section .note.GNU-stack, "", @progbits
