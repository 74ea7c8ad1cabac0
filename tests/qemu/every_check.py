"""An every-instruction kernel's run (run.py --every ARCH TABLE; tests/qemu/README.md, "Every
instruction"): QEMU started held (-S) with its gdb stub on a free port, gdb-multiarch attached
with gdb_oracle.py, which compares every K-th stepped walk with gdb's own unwinding; then the
kernel's counts and gdb's result judged together, and the one line tools read:

    qemu: ARCH every-instruction TABLE: N instructions, N walks right, N gdb-equal, N differ

The kernel prints "sfu-count every-instruction OK TOTAL" (OK walks right of TOTAL stepped
instructions) and "sfu-oracle-handed N" (walks handed to gdb). The run fails unless every walk was
right, gdb compared every walk handed over (at least one), and none differed. A walk a named gdb
limitation cuts short (gdb_oracle.LIMITATIONS) is compared as far as gdb vouches for it: it is
gdb-equal when all those frames are, and counted under the limitation's name on a line of its own:

    qemu: ARCH every-instruction TABLE: gdb limitation NAME: N of the gdb-equal walks compared up to it
"""
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import time

import gdb_oracle

SCENARIO = 'every-instruction'  # the kernel's count line and the scenario the oracle's checks go in
HANDED = re.compile(r'^sfu-oracle-handed (\d+)\s*$')
LINE = re.compile(r'^qemu: (\S+) every-instruction (\S+): (\d+) instructions, (\d+) walks right, '
                  r'(\d+) gdb-equal, (\d+) differ$')
GDB = 'gdb-multiarch'
SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'gdb_oracle.py')
# gdb compares every K-th stepped walk (a run's fifth field in QEMU_EVERY_RUNS overrides it), so
# that each architecture has a few thousand comparisons over its runs at 2-30 ms each: x86_64 six
# runs of ~115k instructions, arm64 eight of ~55k, s390x four of 33-71k.
ORACLE_EVERY = {'x86_64': 200, 'arm64': 100, 's390x': 50}
# The cross objcopy per e_machine, for the copy gdb reads without DWARF debug info.
OBJCOPY = {62: 'objcopy', 183: 'aarch64-linux-gnu-objcopy', 22: 's390x-linux-gnu-objcopy'}
CONNECT_TRIES = 3


def stat_line(arch, table, instructions, right, equal, differ):
    return 'qemu: %s every-instruction %s: %d instructions, %d walks right, %d gdb-equal, %d differ' % (
        arch, table, instructions, right, equal, differ)


def handed_over(lines):
    """The kernel's sfu-oracle-handed count, or None without one."""
    found = [int(m.group(1)) for m in (HANDED.match(l.rstrip('\r\n')) for l in lines) if m]
    return found[-1] if found else None


def judge(arch, table, counts, handed, oracle):
    """counts: the run's (name, ok, total) count lines; handed: sfu-oracle-handed's N (None: no
    line); oracle: gdb_oracle.py's result, or a str saying why there is none. Returns (the stat
    line or None, [limitation lines], [why the run fails, ...])."""
    whys = []
    mine = [(ok, total) for name, ok, total in counts if name == SCENARIO]
    if len(mine) != 1:
        return None, [], ['%d "sfu-count %s" lines, expected one' % (len(mine), SCENARIO)]
    right, instructions = mine[0]
    if right != instructions:
        whys.append('%d of %d stepped walks were wrong on the device' % (instructions - right, instructions))
    if handed is None:
        whys.append('no sfu-oracle-handed line')
    if isinstance(oracle, str):
        whys.append('gdb: ' + oracle)
        return stat_line(arch, table, instructions, right, 0, 0), [], whys
    counts = oracle['counts']
    if oracle.get('error'):
        whys.append('gdb_oracle.py: ' + oracle['error'])
    if handed is not None and oracle['compared'] != handed:
        whys.append('gdb compared %d walks, the kernel handed over %d' % (oracle['compared'], handed))
    if oracle['compared'] == 0:
        whys.append('gdb compared no walk')
    if counts.get(gdb_oracle.DIFFER):
        first = [d for d in oracle['diffs'] if d['verdict'] == gdb_oracle.DIFFER][:3]
        whys.append('%d walks differ from gdb\'s, first: %s' % (counts[gdb_oracle.DIFFER], '; '.join(
            'serial %d: %s (%s)' % (d['serial'], d['why'], d['file']) for d in first)))
    # A walk a named limitation cut short is gdb-equal when every frame gdb vouches for is.
    limited = ['qemu: %s every-instruction %s: gdb limitation %s: %d of the gdb-equal walks compared up to it' % (
        arch, table, name, counts[name]) for name in gdb_oracle.LIMITATIONS if counts.get(name)]
    equal = counts.get(gdb_oracle.EQUAL, 0) + sum(counts.get(name, 0) for name in gdb_oracle.LIMITATIONS)
    return stat_line(arch, table, instructions, right, equal, counts.get(gdb_oracle.DIFFER, 0)), limited, whys


def free_port():
    """A TCP port nothing listens on now (QEMU takes it a moment later; a run whose QEMU could not
    is started again)."""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def elf_machine(elf):
    with open(elf, 'rb') as f:
        head = f.read(20)
    return int.from_bytes(head[18:20], 'big' if head[5] == 2 else 'little')


FDE = re.compile(r'\sFDE cie=\S+ pc=([0-9a-f]+)\.\.([0-9a-f]+)')


