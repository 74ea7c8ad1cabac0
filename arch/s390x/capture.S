/* sfu_capture_here(struct sfu_regs *regs): the caller's registers at its return address, so a
 * walk can start from the current point. Offsets as in struct sfu_regs: pc at 0, r[n] at
 * 8 + 8n, valid at 264. Captured: r6-r13 and r15 (kept across calls); r14 holds our own return
 * address, which is the pc, so it is not marked valid. */
	.text
	.globl sfu_capture_here
	.type sfu_capture_here, @function
sfu_capture_here:
	.cfi_startproc
	stg %r14, 0(%r2)             /* pc: where the caller resumes */
	stmg %r6, %r15, 8+6*8(%r2)   /* r6..r15 into r[6..15] */
	llilf %r1, 0xbfc0            /* bits 6-13 and 15 */
	st %r1, 264(%r2)
	br %r14
	.cfi_endproc
	.size sfu_capture_here, .-sfu_capture_here
	.section .note.GNU-stack,"",@progbits
