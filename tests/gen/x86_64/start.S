/* x86_64 entry: the outermost frame. The kernel enters with %rsp 16-byte aligned and no return
 * address; .cfi_undefined %rip (DWARF column 16) says there is no caller. */
	.text
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined %rip
	xorl	%ebp, %ebp
	call	main
	movl	%eax, %edi
	movl	$60, %eax		/* exit */
	syscall
	hlt
	.cfi_endproc
	.size	_start, .-_start

	.section .note.GNU-stack,"",%progbits
