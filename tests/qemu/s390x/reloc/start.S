/* reloc_start: the s390x reloc kernel's entry (scenario 11, common/reloc.h). QEMU loads the image
 * at its link address and starts it here, 64-bit mode, DAT off, as it starts the other kernels'
 * _start. On a stack in the image as loaded, reloc_move copies the image to its place for this
 * run's seed and relocates the copy; then the copy's _start (boot.S) runs the crash kernel there.
 * Nothing here uses an absolute address: larl reaches the loaded image, and _start plus
 * reloc_move's answer the copy. A reset loads nothing on s390x: arch_reset (traps.c) points the
 * machine back here (reloc/reset.c), at the loaded image, which nothing wrote since, and the
 * seed's word is written again: the same place, the copy made afresh. First in the image
 * (reloc/kernel.ld). */
#include "s390x.h"

	.section .text.reloc, "ax", @progbits
	.globl reloc_start
	.type reloc_start, @function
reloc_start:
	.cfi_startproc
	.cfi_undefined %r14            /* no caller, and not in any trace: the copy's _start is */
	larl %r15, task_stack_hi
	aghi %r15, -STACK_FRAME_OVERHEAD
	brasl %r14, reloc_move         /* r2: from here to the copy */
	larl %r1, _start
	agr %r1, %r2
	br %r1
	.cfi_endproc
	.size reloc_start, .-reloc_start

	.section .note.GNU-stack, "", @progbits
