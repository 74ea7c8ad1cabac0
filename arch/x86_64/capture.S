/* sfu_capture_here(struct sfu_regs *regs): the caller's registers at its return address, so a
 * walk can start from the current point. The offsets are struct sfu_regs's: pc at 0, r[n] at
 * 8 + 8n, valid at 264 (static_asserts in src/unwind/walker.cpp keep them in step). Only the
 * registers a caller keeps across the call are captured: rbx, rbp, rsp, r12-r15. */
	.text
	.globl sfu_capture_here
	.type sfu_capture_here, @function
sfu_capture_here:
	.cfi_startproc
	movq (%rsp), %rax
	movq %rax, 0(%rdi)           /* pc: where the caller resumes */
	movq %rbx, 8+3*8(%rdi)
	movq %rbp, 8+6*8(%rdi)
	leaq 8(%rsp), %rax
	movq %rax, 8+7*8(%rdi)       /* rsp: the caller's, after the return */
	movq %r12, 8+12*8(%rdi)
	movq %r13, 8+13*8(%rdi)
	movq %r14, 8+14*8(%rdi)
	movq %r15, 8+15*8(%rdi)
	movl $((1<<3)|(1<<6)|(1<<7)|(1<<12)|(1<<13)|(1<<14)|(1<<15)), 264(%rdi)
	ret
	.cfi_endproc
	.size sfu_capture_here, .-sfu_capture_here
	.section .note.GNU-stack,"",@progbits
