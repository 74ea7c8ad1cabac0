/* Boot: QEMU's -kernel loads this ELF64 image as a PVH kernel (the Xen PVH ELF note below names
 * the 32-bit entry point) and enters pvh_start32 in 32-bit protected mode, paging off. It maps
 * memory, enters long mode and calls kernel_main on the task stack from _start, the outermost
 * frame of every trace. */
#include "x86.h"

#define XEN_ELFNOTE_PHYS32_ENTRY 18
#define CR0_PE (1 << 0)
#define CR0_WP (1 << 16)
#define CR0_PG (1 << 31)
#define CR4_PAE (1 << 5)
#define MSR_EFER 0xc0000080
#define EFER_LME (1 << 8)
#define PTE_P 0x1
#define PTE_W 0x2
#define PTE_PWT 0x8
#define PTE_PCD 0x10
#define PTE_PS 0x80

	.pushsection .note.pvh, "a", @note
	.balign 4
	.long 4                           /* name size: "Xen" */
	.long 4                           /* descriptor size */
	.long XEN_ELFNOTE_PHYS32_ENTRY
	.asciz "Xen"
	.long pvh_start32
	.popsection

/* 32-bit code, outside [_stext, _etext): no walk ever sees it (an x86_64 table could not
 * describe it anyway). */
	.section .boot32, "ax"
	.code32
	.globl pvh_start32
pvh_start32:
	cld
	movl $__bss_start, %edi           /* zero .bss: the stacks and everything C expects zeroed */
	movl $__bss_end, %ecx
	subl %edi, %ecx
	xorl %eax, %eax
	rep stosb
	movl $pml4, %eax
	movl %eax, %cr3
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME, %eax
	wrmsr
	movl %cr0, %eax
	orl $(CR0_PG | CR0_WP | CR0_PE), %eax
	movl %eax, %cr0                   /* long mode, still running 32-bit code */
	lgdt boot_gdt_ptr
	ljmp $KERNEL_CS, $_start          /* into 64-bit code */

	.code64
	.text
	.globl _start
	.type _start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip                /* the outermost frame: a walk ends here */
	movl $KERNEL_DS, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	xorl %eax, %eax
	movl %eax, %fs
	movl %eax, %gs
	/* The CFA is RSP + 8 all along (the default rule). Below the 16-byte-aligned call, a zero
	 * where a return address would be: walkers that ignore the undefined RA (SFrame V1 from gas
	 * 2.40 has no way to say it) read 0 there and stop cleanly too. */
	leaq task_stack + TASK_STACK_SIZE - 16(%rip), %rsp
	movq $0, (%rsp)
	xorl %ebp, %ebp
	call kernel_main
1:	cli                               /* kernel_main does not return */
	hlt
	jmp 1b
	.cfi_endproc
	.size _start, . - _start

/* The GDT until cpu_init installs the full one (same first three entries). */
	.section .rodata
	.balign 8
boot_gdt:
	.quad 0
	.quad 0x00af9a000000ffff          /* KERNEL_CS: 64-bit code */
	.quad 0x00cf92000000ffff          /* KERNEL_DS: data */
boot_gdt_end:
boot_gdt_ptr:
	.word boot_gdt_end - boot_gdt - 1
	.long boot_gdt

/* Identity map: 0-1 GiB (the first 2 MiB in 4 KiB pages, page 0 not present so that a NULL
 * dereference faults), and 3-4 GiB uncached for the local APIC. */
	.section .data.pagetables, "aw"
	.balign 4096
pml4:
	.quad pdpt + PTE_P + PTE_W
	.fill 511, 8, 0
pdpt:
	.quad pd_low + PTE_P + PTE_W
	.quad 0
	.quad 0
	.quad pd_high + PTE_P + PTE_W
	.fill 508, 8, 0
pd_low:
	.quad pt_low + PTE_P + PTE_W
	.set addr, 0x200000
	.rept 511
	.quad addr + PTE_P + PTE_W + PTE_PS
	.set addr, addr + 0x200000
	.endr
pd_high:
	.set addr, 0xc0000000
	.rept 512
	.quad addr + PTE_P + PTE_W + PTE_PWT + PTE_PCD + PTE_PS
	.set addr, addr + 0x200000
	.endr
	.globl pt_low                     /* cpu.c unmaps guard pages in it */
pt_low:
	.quad 0
	.set addr, 0x1000
	.rept 511
	.quad addr + PTE_P + PTE_W
	.set addr, addr + 0x1000
	.endr

	.section .note.GNU-stack, "", @progbits
