#!/usr/bin/env python3
"""Copies a big-endian ELF64 image with its ELF header, program headers, section headers and
note headers rewritten in little-endian order, everything else (EI_DATA included) unchanged.

Breakpad's dump_syms reads those headers in the host's byte order but the DWARF, the symbol
table and the CFI in the order EI_DATA gives. On a little-endian host it therefore crashes on a
big-endian (s390x) image: e_shoff and the section offsets come out byte-swapped and point far
outside the file. The copy lets it read the headers and still read every table of the image as
big-endian data, with its own code: an honest oracle for everything but STACK CFI (dump_syms has
no s390 register names and writes none).

    host_order_headers.py IN OUT
"""
import struct
import sys


def main():
    src, dst = sys.argv[1], sys.argv[2]
    f = bytearray(open(src, 'rb').read())
    if f[:4] != b'\x7fELF' or f[4] != 2 or f[5] != 2:
        sys.exit(f'{src}: not a big-endian ELF64 file')

    def swap(off, fmt):
        vals = struct.unpack_from('>' + fmt, f, off)
        struct.pack_into('<' + fmt, f, off, *vals)
        return vals

    # Elf64_Ehdr after e_ident: type, machine, version, entry, phoff, shoff, flags, ehsize,
    # phentsize, phnum, shentsize, shnum, shstrndx.
    (_, _, _, _, phoff, shoff, _, _, phentsize, phnum, shentsize, shnum, _) = swap(16, 'HHIQQQIHHHHHH')
    notes = []
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz, _, _ = swap(phoff + i * phentsize, 'IIQQQQQQ')
        if p_type == 4:  # PT_NOTE
            notes.append((p_offset, p_filesz))
    for i in range(shnum):
        _, sh_type, _, _, sh_offset, sh_size, _, _, _, _ = swap(shoff + i * shentsize, 'IIQQQQIIQQ')
        if sh_type == 7:  # SHT_NOTE
            notes.append((sh_offset, sh_size))
    done = set()
    for off, size in notes:
        at, end = off, off + size
        while at + 12 <= end and at not in done:
            done.add(at)
            namesz, descsz, _ = swap(at, 'III')
            at += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    open(dst, 'wb').write(f)


main()
