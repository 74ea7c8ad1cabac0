"""The named gdb limitations of the every-instruction oracle (gdb_oracle.LIMITATIONS), each shown on
its minimal case (gdb_limits.S for arm64's three, gdb_limits_s390x.S for s390x's one): the image
built and booted under QEMU with gdb-multiarch attached,
stopped three times in `leaf`, and gdb's frames compared with what a walk that is right gives (the
return addresses the image's labels name), through gdb_oracle.classify as the runs do.
runner_test.py calls cases(); alone:

    python3 tests/qemu/gdb_limits.py        prints each case, exits 1 if one failed
"""
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import every_check  # noqa: E402
import gdb_oracle  # noqa: E402

QEMU = ['qemu-system-aarch64', '-machine', 'virt', '-cpu', 'max,pauth-impdef=on', '-m', '128M', '-display', 'none',
        '-nodefaults']
# Run inside gdb: each stop in leaf as "stop PC:SP PC:SP ... | REASON", gdb's frames and why it
# stopped after the last.
GDB_SCRIPT = '''
import gdb
gdb.execute('break leaf')
for n in range(3):
    gdb.execute('continue')
    f, frames = gdb.newest_frame(), []
    while f is not None:
        frames.append('%x:%x' % (int(f.pc()), int(f.read_register('sp'))))
        last, f = f, f.older()
    print('stop %s | %s' % (' '.join(frames), gdb.frame_stop_reason_string(last.unwind_stop_reason())))
'''


def symbols(elf, prefix='aarch64-linux-gnu-'):
    out = subprocess.run([prefix + 'nm', elf], capture_output=True, text=True, check=True).stdout
    return {w[2]: int(w[0], 16) for w in (l.split() for l in out.splitlines()) if len(w) == 3}


