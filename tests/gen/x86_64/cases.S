/* Hand-written x86_64 CFI for the rules compilers rarely emit (tests/gen/README.md).
 * DWARF registers: rbx 3, rbp 6, rsp 7, r10 10, rip (RA) 16. */
	.text

/* gcc's DRAP realignment, with exact CFI in the epilogue:
 * CFA = r10 + 0, then CFA = *(rbp - 8) (DW_CFA_def_cfa_expression), rbp saved at [rbp]
 * and rbx at [rbp - 16] (DW_CFA_expression); back to r10 + 0, then rsp + 8. */
	.p2align 4
	.globl	asm_x86_drap
	.type	asm_x86_drap, @function
asm_x86_drap:
	.cfi_startproc
	leaq	8(%rsp), %r10
	.cfi_def_cfa %r10, 0
	andq	$-64, %rsp
	pushq	-8(%r10)
	pushq	%rbp
	movq	%rsp, %rbp
	.cfi_escape 0x10, 0x6, 0x2, 0x76, 0x0		/* DW_CFA_expression rbp: DW_OP_breg6 0 */
	pushq	%r10
	.cfi_escape 0xf, 0x3, 0x76, 0x78, 0x6		/* DW_CFA_def_cfa_expression: breg6 -8; deref */
	pushq	%rbx
	.cfi_escape 0x10, 0x3, 0x2, 0x76, 0x70		/* DW_CFA_expression rbx: DW_OP_breg6 -16 */
	subq	$112, %rsp
	movq	%rdi, %rbx
	movq	%rdi, -112(%rbp)			/* a 64-byte aligned local */
	leaq	-112(%rbp), %rdi
	movl	$64, %esi
	call	consume
	movq	%rbx, %rdi
	call	opaque
	addq	-112(%rbp), %rax
	leaq	-16(%rbp), %rsp
	popq	%rbx
	.cfi_restore %rbx
	popq	%r10
	.cfi_def_cfa %r10, 0
	popq	%rbp
	.cfi_restore %rbp
	leaq	-8(%r10), %rsp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	asm_x86_drap, .-asm_x86_drap

/* Two epilogues: the first is wrapped in .cfi_remember_state, the code after it starts with
 * .cfi_restore_state (CFA rsp + 32, rbx at CFA - 16, rbp at CFA - 24). */
	.p2align 4
	.globl	asm_x86_two_epilogues
	.type	asm_x86_two_epilogues, @function
asm_x86_two_epilogues:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	pushq	%rbp
	.cfi_def_cfa_offset 24
	.cfi_offset %rbp, -24
	subq	$8, %rsp
	.cfi_def_cfa_offset 32
	movq	%rdi, %rbx
	call	opaque
	movq	%rax, %rbp
	testq	%rbx, %rbx
	js	1f
	.cfi_remember_state
	leaq	(%rbp,%rbx), %rax
	addq	$8, %rsp
	.cfi_def_cfa_offset 24
	popq	%rbp
	.cfi_restore %rbp
	.cfi_def_cfa_offset 16
	popq	%rbx
	.cfi_restore %rbx
	.cfi_def_cfa_offset 8
	ret
1:
	.cfi_restore_state
	movq	%rbx, %rdi
	negq	%rdi
	call	opaque
	subq	%rbp, %rax
	addq	$8, %rsp
	.cfi_def_cfa_offset 24
	popq	%rbp
	.cfi_restore %rbp
	.cfi_def_cfa_offset 16
	popq	%rbx
	.cfi_restore %rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	asm_x86_two_epilogues, .-asm_x86_two_epilogues

/* Two arguments pushed for a call, announced with DW_CFA_GNU_args_size 16 and reset to 0. */
	.p2align 4
	.globl	asm_x86_args_size
	.type	asm_x86_args_size, @function
asm_x86_args_size:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	movq	%rdi, %rbx
	movq	%rdi, %rsi
	movq	%rdi, %rdx
	movq	%rdi, %rcx
	movq	%rdi, %r8
	movq	%rdi, %r9
	pushq	%rbx					/* a8 */
	.cfi_adjust_cfa_offset 8
	pushq	$7					/* a7 */
	.cfi_adjust_cfa_offset 8
	.cfi_escape 0x2e, 0x10				/* DW_CFA_GNU_args_size 16 */
	call	asm_x86_stack_sum
	addq	$16, %rsp
	.cfi_adjust_cfa_offset -16
	.cfi_escape 0x2e, 0x0				/* DW_CFA_GNU_args_size 0 */
	popq	%rbx
	.cfi_restore %rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	asm_x86_args_size, .-asm_x86_args_size

/* A leaf reading two stack arguments; the CIE's rules only (CFA rsp + 8, RA at CFA - 8). */
	.p2align 4
	.globl	asm_x86_stack_sum
	.type	asm_x86_stack_sum, @function
asm_x86_stack_sum:
	.cfi_startproc
	leaq	(%rdi,%rsi), %rax
	addq	%rdx, %rax
	addq	%rcx, %rax
	addq	%r8, %rax
	addq	%r9, %rax
	addq	8(%rsp), %rax
	addq	16(%rsp), %rax
	ret
	.cfi_endproc
	.size	asm_x86_stack_sum, .-asm_x86_stack_sum

/* CFA = rsp + 40016: more than a signed 16-bit offset holds. */
	.p2align 4
	.globl	asm_x86_huge_frame
	.type	asm_x86_huge_frame, @function
asm_x86_huge_frame:
	.cfi_startproc
	subq	$40008, %rsp
	.cfi_def_cfa_offset 40016
	movq	%rdi, (%rsp)
	movq	%rsp, %rdi
	movl	$40008, %esi
	call	consume
	movq	(%rsp), %rax
	addq	$40008, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	asm_x86_huge_frame, .-asm_x86_huge_frame

/* A signal trampoline in the shape of glibc's __restore_rt: a "simple" FDE (own CIE, no
 * initial instructions, augmentation "zRS") that starts one nop before the symbol, so that
 * pc - 1 still falls inside it. The rules follow the rt_sigframe's ucontext at %rsp
 * (sigcontext at +40: rbp +120, rbx +128, rip +168) with a synthetic CFA of rsp + 208, so the
 * return address is at CFA - 40, not at CFA - 8: SFrame cannot say that on x86_64. */
	.p2align 4
	.globl	asm_x86_sigtramp
	.type	asm_x86_sigtramp, @function
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa %rsp, 208
	.cfi_offset %rip, -40
	.cfi_offset %rbp, -88
	.cfi_offset %rbx, -80
asm_x86_sigtramp_cfi:				/* names the FDE's first byte for tools' reports */
	.type	asm_x86_sigtramp_cfi, @function
	nop
asm_x86_sigtramp:
	movl	$15, %eax				/* rt_sigreturn */
	syscall
	hlt
	.cfi_endproc
	.size	asm_x86_sigtramp, .-asm_x86_sigtramp

	.section .note.GNU-stack,"",%progbits
