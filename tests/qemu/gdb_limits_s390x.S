/* The s390x gdb limitation the every-instruction oracle names (tests/qemu/README.md, "What gdb
 * cannot vouch for") on its minimal case, which gdb_limits.py stops at `in_fpr_ra`:
 *   ra-in-fpr: fpr_ra keeps its return address in f1 (the CFI says "r14 in f1", as gcc does in
 *   s390x leaves), and gdb cannot make even the frame it stopped in. */
	.text
	.globl _start
_start:
	.cfi_startproc
	.cfi_undefined %r14
	larl %r15, stack_top
	aghi %r15, -160
	stctg %c0, %c0, 0(%r15)
	oi 5(%r15), 0x04                  /* CR0 bit 45: the AFP registers, f1 among them */
	lctlg %c0, %c0, 0(%r15)
	brasl %r14, fpr_ra
0:	j 0b
	.cfi_endproc

	.globl fpr_ra
	.type fpr_ra, @function
fpr_ra:
	.cfi_startproc
	ldgr %f1, %r14
	.cfi_register 14, 20
	lghi %r14, 0
	.globl in_fpr_ra
in_fpr_ra:
	lgdr %r14, %f1
	.cfi_restore 14
	br %r14
	.cfi_endproc

	.bss
	.balign 8
	.skip 4096
stack_top:
