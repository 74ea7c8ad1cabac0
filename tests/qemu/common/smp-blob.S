/* The module (smp-module.c, linked at MODULE_BASE) as flat bytes in the kernel's read-only data: the
 * kernel copies them to MODULE_BASE to load it. MODULE_BIN is the blob's path (kernel.mk). */
	.section .rodata.module_blob, "a"
	.p2align 4
	.globl module_blob, module_blob_end
module_blob:
	.incbin MODULE_BIN
module_blob_end:

	.section .note.GNU-stack, "", %progbits
