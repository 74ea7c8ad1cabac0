/* The gdb limitations the every-instruction oracle names (tests/qemu/README.md, "What gdb cannot
 * vouch for"), each on its minimal case: an arm64 image QEMU boots at EL1 from -kernel, which
 * gdb_limits.py stops twice in `leaf`.
 *   1. pac-unstripped: leaf called by `signs`, a pac-ret function (paciasp, the return address
 *      signed on the stack): gdb takes the signed return address into _start for a PC, PAC bits
 *      and all, and stops there.
 *   2. entry-outermost: leaf called by `entry`, whose CFI leaves the return address undefined as
 *      exception entry code's does: gdb calls it outermost, though _start called it.
 *   3. entry-no-cfi: leaf called by `nocfi`, entry code without CFI (as gas-v1's arm64 kernels'),
 *      entered from `interrupted` by a branch, as an exception enters: no link, x30 left holding
 *      `nowhere`. gdb guesses nocfi's caller from its prologue: `nowhere`. */
	.text
	.globl _start
_start:
	.cfi_startproc
	.cfi_undefined x30
	ldr x0, =stack_top
	mov sp, x0
	mrs x0, sctlr_el1
	orr x0, x0, #(1 << 31)            /* SCTLR_EL1.EnIA: paciasp signs with the A key */
	msr sctlr_el1, x0
	isb
	bl signs
	.globl after_signs
after_signs:
	bl entry
	.globl after_entry
after_entry:
	adr x30, nowhere                  /* what x30 holds when the "exception" comes */
	.globl interrupted
interrupted:
	b nocfi
	.cfi_endproc

	.globl nocfi
nocfi:                                    /* no CFI */
	sub sp, sp, #32
	stp x29, x30, [sp, #16]
	bl leaf
	.globl nocfi_end
nocfi_end:
1:	b 1b
	.globl nowhere
nowhere:
	b nowhere

	.type signs, %function
signs:
	.cfi_startproc
	paciasp
	.cfi_negate_ra_state
	stp x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset 29, -16
	.cfi_offset 30, -8
	bl leaf
	ldp x29, x30, [sp], #16
	.cfi_def_cfa_offset 0
	autiasp
	.cfi_negate_ra_state
	ret
	.cfi_endproc
	.size signs, . - signs

	.type entry, %function
	.globl entry
entry:
	.cfi_startproc
	.cfi_undefined x30
	stp x29, x30, [sp, #-16]!
	.cfi_def_cfa_offset 16
	bl leaf
	ldp x29, x30, [sp], #16
	ret
	.cfi_endproc
	.globl entry_end
entry_end:

	.type leaf, %function
	.globl leaf
leaf:
	.cfi_startproc
	nop
	ret
	.cfi_endproc

	.bss
	.balign 16
	.skip 4096
stack_top:
