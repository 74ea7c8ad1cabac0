/* arm64 entry: the outermost frame. No caller: .cfi_undefined x30 (the RA column), and a zero
 * frame-record chain (x29 = 0). */
	.text
	.globl	_start
	.type	_start, %function
_start:
	.cfi_startproc
	.cfi_undefined 30
	mov	x29, #0
	mov	x30, #0
	bl	main
	mov	x8, #93			/* exit */
	svc	#0
	brk	#0
	.cfi_endproc
	.size	_start, .-_start

	.section .note.GNU-stack,"",%progbits
