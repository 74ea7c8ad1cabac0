#!/usr/bin/env python3
"""make demo: boots one demo kernel and shows its serial output with every frame named.

    demo.py SFU "LABEL|ELF|QEMU COMMAND"
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402  (the runner's parser and symbolizer)


def main():
    sfu, spec = sys.argv[1], sys.argv[2]
    label, elf, cmd = spec.split('|', 2)
    print('booting %s: %s' % (label, cmd), flush=True)
    try:
        boot = cmd.split() + ([] if '-kernel' in cmd.split() else ['-kernel', elf])
        out = subprocess.run(boot, stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60).stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout or b''
        print('(the guest did not finish in 60 s)')
    lines = out.decode('utf-8', 'replace').replace('\r', '').splitlines()
    frames = [(int(m.group(3), 16), m.group(4)) for m in map(run.FRAME.match, lines) if m]
    # name+offset of each PC itself, for the reader (return addresses show the offset past the call)
    full = run.symbolize(sfu, elf, sorted({pc for pc, _ in frames}), with_offset=True)
    for line in lines:
        if line.startswith(('sfu-trace', 'sfu-expect', 'sfu-end', 'sfu-done')):
            continue
        m = run.FRAME.match(line)
        if m:
            pc = int(m.group(3), 16)
            line = '%s  %s' % (line, full.get(pc, '?'))
        print(line)
    return 0


if __name__ == '__main__':
    sys.exit(main())
