/* tinyk's memory layout, one script for every machine: run through the C preprocessor with
 * -DARCH_<arch> and -DSFU_LDS=<fragment> (the Makefile passes $(SFU_LDS) from sfu.mk). */
#if defined(ARCH_arm64)
#define LOAD_ADDRESS 0x40080000 /* virt: RAM starts at 0x40000000 */
#elif defined(ARCH_x86_64)
#define LOAD_ADDRESS 0x100000 /* 1 MiB, identity-mapped by boot.S */
#elif defined(ARCH_s390x)
#define LOAD_ADDRESS 0x20000 /* above the lowcore; QEMU treats an image at 0x10000 as Linux */
#endif

ENTRY(_start)

SECTIONS
{
	. = LOAD_ADDRESS;
#if defined(ARCH_x86_64)
	/* QEMU boots the image as a PVH kernel: the note names the 32-bit entry, whose code lies
	 * outside [_stext, _etext), where no walk goes. */
	.note.pvh : { KEEP(*(.note.pvh)) }
	.text.boot32 : { *(.text.boot32) }
	. = ALIGN(4096);
#endif
	.text : {
		_stext = .;
		KEEP(*(.text.entry))
		*(.text .text.*)
		_etext = .;
	}
	.rodata : { *(.rodata .rodata.*) }

	/* porting.md: linker-script begin */
	/* sfunwind's fragment: SFU_LDS is sfunwind-gas.ld (gas wrote the table: keep it, and
	 * reserve room for the names) or sfunwind-reserve.ld (reserve room for the table and the
	 * names `sfu gen` writes after the link). ld finds it through $(SFU_LDFLAGS), the -L given
	 * before -T. */
	INCLUDE SFU_LDS
	/* The CFI `sfu gen` reads on the gen path; never used at run time. */
	.eh_frame : { KEEP(*(.eh_frame)) }
	/* porting.md: linker-script end */

	. = ALIGN(4096);
	.data : { *(.data .data.*) }
	.bss : {
		__bss_start = .;
		*(.bss .bss.* COMMON)
		. = ALIGN(16);
		__bss_end = .;
	}
	/DISCARD/ : { *(.comment) *(.note.GNU-stack) *(.note.gnu.property) }
}
