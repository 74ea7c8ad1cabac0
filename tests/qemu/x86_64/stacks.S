/* The stacks, each above a guard page that cpu.c unmaps, so running off the bottom of one
 * faults instead of overwriting its neighbour. Sizes: x86.h. */
#include "x86.h"

#define GUARD .skip 4096

	.section .bss.stacks, "aw", @nobits
	.balign 4096
	GUARD
	.globl task_stack
task_stack:                               /* boot, kernel_main and every scenario */
	.skip TASK_STACK_SIZE
	GUARD
	.globl irq_stack
irq_stack:                                /* the timer interrupt (IST2) */
	.skip IRQ_STACK_SIZE
	GUARD
	.globl df_stack
df_stack:                                 /* the double fault (IST1) */
	.skip DF_STACK_SIZE
	GUARD
	.globl nmi_stack
nmi_stack:                                /* NMIs (IST3) */
	.skip NMI_STACK_SIZE
	GUARD
	.globl small_stack
small_stack:                              /* what the double-fault scenario overflows */
	.skip SMALL_STACK_SIZE

	.section .note.GNU-stack, "", @progbits
