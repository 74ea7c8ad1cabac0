/* The x86_64 reloc kernel's boot (scenario 11, common/reloc.h), in place of boot.S. QEMU's -kernel
 * loads the image as a PVH kernel at its link address (the PVH note below) and enters
 * pvh_start32 in 32-bit protected mode, paging off. It turns on paging with the image's page
 * tables as loaded (boot.S's), enters long mode at reloc_entry64, where reloc_move copies the
 * image to its place for this run's seed and relocates the copy, and jumps to the copy's _start,
 * which moves to the copy's page tables: the outermost frame of every trace, as boot.S's. A
 * reset (SeaBIOS and the PVH loader again, the image and the seed loaded afresh) repeats it all:
 * the same place. */
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

/* The 32-bit code first in the image, 16 bytes in (reloc/kernel.lds.S says so, and checks): a
 * 32-bit field may not hold a relocatable address in a position-independent image, so the PVH
 * note and the first stack are numbers. PVH loads the image at its link address, so they hold. */
#define BOOT32_ENTRY (RELOC_LINK_BASE + 16)

	.pushsection .note.pvh, "a", @note
	.balign 4
	.long 4                           /* name size: "Xen" */
	.long 4                           /* descriptor size */
	.long XEN_ELFNOTE_PHYS32_ENTRY
	.asciz "Xen"
	.long BOOT32_ENTRY
	.popsection

/* Outside [_stext, _etext), as boot.S's 32-bit code: no walk ever sees it. */
	.section .boot32, "ax"
	.code32
boot32_stack:
	.skip 16                          /* the one word pvh_start32's call pushes */
	.globl pvh_start32
pvh_start32:
	cld
	/* Where this code runs (call, pop): from there on every address is taken relative to it. */
	movl $BOOT32_ENTRY, %esp
	call 1f
1:	popl %ebp
	/* The page tables as loaded: their entries hold link-time addresses, which ld writes into
	 * the fields of a RELATIVE relocation too (x86_64), and the image is at its link address. */
	leal (pml4 - 1b)(%ebp), %ebx
	movl %ebx, %cr3
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
	/* The GDT's pointer holds its run-time address. */
	leal (boot_gdt - 1b)(%ebp), %eax
	movl %eax, (boot_gdt_ptr + 2 - 1b)(%ebp)
	lgdt (boot_gdt_ptr - 1b)(%ebp)
	pushl $KERNEL_CS                  /* into 64-bit code: a far return to reloc_entry64 */
	leal (reloc_entry64 - 1b)(%ebp), %eax
	pushl %eax
	lret

	.code64
reloc_entry64:
	movl $KERNEL_DS, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	leaq task_stack + TASK_STACK_SIZE(%rip), %rsp   /* the task stack as loaded */
	call reloc_move                   /* rax: from here to the copy */
	leaq _start(%rip), %rdx
	addq %rax, %rdx
	jmp *%rdx

	.text
	.globl _start
	.type _start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip                /* the outermost frame: a walk ends here */
	leaq pml4(%rip), %rax             /* the copy's own page tables, relocated with it */
	movq %rax, %cr3
	movl $KERNEL_DS, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	xorl %eax, %eax
	movl %eax, %fs
	movl %eax, %gs
	/* As boot.S's: RSP + 8 is the CFA all along, a zero where a return address would be. */
	leaq task_stack + TASK_STACK_SIZE - 16(%rip), %rsp
	movq $0, (%rsp)
	xorl %ebp, %ebp
	call kernel_main
1:	cli                               /* kernel_main does not return */
	hlt
	jmp 1b
	.cfi_endproc
	.size _start, . - _start

/* The GDT until cpu_init installs the full one (the same first three entries). */
	.section .data
	.balign 8
boot_gdt:
	.quad 0
	.quad 0x00af9a000000ffff          /* KERNEL_CS: 64-bit code */
	.quad 0x00cf92000000ffff          /* KERNEL_DS: data */
boot_gdt_end:
	.balign 8
boot_gdt_ptr:
	.word boot_gdt_end - boot_gdt - 1
	.long 0                           /* the base: pvh_start32 writes it */

/* boot.S's identity map: 0-1 GiB (the first 2 MiB in 4 KiB pages, page 0 not present), and 3-4
 * GiB uncached for the local APIC. The entries that point at the next level are relocated with
 * the image. */
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
	.globl pt_low                     /* cpu.c unmaps guard pages in it (not in this kernel) */
pt_low:
	.quad 0
	.set addr, 0x1000
	.rept 511
	.quad addr + PTE_P + PTE_W
	.set addr, addr + 0x1000
	.endr

	.section .note.GNU-stack, "", @progbits
