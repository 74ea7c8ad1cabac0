/* s390x test kernel: the first code and the stacks.
 * QEMU loads the ELF from -kernel and starts the CPU at its entry point in 64-bit mode, DAT off,
 * every interrupt masked, prefix 0. _start points the interrupt new PSWs at entry.S, turns on
 * the additional floating-point registers (entry.S saves all sixteen; scenario 6 keeps a return
 * address in f1), and calls kernel_main on the task stack. */
#include "s390x.h"

	.section .text.boot, "ax", @progbits
	.globl _start
	.type _start, @function
_start:
	.cfi_startproc
	.cfi_undefined %r14            /* the outermost frame: a walk ends here */
	/* Zero .bss: the first boot finds RAM zeroed, but a warm reset (arch_reset, traps.c) loads
	 * nothing and leaves .bss as the last boot did. */
	larl %r1, __bss_start
	larl %r2, __bss_end
	lghi %r0, 0
0:	clgr %r1, %r2
	jhe 1f
	stg %r0, 0(%r1)
	aghi %r1, 8
	j 0b
1:	larl %r1, irq_stack_hi         /* the stacks the entry code switches to (LC_*_STACK) */
	stg %r1, LC_IRQ_STACK
	larl %r1, exc_stack_hi
	stg %r1, LC_EXC_STACK
	larl %r1, rst_stack_hi
	stg %r1, LC_RST_STACK
	larl %r15, task_stack_hi
	aghi %r15, -STACK_FRAME_OVERHEAD
	xc 0(8,%r15), 0(%r15)          /* back chain 0, for debuggers */

	/* New PSWs: 64-bit mode, interrupts masked; program checks, external and restart
	 * interruptions go to entry.S, the others are not expected and stop in unexpected_entry. */
	llihl %r0, PSW_MASK_64 >> 32
	oilh %r0, (PSW_MASK_64 >> 16) & 0xffff
	larl %r1, pgm_entry
	stmg %r0, %r1, LC_PGM_NEW_PSW
	larl %r1, ext_entry
	stmg %r0, %r1, LC_EXT_NEW_PSW
	larl %r1, rst_entry
	stmg %r0, %r1, LC_RESTART_NEW_PSW
	larl %r1, unexpected_entry
	stmg %r0, %r1, LC_SVC_NEW_PSW
	stmg %r0, %r1, LC_MCCK_NEW_PSW
	stmg %r0, %r1, LC_IO_NEW_PSW

	stctg %c0, %c0, 8(%r15)
	oi 8+5(%r15), CR0_AFP >> 16    /* byte 5 holds bits 40-47 */
	lctlg %c0, %c0, 8(%r15)

	brasl %r14, kernel_main        /* does not return */
	lghi %r2, 1
	brasl %r14, arch_exit
	.cfi_endproc
	.size _start, .-_start

/* Stacks: the walker is told about each (arch_walk_config). 16 KiB apiece; the restart
 * interruption's (entry.S) 8 KiB. */
	.section .bss.stacks, "aw", @nobits
	.balign 4096
	.globl task_stack_lo, task_stack_hi, irq_stack_lo, irq_stack_hi, exc_stack_lo, exc_stack_hi
	.globl rst_stack_lo, rst_stack_hi
task_stack_lo:
	.skip 16384
task_stack_hi:
irq_stack_lo:
	.skip 16384
irq_stack_hi:
exc_stack_lo:
	.skip 16384
exc_stack_hi:
rst_stack_lo:
	.skip 8192
rst_stack_hi:

	.section .note.GNU-stack, "", @progbits
