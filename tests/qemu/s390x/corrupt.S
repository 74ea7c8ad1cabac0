/* s390x test kernel, scenario 7: functions that corrupt their own frame, then call
 * corrupt_probe(name, expect) (corrupt.c), which traces from inside. Assembly, so the corruption
 * is exactly what the CFI then describes wrongly; each repairs its frame before it returns. */

	.text

/* corrupt_ra_victim(name, expect, garbage): the saved return address is overwritten with
 * `garbage` while corrupt_probe runs. */
	.globl corrupt_ra_victim
	.type corrupt_ra_victim, @function
corrupt_ra_victim:
	.cfi_startproc
	stmg %r6, %r15, 48(%r15)
	.cfi_offset %r6, -112
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	lay %r15, -160(%r15)
	.cfi_def_cfa_offset 320
	lgr %r6, %r14                 /* the real return address, kept across the call */
	stg %r4, 160+112(%r15)        /* the saved one: garbage */
	brasl %r14, corrupt_probe
	stg %r6, 160+112(%r15)        /* repaired */
	lmg %r6, %r15, 160+48(%r15)
	.cfi_restore %r6
	.cfi_restore %r14
	.cfi_restore %r15
	.cfi_def_cfa_offset 160
	br %r14
	.cfi_endproc
	.size corrupt_ra_victim, .-corrupt_ra_victim

/* corrupt_cfa_victim(name, expect, garbage): computes its CFA from r11 (a frame pointer), then
 * sets r11 to `garbage` while corrupt_probe runs. */
	.globl corrupt_cfa_victim
	.type corrupt_cfa_victim, @function
corrupt_cfa_victim:
	.cfi_startproc
	stmg %r11, %r15, 88(%r15)
	.cfi_offset %r11, -72
	.cfi_offset %r14, -48
	.cfi_offset %r15, -40
	lgr %r11, %r15
	.cfi_def_cfa_register %r11
	lay %r15, -160(%r15)
	lgr %r11, %r4                 /* the frame pointer: garbage */
	brasl %r14, corrupt_probe
	lmg %r11, %r15, 160+88(%r15)  /* through r15, which is intact */
	.cfi_def_cfa %r15, 160
	.cfi_restore %r11
	.cfi_restore %r14
	.cfi_restore %r15
	br %r14
	.cfi_endproc
	.size corrupt_cfa_victim, .-corrupt_cfa_victim

/* A leaf: its return address is still in r14, so it is a plausible frame only on top. */
	.globl corrupt_leaf
	.type corrupt_leaf, @function
corrupt_leaf:
	.cfi_startproc
	nopr %r7
	nopr %r7
	br %r14
	.cfi_endproc
	.size corrupt_leaf, .-corrupt_leaf

	.section .note.GNU-stack, "", @progbits
