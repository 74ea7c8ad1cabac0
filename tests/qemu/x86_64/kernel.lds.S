/* The x86_64 test kernel's layout: loaded and run at 1 MiB, identity-mapped (boot.S).
 * Preprocessed per variant: SFU_TABLE_GENERATED reserves the table `sfu gen` writes after the
 * link (linker/sfunwind-reserve.ld); otherwise the image keeps what gas wrote (sfunwind.ld). */
OUTPUT_FORMAT("elf64-x86-64")
ENTRY(_start)

SECTIONS
{
	. = 0x100000;
	.note.pvh : { KEEP(*(.note.pvh)) }
	.boot32 : { *(.boot32) }
	.text : ALIGN(4096) {
		_stext = .;
		*(.text .text.*)
		_etext = .;
	}
	.rodata : ALIGN(16) { *(.rodata .rodata.*) }
	.fixup_table : ALIGN(8) {
		__fixup_start = .;
		KEEP(*(.fixup_table))
		__fixup_end = .;
	}
#ifdef SFU_TABLE_GENERATED
	INCLUDE sfunwind-reserve.ld
#else
	INCLUDE sfunwind.ld
#endif
	.eh_frame : ALIGN(8) { KEEP(*(.eh_frame)) }  /* what sfu gen reads */
	.data : ALIGN(4096) { *(.data .data.*) }
	.bss : ALIGN(4096) {
		__bss_start = .;
		*(.bss .bss.* COMMON)
		__bss_end = .;
	}
	/DISCARD/ : { *(.note.GNU-stack) *(.note.gnu.property) *(.comment) }
}
