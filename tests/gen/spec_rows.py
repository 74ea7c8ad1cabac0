#!/usr/bin/env python3
"""An SFrame reader written from the specification alone, independent of sfunwind's decoder.

    tests/gen/spec_rows.py IMAGE.elf

Reads the image's .sframe section (V1, V2, V3; AMD64, AArch64, s390x) and prints each function
and row the way `objdump --sframe` does, whitespace collapsed as tests/dump/common.sh's
rows_only prints them, so tests/gen/check.sh can compare it with `sfu dump` and objdump.

What each data word means is taken from the specification text, per ABI and version
(../shared/seeds/sframe-spec-v2.txt, sframe-spec-v1-email.txt, and for V3
../shared/reference/sframe-versions.md):
  - AMD64: word 1 CFA, word 2 FP; the RA is at the header's fixed offset.
  - AArch64: word 1 CFA, word 2 RA (whatever its value: the specification has no padding for
    AArch64), word 3 FP.
  - s390x: word 1 CFA (stored as (offset - 160) / 8), word 2 RA unless 0 (RA not saved), word 3
    FP; V2 only: an odd RA or FP word is a DWARF register number, word >> 1.
  - V3 flexible FDEs: [control, offset] pairs for CFA, RA (or one 0 word), FP.
Exits 1 with a message on anything it cannot read.
"""
import struct
import sys

AMD64, AARCH64_BE, AARCH64_LE, S390X = 3, 1, 2, 4
SP_FP = {AMD64: (7, 6), AARCH64_BE: (31, 29), AARCH64_LE: (31, 29), S390X: (15, 11)}


def die(msg):
    print("spec_rows: " + msg, file=sys.stderr)
    sys.exit(1)


def elf_section(path, name):
    data = open(path, "rb").read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        die(path + ": not an ELF64 file")
    e = "<" if data[5] == 1 else ">"
    shoff, = struct.unpack_from(e + "Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from(e + "HHH", data, 0x3A)

    def shdr(i):
        return struct.unpack_from(e + "IIQQQQIIQQ", data, shoff + i * shentsize)

    strtab = shdr(shstrndx)
    for i in range(shnum):
        h = shdr(i)
        at = strtab[4] + h[0]
        if data[at:data.index(b"\0", at)].decode() == name:
            return data[h[4]:h[4] + h[5]], h[3]
    die(path + ": no " + name + " section")


def main():
    if len(sys.argv) != 2:
        die("usage: spec_rows.py IMAGE.elf")
    sec, sec_addr = elf_section(sys.argv[1], ".sframe")
    magic_le, = struct.unpack_from("<H", sec, 0)
    e = "<" if magic_le == 0xDEE2 else ">" if magic_le == 0xE2DE else die("bad magic")
    version, flags, abi, fixed_fp, fixed_ra, auxlen = struct.unpack_from(e + "BBBbbB", sec, 2)
    num_fdes, num_fres, fre_len, fdeoff, freoff = struct.unpack_from(e + "5I", sec, 8)
    if version not in (1, 2, 3) or abi not in SP_FP:
        die("version %d, abi %d" % (version, abi))
    pcrel = bool(flags & 0x4)
    base = 28 + auxlen
    fdes_at, fres_at = base + fdeoff, base + freoff
    sp, fp = SP_FP[abi]

    def reg_name(r):
        return "sp" if r == sp else "fp" if r == fp else "r%d" % r

    def cfa_off(w):
        return w * 8 + 160 if abi == S390X else w

    def words(at, n, size):
        fmt = {1: "b", 2: "h", 4: "i"}[size]
        return [struct.unpack_from(e + fmt, sec, at + k * size)[0] for k in range(n)]

    def flex_rule(ctl, off):
        if not ctl & 1:
            return "c%+d" % off  # base is the CFA; objdump does not show deref_p here
        name = reg_name(ctl >> 3)
        return "(%s%+d)" % (name, off) if ctl & 2 else "%s%+d" % (name, off)

    out = []
    for i in range(num_fdes):
        if version == 3:
            field = fdes_at + i * 16
            start, size, fre_off = struct.unpack_from(e + "qII", sec, field)
            nfres, info, info2, rep = struct.unpack_from(e + "HBBB", sec, fres_at + fre_off)
            first = fres_at + fre_off + 5
        else:
            field = fdes_at + i * (17 if version == 1 else 20)
            start, size, fre_off, nfres, info = struct.unpack_from(e + "iIIIB", sec, field)
            info2 = 0
            first = fres_at + fre_off
        pc = (sec_addr + field if pcrel else sec_addr) + start
        fre_type, pcmask = info & 0xF, (info >> 4) & 1
        signal = version == 3 and info >> 7
        flex = version == 3 and (info2 & 0x1F) == 1
        line = "func idx [%d]: pc = 0x%x, size = %d bytes" % (i, pc, size)
        attr = ("S" if signal else "") + ("F" if flex else "")
        if attr:
            line += ', attr = "%s"' % attr
        if abi in (AARCH64_BE, AARCH64_LE) and info & 0x20:
            line += ", pauth = B key"
        out.append(line)
        at = first
        asize = {0: 1, 1: 2, 2: 4}[fre_type]
        for _ in range(nfres):
            rstart = int.from_bytes(sec[at:at + asize], "little" if e == "<" else "big")
            finfo = sec[at + asize]
            n, wsize = (finfo >> 1) & 0xF, 1 << ((finfo >> 5) & 3)
            w = words(at + asize + 1, n, wsize)
            at += asize + 1 + n * wsize
            addr = rstart if pcmask else pc + rstart
            if n == 0:
                out.append("%016x RA undefined" % addr)
                continue
            if flex:
                cfa = flex_rule(w[0], cfa_off(w[1]))
                if n == 2:
                    ra, fp_at = ("f" if fixed_ra else "u"), 2
                elif w[2] == 0:
                    ra, fp_at = "U", 3
                else:
                    ra, fp_at = flex_rule(w[2], w[3]), 4
                fpc = flex_rule(w[fp_at], w[fp_at + 1]) if n >= fp_at + 2 else "u"
            else:
                cfa = "%s+%d" % ("sp" if finfo & 1 else "fp", cfa_off(w[0]))
                regnum = abi == S390X and version == 2

                def saved(x):
                    return "r%d" % (x >> 1) if regnum and x & 1 else "c%+d" % x

                if abi == AMD64:
                    ra, fpc = "f", saved(w[1]) if n > 1 else "u"
                else:
                    if fixed_ra:
                        ra = "f"
                    elif n < 2:
                        ra = "u"
                    elif abi == S390X and w[1] == 0:
                        ra = "U"  # SFRAME_FRE_RA_OFFSET_INVALID: s390x only
                    else:
                        ra = saved(w[1])
                    fpc = saved(w[2]) if n > 2 else "u"
            if finfo & 0x80:
                ra += "[s]"
            out.append("%016x %s %s %s" % (addr, cfa, fpc, ra))
    print("\n".join(out))


main()
