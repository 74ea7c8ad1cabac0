/* sfu_capture_here(struct sfu_regs *regs): the caller's registers at its return address, so a
 * walk can start from the current point. Offsets as in struct sfu_regs: pc at 0, r[n] at
 * 8 + 8n, valid at 264. Captured: x19-x29 (kept across calls) and sp; x30 holds our own return
 * address, not the caller's link register, so it is not marked valid. */
	.text
	.globl sfu_capture_here
	.type sfu_capture_here, %function
	.p2align 2
sfu_capture_here:
	.cfi_startproc
	str x30, [x0]                /* pc: where the caller resumes */
	stp x19, x20, [x0, #8+19*8]
	stp x21, x22, [x0, #8+21*8]
	stp x23, x24, [x0, #8+23*8]
	stp x25, x26, [x0, #8+25*8]
	stp x27, x28, [x0, #8+27*8]
	str x29, [x0, #8+29*8]
	mov x1, sp
	str x1, [x0, #8+31*8]
	mov w1, #0xb8000000           /* bits 27-29 and 31: x27, x28, x29, sp ... */
	orr w1, w1, #0x07f80000       /* ... and x19-x26 (bits 19-26); not x30 (bit 30) */
	str w1, [x0, #264]
	ret
	.cfi_endproc
	.size sfu_capture_here, .-sfu_capture_here
	.section .note.GNU-stack,"",%progbits
