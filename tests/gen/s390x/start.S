/* s390x entry: the outermost frame. No caller: .cfi_undefined r14 (the RA column). The CIE's
 * CFA is r15 + 160; the 160-byte register save area main may use is allocated here, with a
 * zero back chain. */
	.text
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined 14
	lghi	%r11, 0
	aghi	%r15, -160
	.cfi_adjust_cfa_offset 160
	xc	0(8,%r15), 0(%r15)
	brasl	%r14, main
	svc	1			/* exit, status in r2 */
	j	.
	.cfi_endproc
	.size	_start, .-_start

	.section .note.GNU-stack,"",%progbits
