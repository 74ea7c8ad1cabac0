/* The x86_64 reloc kernel's layout (scenario 11, common/reloc.h), run through the C preprocessor
 * with RELOC_LINK_BASE. Linked -pie --no-dynamic-linker: kernel.lds.S's layout, with what a
 * position-independent link adds (.rela.dyn, which reloc_move applies to the copy; the dynamic
 * section and symbols, which nothing reads) in the data segment, and the symbols reloc_move and
 * reloc/boot.S need: __reloc_image_start .. __reloc_load_end is copied, .. __reloc_image_end is the
 * room the copy takes (the boot count and the crash area included). */
OUTPUT_FORMAT("elf64-x86-64")
ENTRY(pvh_start32)

PHDRS
{
	text PT_LOAD FLAGS(5);
	data PT_LOAD FLAGS(6);
	note PT_NOTE;
	dynamic PT_DYNAMIC;
}

SECTIONS
{
	. = RELOC_LINK_BASE;
	__reloc_image_start = .;
	.boot32 : { *(.boot32) } :text
	.note.pvh : { KEEP(*(.note.pvh)) } :text :note
	.text : ALIGN(4096) {
		_stext = .;
		*(.text .text.*)
		_etext = .;
	} :text
	.rodata : ALIGN(16) { *(.rodata .rodata.*) }
	.fixup_table : ALIGN(8) {
		__fixup_start = .;
		KEEP(*(.fixup_table))
		__fixup_end = .;
	}
	INCLUDE sfunwind-reserve.ld
	.eh_frame : ALIGN(8) { KEEP(*(.eh_frame)) }
	.dynsym : ALIGN(8) { *(.dynsym) }
	.dynstr : { *(.dynstr) }
	.hash : ALIGN(8) { *(.hash) }
	.gnu.hash : ALIGN(8) { *(.gnu.hash) }
	.rela.dyn : ALIGN(8) { *(.rela.dyn) *(.rela.*) }
	__rela_start = ADDR(.rela.dyn);
	__rela_end = ADDR(.rela.dyn) + SIZEOF(.rela.dyn);
	.data.rel.ro : ALIGN(4096) { *(.data.rel.ro .data.rel.ro.*) } :data
	.dynamic : ALIGN(8) { *(.dynamic) } :data :dynamic
	.got : ALIGN(8) { *(.got) *(.got.plt) } :data
	.data : ALIGN(16) { *(.data .data.*) }
	. = ALIGN(8);
	__reloc_load_end = .;
	.bss : ALIGN(4096) {
		__bss_start = .;
		*(.bss .bss.* COMMON)
		. = ALIGN(8);
		__bss_end = .;
	}
	.noinit (NOLOAD) : ALIGN(4096) { KEEP(*(.noinit .noinit.*)) } :NONE
	INCLUDE sfunwind-crash.ld
	__reloc_image_end = .;
	/* reloc/boot.S's PVH note and first stack take the entry to be here. */
	ASSERT(pvh_start32 == RELOC_LINK_BASE + 16, "pvh_start32 is not 16 bytes into the image")
	/DISCARD/ : { *(.note.GNU-stack) *(.note.gnu.property) *(.comment) *(.interp) }
}
