/* The arm64 reloc kernel's layout (scenario 11, common/reloc.h), run through the C preprocessor
 * with RELOC_LINK_BASE. Linked -pie --no-dynamic-linker: the layout of kernel.lds.S, with what a
 * position-independent link adds (.rela.dyn, which reloc_move applies to the copy, and the dynamic
 * section and symbols, which nothing reads) in the loaded segment, and the symbols reloc_move
 * needs: __reloc_image_start .. __reloc_load_end is copied, .. __reloc_image_end is the room the
 * copy takes (stacks, the boot count and the crash area included). */
OUTPUT_FORMAT("elf64-littleaarch64")
OUTPUT_ARCH(aarch64)
ENTRY(reloc_start)

PHDRS
{
    image PT_LOAD FLAGS(7);
    dynamic PT_DYNAMIC;
}

SECTIONS
{
    . = RELOC_LINK_BASE;
    __reloc_image_start = .;
    .text : {
        _stext = .;
        *(.text.reloc)      /* the entry, reloc/start.S */
        *(.text.boot)
        *(.text.vectors)    /* aligned to 2 KiB by vectors.S, as VBAR_EL1 needs */
        *(.text .text.*)
        _etext = .;
    } :image
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
    .data.rel.ro : ALIGN(16) { *(.data.rel.ro .data.rel.ro.*) }
    .dynamic : ALIGN(8) { *(.dynamic) } :image :dynamic
    .got : ALIGN(8) { *(.got) *(.got.plt) } :image
    .data : ALIGN(16) { *(.data .data.*) }
    . = ALIGN(8);
    __reloc_load_end = .;
    .bss : ALIGN(16) {
        __bss_start = .;
        *(.bss .bss.* COMMON)
        . = ALIGN(8);
        __bss_end = .;
    }
    .stacks (NOLOAD) : ALIGN(4096) {
        irq_stack_lo = .;
        . += 16384;
        irq_stack_hi = .;
        . += 4096;
        task_stack_lo = .;
        . += 32768;
        task_stack_hi = .;
    } :image
    .noinit (NOLOAD) : ALIGN(4096) { KEEP(*(.noinit .noinit.*)) } :NONE
    INCLUDE sfunwind-crash.ld
    __reloc_image_end = .;
    /DISCARD/ : { *(.comment) *(.note .note.*) *(.interp) }
}
