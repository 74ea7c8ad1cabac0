/* s390x test kernel, scenario 6: functions that keep their return address in floating-point
 * register f1 (DWARF 20: 16-31 are f0 f2 f4 f6 f1 f3 f5 f7 f8 f10 f12 f14 f9 f11 f13 f15), as
 * gcc does for leaves on z/Architecture when it runs short of registers. f1 is an additional
 * floating-point register: boot.S turns on CR0's AFP bit. The rest of the kernel is built with
 * -msoft-float, so no callee touches f1. */

	.text

/* A leaf that faults with its return address only in f1: the topmost frame may use it. */
	.globl fpr_leaf_fault
	.type fpr_leaf_fault, @function
fpr_leaf_fault:
	.cfi_startproc
	ldgr %f1, %r14
	.cfi_register 14, 20
	lghi %r14, 0                  /* r14 no longer holds it: only f1 does */
0:	.short 0x0000                 /* operation exception; the handler resumes at 1: */
1:	lgdr %r14, %f1
	.cfi_restore 14
	br %r14
	.cfi_endproc
	.size fpr_leaf_fault, .-fpr_leaf_fault
	.pushsection __ex_table, "a"
	.balign 8
	.quad 0b, 1b
	.popsection

/* Keeps its return address in f1 and calls fault_operation: below the topmost frame a register
 * rule cannot be followed (the register's value then is not known), so the walk stops here. */
	.globl fpr_mid
	.type fpr_mid, @function
fpr_mid:
	.cfi_startproc
	ldgr %f1, %r14
	.cfi_register 14, 20
	lay %r15, -160(%r15)
	.cfi_adjust_cfa_offset 160
	brasl %r14, fault_operation
	lay %r15, 160(%r15)
	.cfi_adjust_cfa_offset -160
	lgdr %r14, %f1
	.cfi_restore 14
	br %r14
	.cfi_endproc
	.size fpr_mid, .-fpr_mid

	.section .note.GNU-stack, "", @progbits