def elf_facts(elf):
    """What gdb_oracle.py needs to know of the image beyond what gdb says: the code its .eh_frame
    covers, [(start, end)] of each FDE (readelf), and the entry point's function [start, end) (the
    symbol holding e_entry: gdb stops unwinding there)."""
    frames = subprocess.run(['readelf', '--debug-dump=frames', elf], capture_output=True, text=True, check=True).stdout
    fdes = [(int(m.group(1), 16), int(m.group(2), 16)) for m in FDE.finditer(frames)]
    header = subprocess.run(['readelf', '-hsW', elf], capture_output=True, text=True, check=True).stdout
    entry = int(re.search(r'Entry point address:\s+0x([0-9a-f]+)', header).group(1), 16)
    funcs = [(int(w[1], 16), int(w[2], 0)) for w in (l.split() for l in header.splitlines())
             if len(w) >= 8 and w[3] == 'FUNC' and w[0].endswith(':')]
    around = [(start, start + size) for start, size in funcs if start <= entry < start + max(size, 1)]
    return {'fdes': fdes, 'entry': list(around[0]) if around else [entry, entry + 1],
            'ra_in_fpr': ra_in_fpr(subprocess.run(['readelf', '-wF', elf], capture_output=True, text=True,
                                                  check=True).stdout)}


def ra_in_fpr(table):
    """[(start, end)] of the code whose CFI keeps the return address in a floating-point register
    (s390x: "ra" is "r20 (f1)" in readelf -wF's rows), from readelf -wF's output."""
    ranges, cols, fde_end, rows = [], None, 0, []

    def close():
        for (loc, ra), nxt in zip(rows, [r[0] for r in rows[1:]] + [fde_end]):
            if re.match(r'r\d+ \(f\d+\)', ra):
                ranges.append((loc, nxt))
        rows.clear()
    for line in table.splitlines():
        m = FDE.search(line)
        if m:
            close()
            fde_end, cols = int(m.group(2), 16), None
        elif line.strip().startswith('LOC') and ' ra' in line.split('CFA', 1)[-1]:
            cols = line.split()
        elif cols and re.match(r'[0-9a-f]{8,16} ', line):
            # One token per column; "r20 (f1)" (in register 20, f1) is one, however wide.
            cells = re.findall(r'r\d+ \([^)]*\)|\S+', line)
            rows.append((int(cells[0], 16), cells[cols.index('ra')] if len(cells) == len(cols) else ''))
    close()
    return ranges


def boot_with_gdb(boot, cmd, timeout, elf, arch, every, workdir):
    """Runs the kernel under QEMU with gdb_oracle.py attached. boot: run.py's boot(cmd, timeout).
    Returns (serial output, why it was killed or None, gdb's result or why there is none, seconds).
    workdir gets elf-facts.json (elf_facts), the kernel gdb reads (kernel-cfi.elf: the ELF without its DWARF debug info, so
    that gdb unwinds from .eh_frame alone and makes up no inline or tail-call frames from
    DW_TAG_call_site), gdb.log, oracle.json and one file per difference."""
    if shutil.which(GDB) is None:
        return '', None, '%s is not installed (scripts/install-deps.sh installs it)' % GDB, 0
    os.makedirs(workdir, exist_ok=True)
    for old in glob.glob(os.path.join(workdir, 'oracle-*.txt')) + glob.glob(os.path.join(workdir, 'oracle.json')):
        os.remove(old)
    plain = os.path.join(workdir, 'kernel-cfi.elf')
    subprocess.run([OBJCOPY[elf_machine(elf)], '--strip-debug', elf, plain], check=True)
    out = os.path.join(workdir, 'oracle.json')
    facts = os.path.join(workdir, 'elf-facts.json')
    with open(facts, 'w') as f:
        json.dump(elf_facts(elf), f)
    env = dict(os.environ, ORACLE_ARCH=arch, ORACLE_EVERY=str(every), ORACLE_OUT=out, ORACLE_DIR=workdir,
               ORACLE_FACTS=facts)
    started = time.monotonic()
    for attempt in range(CONNECT_TRIES):
        port = free_port()
        with open(os.path.join(workdir, 'gdb.log'), 'w') as log:
            # gdb retries the connection until QEMU listens (tcp auto-retry, on by default).
            gdb = subprocess.Popen([GDB, '-q', '-batch', '-nx', plain, '-ex', 'set tcp connect-timeout 30',
                                    '-ex', 'target remote 127.0.0.1:%d' % port, '-x', SCRIPT],
                                   stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env)
            output, killed = boot(cmd + ['-S', '-gdb', 'tcp:127.0.0.1:%d' % port], timeout)
            try:
                gdb.wait(timeout=30)
            except subprocess.TimeoutExpired:
                gdb.kill()
                gdb.wait()
        # QEMU that could not take the port ends at once, before the guest printed anything.
        if 'sfu-' in output or attempt == CONNECT_TRIES - 1 or not re.search(r'gdb|port|socket', output, re.I):
            break
    seconds = time.monotonic() - started
    if not os.path.exists(out):
        with open(os.path.join(workdir, 'gdb.log')) as f:
            said = f.read().strip().splitlines()
        return output, killed, 'gdb_oracle.py wrote no result; gdb said: %s' % (' | '.join(said[-3:]) or 'nothing'), seconds
    with open(out) as f:
        return output, killed, json.load(f), seconds
