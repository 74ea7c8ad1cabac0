/* tinyk s390x boot. QEMU's -kernel loads the ELF and starts _start in 64-bit mode, DAT off,
 * interrupts masked, prefix 0 (so the lowcore is at absolute 0). */

/* The lowcore (z/Architecture assigned storage). */
#define LC_PGM_ILC 0x8c                /* program check: ILC halfword, then the code halfword */
#define LC_PGM_OLD_PSW 0x150
#define LC_PGM_NEW_PSW 0x1d0
#define LC_SAVE_AREA 0x200             /* free for the OS: the entry's register save */
#define STACK_FRAME_OVERHEAD 160       /* the ABI's register save area below every call */
#define TRAP_FRAME_SIZE 160            /* struct trap_frame (traps.c), rounded up to 8 */

	.section .text.entry, "ax"
	.globl _start
	.type _start, @function
_start:
	.cfi_startproc
	larl %r1, __bss_start          /* zero .bss: the stacks live there */
	larl %r2, __bss_end
0:	clgr %r1, %r2
	jhe 1f
	mvghi 0(%r1), 0
	aghi %r1, 8
	j 0b
1:	larl %r1, pgm_new_psw          /* program checks go to pgm_entry, in 64-bit mode */
	mvc LC_PGM_NEW_PSW(16), 0(%r1)

	/* porting.md: s390x-outermost-frame begin */
	/* The outermost frame. The return address register %r14 is undefined here: `sfu gen`
	 * writes that as an outermost row and a walk ends at _start cleanly. (s390x tables
	 * come from `sfu gen`; gas 2.40 writes no s390x SFrame.) The stack starts at its very top,
	 * less the 160-byte save area the ABI gives every callee, so the CFA of kernel_main is the
	 * stack's top. */
	.cfi_undefined %r14
	larl %r15, kstack_hi
	aghi %r15, -STACK_FRAME_OVERHEAD
	brasl %r14, kernel_main
	/* porting.md: s390x-outermost-frame end */
	j .                            /* kernel_main does not return */
	.cfi_endproc
	.size _start, . - _start

/* porting.md: s390x-program-check-entry begin */
/* Program check: the CPU stored the interrupted PSW at LC_PGM_OLD_PSW and the interruption code
 * at LC_PGM_ILC, and loaded the new PSW, which points here; the registers are still the
 * interrupted ones. Save them in the lowcore first (no register is free yet), switch to the
 * exception stack, copy registers, old PSW and code into a struct trap_frame above the ABI's
 * 160-byte save area, and call C with it. */
pgm_entry:
	stmg %r0, %r15, LC_SAVE_AREA
	larl %r15, exc_stack_hi
	aghi %r15, -(STACK_FRAME_OVERHEAD + TRAP_FRAME_SIZE)
	mvc STACK_FRAME_OVERHEAD(128, %r15), LC_SAVE_AREA        /* r0..r15; r15: interrupted SP */
	mvc STACK_FRAME_OVERHEAD + 128(16, %r15), LC_PGM_OLD_PSW  /* mask, address */
	mvc STACK_FRAME_OVERHEAD + 144(4, %r15), LC_PGM_ILC       /* ILC, code */
	xc 0(8, %r15), 0(%r15)         /* back chain 0: nothing above this frame on this stack */
	la %r2, STACK_FRAME_OVERHEAD(%r15)
	brasl %r14, s390x_program_check /* does not return */
	j .
/* porting.md: s390x-program-check-entry end */

	.section .rodata
	.balign 8
pgm_new_psw:
	.quad 0x0000000180000000       /* EA + BA: 64-bit addressing, everything masked */
	.quad pgm_entry

	.section .bss.stacks, "aw", @nobits
	.balign 4096
	.globl kstack_lo, kstack_hi, exc_stack_lo, exc_stack_hi
exc_stack_lo:
	.skip 8192
exc_stack_hi:
	.skip 4096                     /* a gap: no address is in both stacks */
kstack_lo:
	.skip 16384
kstack_hi:
