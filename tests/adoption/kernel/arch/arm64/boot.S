/* tinyk arm64 boot: QEMU virt's -kernel enters _start at EL1, MMU off, at the ELF's load
 * address. TINYK_EL1H: the kernel runs on SP_EL1, where exceptions land too (EL1h). Otherwise
 * the kernel runs on SP_EL0 (EL1t) and exceptions get SP_EL1, a stack of their own. */

	.section .text.entry, "ax"
	.globl _start
	.type _start, %function
_start:
	.cfi_startproc
	msr daifset, #0xf              /* no interrupts: this kernel only takes its own fault */
	adr x0, vectors
	msr vbar_el1, x0

	adrp x0, __bss_start           /* C expects .bss zeroed */
	add x0, x0, :lo12:__bss_start
	adrp x1, __bss_end
	add x1, x1, :lo12:__bss_end
0:	cmp x0, x1
	b.hs 1f
	stp xzr, xzr, [x0], #16
	b 0b
1:
#ifdef TINYK_EL1H
	adrp x0, kstack_hi             /* SPSel stays 1: kernel and exceptions on SP_EL1 */
	add sp, x0, :lo12:kstack_hi
#else
	adrp x0, exc_stack_hi          /* SP_EL1: the exception stack */
	add sp, x0, :lo12:exc_stack_hi
	adrp x0, kstack_hi             /* SP_EL0: the kernel's stack */
	add x0, x0, :lo12:kstack_hi
	msr sp_el0, x0
	msr spsel, #0                  /* run on SP_EL0 from here: EL1t */
#endif
	isb

	/* porting.md: arm64-outermost-frame begin */
	/* The outermost frame: a walk must end here, reliably. Push a zero frame record at the
	 * very top of the stack and describe it as _start's saved x29/x30: the walker then reads
	 * a return address of 0 at the top of a stack, its clean end. (gas 2.40 drops
	 * .cfi_undefined x30 from its SFrame, so the record is what ends a gas-path walk; `sfu gen`
	 * honours .cfi_undefined, so the gen path would need only that.) */
	stp xzr, xzr, [sp, #-16]!
	.cfi_def_cfa_offset 16
	.cfi_offset x29, -16
	.cfi_offset x30, -8
	mov x29, sp                    /* frame-pointer walkers end at the same record */
	bl kernel_main
	/* porting.md: arm64-outermost-frame end */
	b .                            /* kernel_main does not return */
	.cfi_endproc
	.size _start, . - _start

	.section .bss.stacks, "aw", %nobits
	.balign 16
	.globl kstack_lo, kstack_hi, exc_stack_lo, exc_stack_hi
exc_stack_lo:
	.skip 8192
exc_stack_hi:
	.skip 4096                     /* a gap: no address is in both stacks */
kstack_lo:
	.skip 16384
kstack_hi:
