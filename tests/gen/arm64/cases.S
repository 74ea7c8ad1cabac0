/* Hand-written arm64 CFI for the rules compilers rarely emit (tests/gen/README.md).
 * DWARF registers: x0..x30 are 0..30 (x29 FP, x30 LR = the RA column), sp 31. PAC instructions
 * are written as hints (paciasp = hint #25, autiasp = hint #29, pacibsp = hint #27,
 * autibsp = hint #31) so no -march option is needed. */
	.text

/* A leaf: RA stays in x30, CFA = sp + 0, nothing saved. */
	.p2align 2
	.globl	asm_a64_leaf
	.type	asm_a64_leaf, %function
asm_a64_leaf:
	.cfi_startproc
	add	x0, x0, #1
	ret
	.cfi_endproc
	.size	asm_a64_leaf, .-asm_a64_leaf

/* A normal frame record: CFA = sp + 32, x29 at CFA - 32, x30 at CFA - 24; x19 at CFA - 16. */
	.p2align 2
	.globl	asm_a64_frame
	.type	asm_a64_frame, %function
asm_a64_frame:
	.cfi_startproc
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	str	x19, [sp, #16]
	.cfi_offset 19, -16
	mov	x19, x0
	bl	asm_a64_leaf
	add	x0, x0, x19
	ldr	x19, [sp, #16]
	.cfi_restore 19
	ldp	x29, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	asm_a64_frame, .-asm_a64_frame

/* Return address signed with the A key: .cfi_negate_ra_state after paciasp and autiasp. */
	.p2align 2
	.globl	asm_a64_pac_a
	.type	asm_a64_pac_a, %function
asm_a64_pac_a:
	.cfi_startproc
	hint	#25				/* paciasp */
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	bl	asm_a64_leaf
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	hint	#29				/* autiasp */
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	asm_a64_pac_a, .-asm_a64_pac_a

/* The same with the B key: .cfi_b_key_frame (CIE augmentation "B"), pacibsp / autibsp. */
	.p2align 2
	.globl	asm_a64_pac_b
	.type	asm_a64_pac_b, %function
asm_a64_pac_b:
	.cfi_startproc
	.cfi_b_key_frame
	hint	#27				/* pacibsp */
	.cfi_negate_ra_state
	stp	x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	mov	x29, sp
	bl	asm_a64_leaf
	ldp	x29, x30, [sp], #16
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	hint	#31				/* autibsp */
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size	asm_a64_pac_b, .-asm_a64_pac_b

/* Two epilogues: the first inside .cfi_remember_state, the code after it starts with
 * .cfi_restore_state (CFA sp + 32, x29 at CFA - 32, x30 at CFA - 24, x19 at CFA - 16). */
	.p2align 2
	.globl	asm_a64_two_epilogues
	.type	asm_a64_two_epilogues, %function
asm_a64_two_epilogues:
	.cfi_startproc
	stp	x29, x30, [sp, #-32]!
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -32
	.cfi_offset 30, -24
	mov	x29, sp
	str	x19, [sp, #16]
	.cfi_offset 19, -16
	mov	x19, x0
	bl	opaque
	tbnz	x19, #63, 1f
	.cfi_remember_state
	add	x0, x0, x19
	ldr	x19, [sp, #16]
	.cfi_restore 19
	ldp	x29, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
1:
	.cfi_restore_state
	neg	x0, x19
	bl	opaque
	sub	x0, x0, x19
	ldr	x19, [sp, #16]
	.cfi_restore 19
	ldp	x29, x30, [sp], #32
	.cfi_restore 30
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	asm_a64_two_epilogues, .-asm_a64_two_epilogues

/* A realigned leaf: the old sp is kept in x9 and the CFA is x9 + 0 (neither sp nor x29) while
 * sp is 64-byte aligned; RA in x30 throughout. */
	.p2align 2
	.globl	asm_a64_cfa_x9
	.type	asm_a64_cfa_x9, %function
asm_a64_cfa_x9:
	.cfi_startproc
	mov	x9, sp
	.cfi_def_cfa_register 9
	sub	x10, sp, #128
	and	sp, x10, #-64
	str	x0, [sp]
	ldr	x0, [sp]
	add	x0, x0, #2
	mov	sp, x9
	.cfi_def_cfa_register 31
	ret
	.cfi_endproc
	.size	asm_a64_cfa_x9, .-asm_a64_cfa_x9

/* The return address moved to another register: .cfi_register 30, 9 (x30 lives in x9) across
 * a call to asm_a64_leaf, which leaves x9 alone; then .cfi_restore 30. */
	.p2align 2
	.globl	asm_a64_ra_in_x9
	.type	asm_a64_ra_in_x9, %function
asm_a64_ra_in_x9:
	.cfi_startproc
	mov	x9, x30
	.cfi_register 30, 9
	bl	asm_a64_leaf
	mov	x30, x9
	.cfi_restore 30
	ret
	.cfi_endproc
	.size	asm_a64_ra_in_x9, .-asm_a64_ra_in_x9

/* FP saved, RA not: a leaf with a frame-record slot as clang -O2 writes it (the shape of
 * issue 14): `sub sp; str x29, [sp, #16]`, CFI once after the prologue (.cfi_def_cfa_offset 32,
 * .cfi_offset 29, -16) and none for the epilogue, as clang 14 does on arm64. The RA stays in
 * x30. SFrame V1 and V2 have no AArch64 form for it (a 0 RA word there is RA at CFA+0). */
	.p2align 2
	.globl	asm_a64_fp_only_clang
	.type	asm_a64_fp_only_clang, %function
asm_a64_fp_only_clang:
	.cfi_startproc
	sub	sp, sp, #32
	str	x29, [sp, #16]
	.cfi_def_cfa_offset 32
	.cfi_offset 29, -16
	add	x29, sp, #16
	str	x0, [sp, #8]
	ldr	x0, [sp, #8]
	add	x0, x0, #3
	ldr	x29, [sp, #16]
	add	sp, sp, #32
	ret
	.cfi_endproc
	.size	asm_a64_fp_only_clang, .-asm_a64_fp_only_clang

/* FP saved, RA not, as gcc writes it when x29 is an ordinary callee-saved register
 * (-fomit-frame-pointer): `str x29, [sp, #-16]!` with .cfi_def_cfa_offset 16 and
 * .cfi_offset 29, -16, and precise epilogue CFI (.cfi_restore 29, .cfi_def_cfa_offset 0). */
	.p2align 2
	.globl	asm_a64_fp_only_gcc
	.type	asm_a64_fp_only_gcc, %function
asm_a64_fp_only_gcc:
	.cfi_startproc
	str	x29, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	mov	x29, x0
	add	x0, x29, #5
	ldr	x29, [sp], #16
	.cfi_restore 29
	.cfi_def_cfa_offset 0
	ret
	.cfi_endproc
	.size	asm_a64_fp_only_gcc, .-asm_a64_fp_only_gcc

/* A signal trampoline in the shape of the kernel vDSO's __kernel_rt_sigreturn: a signal frame
 * (augmentation "zRS") whose FDE starts one nop before the symbol, CFA = x29 + 0, and the
 * frame record at positive offsets: x29 at CFA + 0, x30 at CFA + 8. */
	.p2align 2
	.globl	asm_a64_sigtramp
	.type	asm_a64_sigtramp, %function
	.cfi_startproc
	.cfi_signal_frame
	.cfi_def_cfa 29, 0
	.cfi_offset 29, 0
	.cfi_offset 30, 8
asm_a64_sigtramp_cfi:				/* names the FDE's first byte for tools' reports */
	.type	asm_a64_sigtramp_cfi, %function
	nop
asm_a64_sigtramp:
	mov	x8, #139			/* rt_sigreturn */
	svc	#0
	brk	#0
	.cfi_endproc
	.size	asm_a64_sigtramp, .-asm_a64_sigtramp

	.section .note.GNU-stack,"",%progbits
