/* tinyk x86_64 boot. QEMU's -kernel boots an ELF64 image as a PVH guest: it reads the entry
 * point from the Xen note below and enters it in 32-bit protected mode, paging off. We build
 * static page tables mapping the first 1 GiB 1:1 with 2 MiB pages, switch to long mode and jump
 * to _start, the first 64-bit code and the outermost frame of every trace. */

#define KERNEL_CS 0x08
#define KERNEL_DS 0x10

	.section .note.pvh, "a", @note
	.balign 4
	.long 4, 4, 18                 /* name size, descriptor size, XEN_ELFNOTE_PHYS32_ENTRY */
	.asciz "Xen"
	.long pvh_entry

	.section .text.boot32, "ax"
	.code32
pvh_entry:
	cli
	lgdt gdt_descriptor
	movl $pml4, %eax
	movl %eax, %cr3
	movl %cr4, %eax
	orl $(1 << 5), %eax            /* CR4.PAE */
	movl %eax, %cr4
	movl $0xc0000080, %ecx         /* EFER */
	rdmsr
	orl $(1 << 8), %eax            /* EFER.LME */
	wrmsr
	movl %cr0, %eax
	orl $((1 << 31) | 1), %eax     /* CR0.PG | CR0.PE: long mode (compatibility) */
	movl %eax, %cr0
	ljmp $KERNEL_CS, $_start       /* the 64-bit code segment */

	.code64
	.section .text.entry, "ax"
	.globl _start
	.type _start, @function
_start:
	.cfi_startproc
	movl $KERNEL_DS, %eax
	movl %eax, %ds
	movl %eax, %es
	movl %eax, %ss
	movl $__bss_start, %edi        /* zero .bss (the stack is in it: before any push) */
	movl $__bss_end, %ecx
	subl %edi, %ecx
	xorl %eax, %eax
	rep stosb
	movq $kstack_hi, %rsp

	/* porting.md: x86_64-outermost-frame begin */
	/* The outermost frame: the walker ends a trace cleanly at a return address of 0 at the
	 * top of a stack. The CFI's entry rule (CFA = rsp + 8, return address at CFA - 8) already
	 * describes a pushed 0 as _start's return address, so one push makes _start look called
	 * from address 0, on every toolchain path (gas's SFrame V1 has no "undefined RA" row). */
	pushq $0
	xorl %ebp, %ebp                /* no frame-pointer chain beyond this point either */
	pushq %rbp                     /* keeps %rsp 16-byte aligned at the call, as the ABI wants */
	.cfi_adjust_cfa_offset 8
	call x86_trap_init
	call kernel_main
	/* porting.md: x86_64-outermost-frame end */
1:	hlt
	jmp 1b
	.cfi_endproc
	.size _start, . - _start

	.data
	.balign 4096
pml4:
	.quad pdpt + 0x3               /* present, writable */
	.fill 511, 8, 0
pdpt:
	.quad pd + 0x3
	.fill 511, 8, 0
pd:
	.set page, 0
	.rept 512
	.quad page + 0x83              /* present, writable, 2 MiB page */
	.set page, page + 0x200000
	.endr

	.balign 16
gdt:
	.quad 0                        /* null */
	.quad 0x00af9a000000ffff       /* 0x08: 64-bit code */
	.quad 0x00cf92000000ffff       /* 0x10: data */
gdt_descriptor:
	.word gdt_descriptor - gdt - 1
	.quad gdt

	.section .bss.stacks, "aw", @nobits
	.balign 16
	.globl kstack_lo, kstack_hi
kstack_lo:
	.skip 16384
kstack_hi:
