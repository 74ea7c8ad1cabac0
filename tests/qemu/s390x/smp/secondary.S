/* secondary_entry: where SIGP RESTART starts the other CPUs (main.c), through the restart new
 * PSW main.c put in the CPU's own lowcore (its prefix area): 64-bit mode, interrupts masked. The
 * same set-up as _start for one CPU: its task stack (LC_TASK_STACK, written by CPU 0 with the
 * entry code's LC_IRQ_STACK and LC_EXC_STACK), the additional floating-point registers, an
 * outermost frame; then secondary_main(CPU address), which never returns. */
#include "s390x.h"

	.text
	.globl secondary_entry
	.type secondary_entry, @function
secondary_entry:
	.cfi_startproc
	.cfi_undefined %r14            /* the outermost frame of this CPU */
	lg %r15, LC_TASK_STACK
	aghi %r15, -STACK_FRAME_OVERHEAD
	xc 0(8,%r15), 0(%r15)
	stctg %c0, %c0, 8(%r15)
	oi 8+5(%r15), CR0_AFP >> 16
	lctlg %c0, %c0, 8(%r15)
	stap 8(%r15)
	llgh %r2, 8(%r15)
	brasl %r14, secondary_main     /* does not return */
0:	j 0b
	.cfi_endproc
	.size secondary_entry, .-secondary_entry

	.section .note.GNU-stack, "", @progbits
