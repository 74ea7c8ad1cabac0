/* The x86_64 test kernel's layout: loaded and run at 1 MiB, identity-mapped (boot.S).
 * Preprocessed per variant: SFU_TABLE_GENERATED reserves the table `sfu gen` writes after the
 * link (linker/sfunwind-reserve.ld); otherwise the image keeps what gas wrote (sfunwind.ld). */
OUTPUT_FORMAT("elf64-x86-64")
ENTRY(_start)

/* Code and read-only data in one segment, writable data in another, the PVH note in a PT_NOTE
 * (where QEMU looks for it). Named, so that .noinit can lie in none: QEMU's loader writes every
 * PT_LOAD again on a reset, zeroes included. */
PHDRS
{
	text PT_LOAD FLAGS(5);
	data PT_LOAD FLAGS(6);
	note PT_NOTE;
}

SECTIONS
{
	. = 0x100000;
	.note.pvh : { KEEP(*(.note.pvh)) } :text :note
	.boot32 : { *(.boot32) } :text
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
	INCLUDE sfunwind-symbols.ld  /* names: sfu gen --symbols-only */
#endif
	.eh_frame : ALIGN(8) { KEEP(*(.eh_frame)) }  /* what sfu gen reads */
	.data : ALIGN(4096) { *(.data .data.*) } :data
	.bss : ALIGN(4096) {
		__bss_start = .;
		*(.bss .bss.* COMMON)
		__bss_end = .;
	}
	/* Memory a warm reset keeps (the crash scenario, tests/qemu/README.md): NOLOAD and in no
	 * segment, so neither the loader nor boot code writes it. Just above the image: SeaBIOS
	 * uses low memory and the top of RAM. */
	.noinit (NOLOAD) : ALIGN(4096) { KEEP(*(.noinit .noinit.*)) } :NONE
#ifdef SFU_CRASH_AREA
	/* The crash kernels' record area, in no segment either. */
	INCLUDE sfunwind-crash.ld
#endif
	/DISCARD/ : { *(.note.GNU-stack) *(.note.gnu.property) *(.comment) }
}
