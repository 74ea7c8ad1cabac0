/* tinyk arm64 exception vectors. Each synchronous entry saves a struct trap_frame (traps.c):
 *   x0..x30 at 0..240, the interrupted SP at 248, ELR_EL1 at 256, ESR_EL1 at 264; 272 bytes.
 * No CFI here: no walk passes through this code (walks start from the saved registers). */
#define TRAP_FRAME_SIZE 272

	.macro vector_slot target
	.balign 0x80
	b \target
	.endm

	.text
	.balign 0x800
	.globl vectors
vectors:
	vector_slot el1t_sync          /* current EL, SP_EL0: synchronous */
	vector_slot unexpected_vector  /* IRQ, FIQ, SError: masked, never expected */
	vector_slot unexpected_vector
	vector_slot unexpected_vector
	vector_slot el1h_sync          /* current EL, SP_EL1: synchronous */
	vector_slot unexpected_vector
	vector_slot unexpected_vector
	vector_slot unexpected_vector
	.rept 8                        /* lower ELs: this kernel has none */
	vector_slot unexpected_vector
	.endr

	.macro save_x0_to_x29
	stp x0, x1, [sp, #16 * 0]
	stp x2, x3, [sp, #16 * 1]
	stp x4, x5, [sp, #16 * 2]
	stp x6, x7, [sp, #16 * 3]
	stp x8, x9, [sp, #16 * 4]
	stp x10, x11, [sp, #16 * 5]
	stp x12, x13, [sp, #16 * 6]
	stp x14, x15, [sp, #16 * 7]
	stp x16, x17, [sp, #16 * 8]
	stp x18, x19, [sp, #16 * 9]
	stp x20, x21, [sp, #16 * 10]
	stp x22, x23, [sp, #16 * 11]
	stp x24, x25, [sp, #16 * 12]
	stp x26, x27, [sp, #16 * 13]
	stp x28, x29, [sp, #16 * 14]
	.endm

/* porting.md: arm64-el1t-entry begin */
/* EL1t: the kernel runs on SP_EL0; the CPU switched to SP_EL1 (the exception stack) for this
 * exception, so the interrupted SP is SP_EL0, not anything on this stack. */
el1t_sync:
	sub sp, sp, #TRAP_FRAME_SIZE
	save_x0_to_x29                 /* x29: the interrupted frame pointer */
	mrs x0, sp_el0                 /* the interrupted SP */
	stp x30, x0, [sp, #16 * 15]    /* x30: the interrupted LR (a leaf's return address) */
	mrs x0, elr_el1                /* the interrupted PC */
	mrs x1, esr_el1
	stp x0, x1, [sp, #16 * 16]
	mov x0, sp                     /* arm64_sync_trap(struct trap_frame *) */
	bl arm64_sync_trap             /* with a link: a walk inside C comes back out here */
	b .                            /* it does not return */
/* porting.md: arm64-el1t-entry end */

/* porting.md: arm64-el1h-entry begin */
/* EL1h: the kernel and its exceptions share SP_EL1, so the frame goes on the interrupted
 * code's own stack, below its frames, and the interrupted SP is the SP before this frame. */
el1h_sync:
	sub sp, sp, #TRAP_FRAME_SIZE
	save_x0_to_x29
	add x0, sp, #TRAP_FRAME_SIZE   /* the interrupted SP */
	stp x30, x0, [sp, #16 * 15]
	mrs x0, elr_el1
	mrs x1, esr_el1
	stp x0, x1, [sp, #16 * 16]
	mov x0, sp
	/* No link, as many tutorials do. Walking from the saved registers (tinyk does) is not
	 * affected. A walk started inside C (sfu_capture_here) would be: C's return address is
	 * then the interrupted x30, not an address in this code, so the walker cannot cross
	 * this frame as a sfu_trap_entry. Use `bl` for that. */
	b arm64_sync_trap
/* porting.md: arm64-el1h-entry end */

unexpected_vector:
	mov x0, #2
	b machine_exit