def under_gdb(tmp, name, source, prefix, text, qemu, script):
    """Assembles SOURCE with the PREFIX binutils, links it at TEXT as TMP/NAME.elf, boots it held in
    QEMU and runs the gdb SCRIPT against it; returns (the ELF, gdb's standard output)."""
    obj, elf, py = (os.path.join(tmp, name + ext) for ext in ('.o', '.elf', '.py'))
    subprocess.run([prefix + 'as', os.path.join(HERE, source), '-o', obj], check=True)
    subprocess.run([prefix + 'ld', '-Ttext=' + text, '-e', '_start', obj, '-o', elf], check=True)
    with open(py, 'w') as f:
        f.write(script)
    port = every_check.free_port()
    guest = subprocess.Popen(qemu + ['-kernel', elf, '-S', '-gdb', 'tcp:127.0.0.1:%d' % port],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        out = subprocess.run([every_check.GDB, '-q', '-batch', '-nx', elf, '-ex', 'target remote 127.0.0.1:%d' % port,
                              '-x', py], capture_output=True, text=True, timeout=60).stdout
    finally:
        guest.kill()
        guest.wait()
    return elf, out


def gdb_stops(tmp):
    """Builds gdb_limits.S and returns (its symbols, every_check.elf_facts of it, [(frames [(pc, sp)],
    reason)] of each stop)."""
    elf, out = under_gdb(tmp, 'minimal', 'gdb_limits.S', 'aarch64-linux-gnu-', '0x40080000', QEMU, GDB_SCRIPT)
    stops = []
    for line in out.splitlines():
        if line.startswith('stop '):
            frames, _, reason = line[len('stop '):].partition(' | ')
            stops.append(([tuple(int(v, 16) for v in fr.split(':')) for fr in frames.split()], reason))
    return symbols(elf), every_check.elf_facts(elf), stops


# s390x: the image at 0x20000 (below it QEMU takes an ELF for a Linux kernel), stopped once.
S390X_QEMU = ['qemu-system-s390x', '-machine', 's390-ccw-virtio', '-cpu', 'qemu', '-m', '128M', '-display', 'none',
              '-nodefaults', '-no-reboot']
S390X_GDB_SCRIPT = '''
import gdb
gdb.execute('break in_fpr_ra')
gdb.execute('continue')
try:
    print('frame0 %x' % int(gdb.newest_frame().pc()))
except gdb.error as e:
    print('error %s' % e)
'''


def s390x_stop(tmp):
    """Builds gdb_limits_s390x.S; returns (its symbols, elf_facts, what gdb said at in_fpr_ra)."""
    elf, out = under_gdb(tmp, 's390x', 'gdb_limits_s390x.S', 's390x-linux-gnu-', '0x20000', S390X_QEMU,
                         S390X_GDB_SCRIPT)
    said = [l for l in out.splitlines() if l.startswith(('frame0 ', 'error '))]
    return symbols(elf, 's390x-linux-gnu-'), every_check.elf_facts(elf), said


def s390x_cases(case):
    if not all(every_check.shutil.which(t) for t in ('s390x-linux-gnu-as', S390X_QEMU[0])):
        case('gdb limits: the s390x assembler and QEMU are installed', False)
        return
    with tempfile.TemporaryDirectory() as tmp:
        sym, facts, said = s390x_stop(tmp)
    case('gdb limits: ra-in-fpr: gdb cannot make the frame whose return address is in f1',
         said == ['error Value can\'t be converted to integer.'])
    ra_fpr = [tuple(r) for r in facts['ra_in_fpr']]
    case('gdb limits: ra-in-fpr: readelf\'s rows say where the return address is in f1',
         ra_fpr == [(sym['fpr_ra'] + 4, sym['in_fpr_ra'] + 4)])
    right = [(sym['in_fpr_ra'], 0x21000)]
    case('gdb limits: ra-in-fpr: the oracle names it',
         gdb_oracle.classify('s390x', (right, gdb_oracle.STOP_END), [], gdb_oracle.UNREADABLE + ' (frame #0: x)', (), 0,
                             None, ra_fpr)[0] == gdb_oracle.RA_IN_FPR)
    case('gdb limits: ra-in-fpr: ... and not elsewhere',
         gdb_oracle.classify('s390x', (right, gdb_oracle.STOP_END), [], gdb_oracle.UNREADABLE + ' (frame #0: x)')[0] ==
         gdb_oracle.DIFFER)


def cases(case):
    s390x_cases(case)
    if not all(every_check.shutil.which(t) for t in (every_check.GDB, 'aarch64-linux-gnu-as', QEMU[0])):
        case('gdb limits: gdb-multiarch, the arm64 assembler and QEMU are installed', False)
        return
    with tempfile.TemporaryDirectory() as tmp:
        sym, facts, stops = gdb_stops(tmp)
    case('gdb limits: gdb stopped three times in leaf', len(stops) == 3)
    if len(stops) != 3:
        return
    (pac, pac_reason), (entry, entry_reason), (nocfi, _) = stops
    fdes = [tuple(r) for r in facts['fdes']]
    # pac-unstripped: leaf, signs, then _start's frame from the signed return address.
    signed = pac[2][0] if len(pac) == 3 else 0
    case('gdb limits: pac-unstripped: gdb gives the return address into _start with its PAC bits, and stops',
         len(pac) == 3 and signed != sym['after_signs'] and signed & gdb_oracle.ARM64_VA_MASK == sym['after_signs']
         and pac_reason == 'previous frame identical to this frame (corrupt stack?)')
    right = pac[:2] + [(sym['after_signs'], pac[2][1])] if len(pac) == 3 else []
    case('gdb limits: pac-unstripped: the oracle names it',
         gdb_oracle.classify('arm64', (right, gdb_oracle.STOP_END), pac, pac_reason)[0] == gdb_oracle.PAC_UNSTRIPPED)
    # entry-outermost: leaf, entry, and no _start.
    case('gdb limits: entry-outermost: gdb ends at entry, calling it outermost',
         [pc for pc, _ in entry][1:] == [sym['entry'] + 8] and entry_reason == 'outermost')
    right = entry + [(sym['after_entry'], entry[-1][1] + 16)]
    case('gdb limits: entry-outermost: the oracle names it where entry is the trap entry code',
         gdb_oracle.classify('arm64', (right, gdb_oracle.STOP_END), entry, entry_reason,
                             [(sym['entry'], sym['entry_end'])])[0] == gdb_oracle.ENTRY_OUTERMOST)
    case('gdb limits: entry-outermost: ... and not elsewhere',
         gdb_oracle.classify('arm64', (right, gdb_oracle.STOP_END), entry, entry_reason)[0] == gdb_oracle.DIFFER)
    # entry-no-cfi: leaf, nocfi, then gdb's guess, nowhere, where a walk crossing the entry code
    # gives the interrupted instruction.
    case('gdb limits: entry-no-cfi: no CFI covers nocfi', not gdb_oracle.in_traps(sym['nocfi'], fdes))
    case('gdb limits: entry-no-cfi: gdb guesses nocfi\'s caller from x30: nowhere',
         [pc for pc, _ in nocfi][1:3] == [sym['nocfi_end'], sym['nowhere']])
    right = nocfi[:2] + [(sym['interrupted'], nocfi[1][1] + 32)]
    traps = [(sym['nocfi'], sym['nocfi_end'])]
    case('gdb limits: entry-no-cfi: the oracle names it where nocfi is the trap entry code',
         gdb_oracle.classify('arm64', (right, gdb_oracle.STOP_END), nocfi, 'x', traps, 0, fdes)[0] ==
         gdb_oracle.ENTRY_NO_CFI)
    case('gdb limits: entry-no-cfi: ... and not where CFI covers it',
         gdb_oracle.classify('arm64', (right, gdb_oracle.STOP_END), nocfi, 'x', traps, 0, fdes + traps)[0] ==
         gdb_oracle.DIFFER)


if __name__ == '__main__':
    failed = []

    def case(name, ok):
        print('%s %s' % ('PASS' if ok else 'FAIL', name))
        failed.extend([] if ok else [name])
    cases(case)
    sys.exit(1 if failed else 0)
