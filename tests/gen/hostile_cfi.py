#!/usr/bin/env python3
"""Writes an x86_64 ELF whose .eh_frame is hostile CFI: valid records crafted to make a CFI
reader spend memory and time out of proportion to their size.

  hostile_cfi.py SHAPE SIZE OUT.elf

SHAPE:
  fat-cie      one CIE giving 95 registers a rule, then tiny FDEs (one row each): every row is
               a copy of the 96 rules, about 4 rules per byte of CFI
  rows         the same CIE, then FDEs whose instructions make a new row every 3 bytes
               (advance_loc 1, def_cfa_offset), each a copy of the 96 rules
  empty-fdes   a CIE giving 1000 registers a rule, then FDEs with an empty range (no row at all,
               but the CIE's rules copied for each)
  remember     FDEs that remember and restore the CIE's 95 rules over and over
  ra-toggle    an AArch64 image whose FDEs make a new row every 2 bytes (advance_loc 1,
               DW_CFA_AARCH64_negate_ra_state): the most rows a byte of CFI can ask for
SIZE: the .eh_frame's size in bytes (about: whole records). The FDEs cover .text (0x401000, 4 KiB,
in the file) unless OUTSIDE=1 is in the environment: then they lie outside every section, as
the functions a linker dropped do. RULES=N in the environment: the CIE gives N registers a
rule besides the CFA and the RA (default 94; 1000 for empty-fdes). ROWS=N: ra-toggle's rows per
FDE (default 1000). TEXT=N: the size of .text (default 4096), which the FDEs inside it share out
(an FDE past its end wraps to its start, overlapping another). NOBITS=1: .text has no contents
in the file (SHT_NOBITS), however large it says it is.
"""
import os
import struct
import sys


def uleb(v):
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def record(body):
    """A length-prefixed record, padded to 4 bytes with DW_CFA_nop."""
    while (len(body) + 4) % 4:
        body += b"\0"
    return struct.pack("<I", len(body)) + body


def cie(rules):
    # version 1, augmentation "zR", code align 1, data align -8, RA column 16, 'R': sdata4 pcrel.
    body = struct.pack("<I", 0) + b"\x01zR\0" + uleb(1) + b"\x78" + uleb(16) + uleb(1) + b"\x1b"
    body += b"\x0c\x07\x08"  # def_cfa rsp+8
    body += b"\x90\x01"  # offset r16 (RA) at cfa-8
    for reg in range(rules):
        n = reg + 17
        if n < 64:
            body += bytes([0x80 | n]) + uleb(2)  # DW_CFA_offset
        else:
            body += b"\x05" + uleb(n) + uleb(2)  # DW_CFA_offset_extended
    return record(body)


def fde(at, cie_at, start, length, insns, eh_addr):
    ptr_field = at + 4
    body = struct.pack("<I", ptr_field - cie_at)
    pc_field = at + 8
    body += struct.pack("<i", start - (eh_addr + pc_field)) + struct.pack("<I", length)
    body += uleb(0) + insns
    return record(body)


def eh_frame(shape, size, eh_addr, text_addr, text_size, outside):
    rules = int(os.environ.get("RULES", 1000 if shape == "empty-fdes" else 94))
    out = bytearray(cie(rules))
    cie_at = 0
    i = 0
    while len(out) < size:
        start = 0x10000 + i if outside else text_addr + (i % text_size)
        if shape == "fat-cie":
            insns, length = b"", 1
        elif shape == "rows":
            n = 1000
            insns = b"".join(b"\x41\x0e" + uleb(16 + 8 * (k % 2)) for k in range(n))
            length = n + 1
            start = 0x10000 + i * 0x1000 if outside else text_addr
        elif shape == "empty-fdes":
            insns, length = b"", 0
        elif shape == "ra-toggle":
            n = int(os.environ.get("ROWS", 1000))
            insns = b"\x41\x2d" * n
            length = n + 1
            start = 0x10000 + i * 0x1000 if outside else text_addr + (i * length) % text_size
        elif shape == "remember":
            insns = b"\x0a\x0b" * 500  # remember_state, restore_state
            length = 1
        else:
            sys.exit("unknown shape " + shape)
        out += fde(len(out), cie_at, start, length, insns, eh_addr)
        i += 1
    return bytes(out)


def elf(eh, text_size, machine, nobits):
    text_addr, eh_addr = 0x401000, 0x500000
    names = b"\0.text\0.eh_frame\0.shstrtab\0"
    ehdr_size, shdr_size = 64, 64
    text_off = 0x1000
    eh_off = text_off + (0 if nobits else text_size)
    names_off = eh_off + len(eh)
    sh_off = (names_off + len(names) + 7) & ~7
    hdr = b"\x7fELF" + bytes([2, 1, 1, 0]) + bytes(8)
    hdr += struct.pack("<HHIQQQIHHHHHH", 2, machine, 1, text_addr, 0, sh_off, 0, ehdr_size, 56, 0, shdr_size, 4, 3)
    body = bytearray(hdr.ljust(text_off, b"\0"))
    if not nobits:
        body += b"\xc3" * text_size
    body += eh
    body += names
    body = body.ljust(sh_off, b"\0")

    def shdr(name, typ, flags, addr, off, size, align):
        return struct.pack("<IIQQQQIIQQ", name, typ, flags, addr, off, size, 0, 0, align, 0)

    body += shdr(0, 0, 0, 0, 0, 0, 0)
    body += shdr(1, 8 if nobits else 1, 6, text_addr, text_off, text_size, 16)
    body += shdr(7, 1, 2, eh_addr, eh_off, len(eh), 8)
    body += shdr(17, 3, 0, 0, names_off, len(names), 1)
    return bytes(body)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    shape, size, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    text_size = int(os.environ.get("TEXT", 4096))
    eh = eh_frame(shape, size, 0x500000, 0x401000, text_size, os.environ.get("OUTSIDE") == "1")
    with open(path, "wb") as f:
        f.write(elf(eh, text_size, 183 if shape == "ra-toggle" else 62, os.environ.get("NOBITS") == "1"))


if __name__ == "__main__":
    main()
