/* How the other CPUs start (start.c): INIT, then STARTUP IPIs with vector TRAMPOLINE >> 12
 * start a CPU in real mode at TRAMPOLINE:0 (CS = TRAMPOLINE >> 4, IP = 0). start.c copies
 * ap_trampoline there first (it is written for that address: every absolute address below is
 * TRAMPOLINE + its offset) and fills in CR3 and the CPU's stack and index. The trampoline loads
 * its own GDT, enters protected mode, turns on PAE, the kernel's page tables (tr_cr3), long mode
 * and paging, and jumps far into 64-bit code: ap_entry64, in the kernel's text, which sets up
 * the CPU's outermost frame on its own task stack and calls secondary_main(index). */
#include "x86.h"

#define AT(label) (TRAMPOLINE + (label) - ap_trampoline)
#define TR_CS64 0x08
#define TR_DS 0x10
#define TR_CS32 0x18

	.section .rodata.trampoline, "a"
	.globl ap_trampoline, ap_trampoline_end, ap_trampoline_cr3
	.balign 16
	.code16
ap_trampoline:
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	lgdtl tr_gdt_ptr - ap_trampoline
	movl %cr0, %eax
	orl $1, %eax                      /* PE */
	movl %eax, %cr0
	ljmpl $TR_CS32, $AT(tr_pm32)

	.code32
tr_pm32:
	movw $TR_DS, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $0x20, %eax                   /* PAE */
	movl %eax, %cr4
	movl AT(tr_cr3), %eax
	movl %eax, %cr3
	movl $0xc0000080, %ecx            /* EFER.LME */
	rdmsr
	orl $0x100, %eax
	wrmsr
	movl %cr0, %eax
	orl $0x80010001, %eax             /* PG, WP, PE */
	movl %eax, %cr0
	ljmp *AT(tr_entry)

	.balign 8
tr_gdt:
	.quad 0
	.quad 0x00af9a000000ffff          /* TR_CS64 = KERNEL_CS: 64-bit code */
	.quad 0x00cf92000000ffff          /* TR_DS = KERNEL_DS */
	.quad 0x00cf9a000000ffff          /* TR_CS32: 32-bit code */
tr_gdt_end:
tr_gdt_ptr:
	.word tr_gdt_end - tr_gdt - 1
	.long AT(tr_gdt)
	.balign 4
ap_trampoline_cr3:
tr_cr3:
	.long 0
tr_entry:
	.long ap_entry64
	.word TR_CS64
ap_trampoline_end:

	.code64
	.text
	.globl ap_entry64
	.type ap_entry64, @function
ap_entry64:
	.cfi_startproc
	.cfi_undefined rip                /* the outermost frame of this CPU */
	movl $KERNEL_DS, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	xorl %eax, %eax
	movl %eax, %fs
	movl %eax, %gs
	movq ap_boot_stack(%rip), %rsp    /* this CPU's task stack top, 16-byte aligned */
	subq $16, %rsp
	movq $0, (%rsp)                   /* as _start: a zero where a return address would be */
	xorl %ebp, %ebp
	movl ap_boot_cpu(%rip), %edi
	call secondary_main
1:	cli
	hlt
	jmp 1b
	.cfi_endproc
	.size ap_entry64, . - ap_entry64

	.section .note.GNU-stack, "", @progbits
