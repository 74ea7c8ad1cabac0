/* Hand-written s390x CFI for the rules compilers rarely emit (tests/gen/README.md).
 * DWARF registers: r0..r15 are 0..15 (r11 the frame pointer, r14 the RA column, r15 sp), and
 * 16..31 are f0 f2 f4 f6 f1 f3 f5 f7 f8 f10 f12 f14 f9 f11 f13 f15, so f1 = 20, f3 = 21.
 * The CIE's CFA is r15 + 160 (the caller's register save area); slot n of the save area is
 * at CFA - 160 + 8n: r6 at CFA - 112, r11 at CFA - 72, r14 at CFA - 48, r15 at CFA - 40. */
	.text

/* A leaf that parks its RA (r14) and the frame pointer (r11) in call-clobbered floating-point
 * registers, as gcc does for leaves (.cfi_register 14, 20 = f1; .cfi_register 11, 21 = f3),
 * then uses r11 as the CFA base (r11 + 160) and r14 as a scratch register. */
	.p2align 3
	.globl	asm_s390_leaf_fpr
	.type	asm_s390_leaf_fpr, @function
asm_s390_leaf_fpr:
	.cfi_startproc
	ldgr	%f1, %r14
	.cfi_register 14, 20
	ldgr	%f3, %r11
	.cfi_register 11, 21
	lgr	%r11, %r15
	.cfi_def_cfa_register 11
	lgr	%r14, %r2
	aghi	%r14, 3
	lgr	%r2, %r14
	.cfi_def_cfa_register 15
	lgdr	%r11, %f3
	.cfi_restore 11
	lgdr	%r14, %f1
	.cfi_restore 14
	br	%r14
	.cfi_endproc
	.size	asm_s390_leaf_fpr, .-asm_s390_leaf_fpr

/* A normal frame: stmg r6..r15 into the caller's save area, 160 bytes allocated with a back
 * chain; CFA r15 + 320, then back to r15 + 160 after lmg. */
	.p2align 3
	.globl	asm_s390_frame
	.type	asm_s390_frame, @function
asm_s390_frame:
	.cfi_startproc
	stmg	%r6, %r15, 48(%r15)
	.cfi_offset 6, -112
	.cfi_offset 7, -104
	.cfi_offset 8, -96
	.cfi_offset 9, -88
	.cfi_offset 10, -80
	.cfi_offset 11, -72
	.cfi_offset 12, -64
	.cfi_offset 13, -56
	.cfi_offset 14, -48
	.cfi_offset 15, -40
	lgr	%r1, %r15
	aghi	%r15, -160
	.cfi_adjust_cfa_offset 160
	stg	%r1, 0(%r15)
	lgr	%r6, %r2
	brasl	%r14, asm_s390_leaf_fpr
	agr	%r2, %r6
	lmg	%r6, %r15, 208(%r15)
	.cfi_restore 15
	.cfi_restore 14
	.cfi_restore 13
	.cfi_restore 12
	.cfi_restore 11
	.cfi_restore 10
	.cfi_restore 9
	.cfi_restore 8
	.cfi_restore 7
	.cfi_restore 6
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	asm_s390_frame, .-asm_s390_frame

/* Two epilogues: the first inside .cfi_remember_state, the code after it starts with
 * .cfi_restore_state (CFA r15 + 320, r11..r15 saved). */
	.p2align 3
	.globl	asm_s390_two_epilogues
	.type	asm_s390_two_epilogues, @function
asm_s390_two_epilogues:
	.cfi_startproc
	stmg	%r11, %r15, 88(%r15)
	.cfi_offset 11, -72
	.cfi_offset 12, -64
	.cfi_offset 13, -56
	.cfi_offset 14, -48
	.cfi_offset 15, -40
	aghi	%r15, -160
	.cfi_def_cfa_offset 320
	lgr	%r11, %r2
	brasl	%r14, opaque
	ltgr	%r11, %r11
	jl	1f
	.cfi_remember_state
	agr	%r2, %r11
	lmg	%r11, %r15, 248(%r15)
	.cfi_restore 15
	.cfi_restore 14
	.cfi_restore 13
	.cfi_restore 12
	.cfi_restore 11
	.cfi_def_cfa_offset 160
	br	%r14
1:
	.cfi_restore_state
	lcgr	%r2, %r11
	brasl	%r14, opaque
	sgr	%r2, %r11
	lmg	%r11, %r15, 248(%r15)
	.cfi_restore 15
	.cfi_restore 14
	.cfi_restore 13
	.cfi_restore 12
	.cfi_restore 11
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	asm_s390_two_epilogues, .-asm_s390_two_epilogues

/* A large frame: agfi allocates 100000 bytes, CFA = r15 + 100160 (a 4-byte offset). */
	.p2align 3
	.globl	asm_s390_large_frame
	.type	asm_s390_large_frame, @function
asm_s390_large_frame:
	.cfi_startproc
	stmg	%r14, %r15, 112(%r15)
	.cfi_offset 14, -48
	.cfi_offset 15, -40
	agfi	%r15, -100000
	.cfi_adjust_cfa_offset 100000
	stg	%r2, 160(%r15)
	la	%r2, 160(%r15)
	lghi	%r3, 64
	brasl	%r14, consume
	lg	%r2, 160(%r15)
	lmg	%r14, %r15, 100112(%r15)
	.cfi_restore 15
	.cfi_restore 14
	.cfi_def_cfa_offset 160
	br	%r14
	.cfi_endproc
	.size	asm_s390_large_frame, .-asm_s390_large_frame

/* A signal trampoline shape: a "simple" FDE (own CIE, augmentation "zRS") starting one nopr
 * before the symbol; synthetic rules in the manner of an rt_sigframe at r15: CFA = r15 + 464,
 * RA (r14, the saved PSW address) at CFA - 128, r11 at CFA - 32, r6 at CFA - 72. */
	.p2align 3
	.globl	asm_s390_sigtramp
	.type	asm_s390_sigtramp, @function
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa 15, 464
	.cfi_offset 14, -128
	.cfi_offset 11, -32
	.cfi_offset 6, -72
asm_s390_sigtramp_cfi:				/* names the FDE's first byte for tools' reports */
	.type	asm_s390_sigtramp_cfi, @function
	nopr	%r7
asm_s390_sigtramp:
	svc	173			/* rt_sigreturn */
	j	.
	.cfi_endproc
	.size	asm_s390_sigtramp, .-asm_s390_sigtramp

	.section .note.GNU-stack,"",%progbits
