/* Leaving a context: resume_save/trap_resume (x86.h) to get back from a fault that cannot be
 * resumed, and run_on_stack to run a function on another stack. */
#include "x86.h"

	.text
/* int resume_save(struct resume_point *point): the registers a caller keeps across a call, and
 * where it returns to; trap_resume (traps.c) makes an interrupted context return from here
 * again, with 1. */
	.globl resume_save
	.type resume_save, @function
resume_save:
	.cfi_startproc
	movq (%rsp), %rax
	movq %rax, 0(%rdi)                /* rip: the return address */
	leaq 8(%rsp), %rax
	movq %rax, 8(%rdi)                /* rsp: after the return */
	movq %rbx, 16(%rdi)
	movq %rbp, 24(%rdi)
	movq %r12, 32(%rdi)
	movq %r13, 40(%rdi)
	movq %r14, 48(%rdi)
	movq %r15, 56(%rdi)
	xorl %eax, %eax
	ret
	.cfi_endproc
	.size resume_save, . - resume_save

/* void run_on_stack(void (*fn)(void *), void *arg, void *stack_top): calls fn(arg) with RSP at
 * stack_top. The frame is kept in RBP, which the CFI names as the CFA base, so a walk from the
 * other stack comes back to this one. */
	.globl run_on_stack
	.type run_on_stack, @function
run_on_stack:
	.cfi_startproc
	pushq %rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq %rsp, %rbp
	.cfi_def_cfa_register %rbp
	movq %rdx, %rsp
	movq %rdi, %rax
	movq %rsi, %rdi
	call *%rax
	movq %rbp, %rsp
	.cfi_def_cfa_register %rsp
	popq %rbp
	.cfi_def_cfa_offset 8
	.cfi_restore %rbp
	ret
	.cfi_endproc
	.size run_on_stack, . - run_on_stack

	.section .note.GNU-stack, "", @progbits
