#!/usr/bin/env python3
"""make demo: boots one demo kernel and shows its serial output. The kernel names its frames
itself (name+0xoff/0xsize, from its .sfu_symbols); a frame it printed without a name gets the
host's, marked "(host)", so a kernel built without names still reads well.

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
    unnamed = [int(m.group(3), 16) for m in map(run.FRAME.match, lines) if m and not m.group(6)]
    # name+offset of each PC itself, for the reader (return addresses show the offset past the call)
    full = run.symbolize(sfu, elf, sorted(set(unnamed)), with_offset=True)
    for line in lines:
        if line.startswith(('sfu-trace', 'sfu-expect', 'sfu-end', 'sfu-done')):
            continue
        m = run.FRAME.match(line)
        if m and not m.group(6):
            line = '%s  %s (host)' % (line, full.get(int(m.group(3), 16), '?'))
        print(line)
    return 0


if __name__ == '__main__':
    sys.exit(main())
