#!/usr/bin/env python3
"""The bytes of sfunwind a kernel links, from the linker map of bench/walk_only_probe.c linked with
--gc-sections against libsfu.a: code (.text*) and read-only data (.rodata*, .data.rel.ro*) of the
archive's members kept in the output, per object and in all.

    walk_only_size.py MAP ARCH [--objects]

prints "footprint: ARCH walk-only code N bytes, rodata N bytes" (and, with --objects, a line per
object before it). Only input sections the link kept count: the map's discarded ones are skipped.
"""
import re
import sys

# An input section: " .text.name  0xADDR  0xSIZE  path/libsfu.a(obj.o)", its name alone on the line
# before when it is long.
SECTION = re.compile(r'^ (\.[\w.$@-]+)?\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(\S*libsfu\.a\((\S+)\))\s*$')
NAME_ONLY = re.compile(r'^ (\.[\w.$@-]+)\s*$')


def kind(section):
    if section.startswith('.text'):
        return 'code'
    if section.startswith('.rodata') or section.startswith('.data.rel.ro'):
        return 'rodata'
    return None


def sizes(lines):
    per = {}
    kept = False
    pending = None
    for line in lines:
        if line.startswith('Linker script and memory map'):
            kept = True
            continue
        if not kept:
            continue
        m = NAME_ONLY.match(line)
        if m:
            pending = m.group(1)
            continue
        m = SECTION.match(line)
        if m:
            name = m.group(1) or pending
            pending = None
            k = kind(name or '')
            size = int(m.group(2), 16)
            if k and size:
                per.setdefault(m.group(4), {'code': 0, 'rodata': 0})[k] += size
            continue
        pending = None
    return per


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        per = sizes(f.readlines())
    if '--objects' in argv:
        for obj, s in sorted(per.items(), key=lambda kv: -(kv[1]['code'] + kv[1]['rodata'])):
            print('  %-16s code %5d  rodata %5d' % (obj, s['code'], s['rodata']))
    code = sum(s['code'] for s in per.values())
    rodata = sum(s['rodata'] for s in per.values())
    print('footprint: %s walk-only code %d bytes, rodata %d bytes' % (argv[2], code, rodata))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
