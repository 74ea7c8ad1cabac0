/* Interrupt and exception entry: one 16-byte stub per vector, then trap_common, which saves the
 * general registers and calls trap_dispatch(struct trap_frame *) (x86.h) with RSP pointing at
 * them. The walker crosses this code through the trap layout in walk.c: everything between
 * trap_entry_start and trap_entry_end.
 *
 * CFI: at each point the CFA is the address just above the CPU's frame (RIP, CS, RFLAGS, RSP,
 * SS), which holds the interrupted RIP at CFA - 40 and RSP at CFA - 16; the general registers
 * are described as they are pushed. SFrame has the return address at CFA - 8 on x86_64, so no
 * table row can say this: sfu gen leaves these functions out (gas 2.40 writes rows for them
 * anyway, with the return address at CFA - 8: wrong, and `sfu verify` says so). Walks never use
 * those rows: a PC in the entry code is crossed by the trap layout before any row is looked up. */
#include "x86.h"

/* Vectors for which the CPU pushes an error code. */
#define HAS_ERROR(v) ((v) == 8 || ((v) >= 10 && (v) <= 14) || (v) == 17 || (v) == 21 || \
		      (v) == 29 || (v) == 30)

	.text
	.balign 16
	.globl trap_entry_start
trap_entry_start:

	.globl vector_stubs
vector_stubs:
	.set vec, 0
	.rept 256
	.balign 16
	.cfi_startproc simple
	.cfi_signal_frame
	.if HAS_ERROR(vec)
	.cfi_def_cfa %rsp, 6 * 8
	.else
	.cfi_def_cfa %rsp, 5 * 8
	.endif
	.cfi_offset %rip, -5 * 8
	.cfi_offset %rsp, -2 * 8
	.if !HAS_ERROR(vec)
	pushq $0                          /* the same frame shape for every vector */
	.cfi_adjust_cfa_offset 8
	.endif
	pushq $vec
	.cfi_adjust_cfa_offset 8
	jmp trap_common
	.cfi_endproc
	.set vec, vec + 1
	.endr

	.balign 16
	.type trap_common, @function
trap_common:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa %rsp, 7 * 8          /* vector and error code, then the CPU's frame */
	.cfi_offset %rip, -5 * 8
	.cfi_offset %rsp, -2 * 8
	.irp reg, rax, rbx, rcx, rdx, rsi, rdi, rbp, r8, r9, r10, r11, r12, r13, r14, r15
	pushq %\reg
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset %\reg, 0
	.endr
	cld
	movq %rsp, %rdi                   /* 22 words pushed on a 16-aligned RSP: still aligned */
	call trap_dispatch
	.globl trap_dispatch_return
trap_dispatch_return:                     /* trap_dispatch's return address (step.c) */
	.irp reg, r15, r14, r13, r12, r11, r10, r9, r8, rbp, rdi, rsi, rdx, rcx, rbx, rax
	popq %\reg
	.cfi_adjust_cfa_offset -8
	.cfi_restore %\reg
	.endr
	addq $16, %rsp                    /* vector and error code */
	.cfi_adjust_cfa_offset -16
	iretq
	.cfi_endproc
	.size trap_common, . - trap_common

	.globl trap_entry_end
trap_entry_end:

	.section .note.GNU-stack, "", @progbits
