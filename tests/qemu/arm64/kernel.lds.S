/* The arm64 test kernel's layout, run through the C preprocessor: SFU_TABLE_LD names the linker
 * fragment (sfunwind.ld for gas-written tables, sfunwind-reserve.ld for `sfu gen`). QEMU's
 * -kernel loads each segment at its physical address; RAM starts at 0x40000000 on virt. */
OUTPUT_FORMAT("elf64-littleaarch64")
OUTPUT_ARCH(aarch64)
ENTRY(_start)

SECTIONS
{
    . = 0x40080000;
    .text : {
        _stext = .;
        *(.text.boot)
        *(.text.vectors)    /* aligned to 2 KiB by vectors.S, as VBAR_EL1 needs */
        *(.text .text.*)
        _etext = .;
    }
    .rodata : ALIGN(16) { *(.rodata .rodata.*) }
    INCLUDE SFU_TABLE_LD
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
    }
    /DISCARD/ : { *(.comment) *(.note .note.*) }
}
