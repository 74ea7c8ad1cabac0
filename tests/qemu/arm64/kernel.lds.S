/* The arm64 test kernel's layout, run through the C preprocessor: SFU_TABLE_LD names the linker
 * fragment (sfunwind.ld for gas-written tables, sfunwind-reserve.ld for `sfu gen`). QEMU's
 * -kernel loads each segment at its physical address; RAM starts at 0x40000000 on virt. */
OUTPUT_FORMAT("elf64-littleaarch64")
OUTPUT_ARCH(aarch64)
ENTRY(_start)

/* One segment for the whole image, named, so that .noinit can lie in none: QEMU's loader writes
 * every PT_LOAD again on a reset, zeroes included. */
PHDRS
{
    image PT_LOAD FLAGS(7);
}

SECTIONS
{
    . = 0x40080000;
    .text : {
        _stext = .;
        *(.text.boot)
        *(.text.vectors)    /* aligned to 2 KiB by vectors.S, as VBAR_EL1 needs */
        *(.text .text.*)
        _etext = .;
    } :image
    .rodata : ALIGN(16) { *(.rodata .rodata.*) }
    /* Loads that may abort and where each resumes (arm64.h: FIXUP). */
    .fixup_table : ALIGN(8) {
        __fixup_start = .;
        KEEP(*(.fixup_table))
        __fixup_end = .;
    }
    INCLUDE SFU_TABLE_LD
#ifdef SFU_GAS_TABLE
    INCLUDE sfunwind-symbols.ld  /* names: sfu gen --symbols-only (sfunwind-reserve.ld has them) */
#endif
    /* What `sfu gen` and `sfu verify` read; the kernel never does. */
    .eh_frame : ALIGN(8) { KEEP(*(.eh_frame)) }
    .data : ALIGN(16) { *(.data .data.*) }
    .bss : ALIGN(16) {
        __bss_start = .;
        *(.bss .bss.* COMMON)
        . = ALIGN(8);
        __bss_end = .;
    }
    /* The stacks, a page apart so that the top of one is not the bottom of the other. */
    .stacks (NOLOAD) : ALIGN(4096) {
        irq_stack_lo = .;
        . += 16384;
        irq_stack_hi = .;
        . += 4096;
        task_stack_lo = .;
        . += 32768;
        task_stack_hi = .;
    } :image  /* (ld would leave a section without input out of the segment) */
    /* Memory a warm reset keeps (the crash scenario, tests/qemu/README.md): NOLOAD and in no
     * segment, so neither the loader nor boot code writes it. */
    .noinit (NOLOAD) : ALIGN(4096) { KEEP(*(.noinit .noinit.*)) } :NONE
#ifdef SFU_CRASH_AREA
    /* The crash kernels' record area, in no segment either. */
    INCLUDE sfunwind-crash.ld
#endif
    /DISCARD/ : { *(.comment) *(.note .note.*) }
}
