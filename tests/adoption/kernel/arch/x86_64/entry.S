/* tinyk x86_64 trap entry: the #UD entry saves a struct trap_frame (traps.c) and calls C.
 * No CFI: walks start from the saved registers, never inside this code. */

	.text
/* porting.md: x86_64-trap-entry begin */
/* #UD: the CPU pushed SS, RSP, RFLAGS, CS, RIP on the current stack (a fault in the kernel,
 * no IST: no stack switch), RSP being the interrupted one. Push what it did not save, so that
 * the C handler gets one struct trap_frame: the general registers, vector, error code, then
 * the CPU's five. */
	.globl x86_ud_entry
x86_ud_entry:
	pushq $0                       /* error code: #UD has none, keep the layout uniform */
	pushq $6                       /* vector */
	pushq %rax
	pushq %rcx
	pushq %rdx
	pushq %rbx
	pushq %rbp                     /* the interrupted frame pointer */
	pushq %rsi
	pushq %rdi
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	cld                            /* the ABI's direction flag, for C */
	movq %rsp, %rdi                /* x86_trap(struct trap_frame *): 16-byte aligned here */
	call x86_trap
1:	hlt                            /* it does not return */
	jmp 1b
/* porting.md: x86_64-trap-entry end */

	.globl x86_unexpected_entry
x86_unexpected_entry:
	movl $2, %eax                  /* any other exception: leave QEMU with a failure */
	outl %eax, $0xf4
1:	hlt
	jmp 1b
