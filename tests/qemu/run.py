#!/usr/bin/env python3
"""Boots one test kernel under QEMU and checks what it prints (protocol: tests/qemu/README.md).

    run.py --sfu build/tools/sfu --elf KERNEL.elf --label "x86_64 gen-v2" --timeout 120 \\
           --log LOG -- qemu-system-x86_64 ARGS...

Prints one line per scenario ("qemu: x86_64 gen-v2 1-faults: pass (4 traces)"), the failures
indented under it, and exits 1 if anything failed. A guest that does not finish within the
timeout is killed and counts as failed.
"""
import argparse
import re
import subprocess
import sys

FRAME = re.compile(r'^\s*#(\d+)\s+(\?\s+)?0x([0-9a-f]+)\s+sp 0x[0-9a-f]+\s+\S+\s+\[(\w+)\]\s+\S+\s*$')
STOP = re.compile(r'^\s*stop: (\S+) \((reliable|unreliable)\)\s*$')
# Frames whose PC is a return address: symbolized as the call before it.
RETURN_SOURCES = {'table', 'fp', 'backchain'}


class Trace:
    def __init__(self, name):
        self.name = name
        self.expect = None
        self.frames = []  # (pc, source)
        self.stop = None
        self.reliable = None
        self.ended = False


def parse(lines):
    traces, counts, done, errors = [], [], None, []
    cur = None
    for raw in lines:
        line = raw.rstrip('\r\n')
        if line.startswith('sfu-trace '):
            cur = Trace(line[len('sfu-trace '):].strip())
            traces.append(cur)
        elif line.startswith('sfu-expect ') and cur:
            cur.expect = line[len('sfu-expect '):].strip()
        elif line.startswith('sfu-end') and cur:
            cur.ended = True
            cur = None
        elif line.startswith('sfu-count '):
            parts = line.split()
            if len(parts) == 4 and parts[2].isdigit() and parts[3].isdigit():
                counts.append((parts[1], int(parts[2]), int(parts[3])))
            else:
                errors.append('bad count line: ' + line)
        elif line.startswith('sfu-done '):
            done = line.split()[1]
        elif line.startswith('sfu-error '):
            errors.append(line)
        elif cur:
            m = FRAME.match(line)
            if m:
                cur.frames.append((int(m.group(3), 16), m.group(4)))
                continue
            m = STOP.match(line)
            if m:
                cur.stop, cur.reliable = m.group(1), m.group(2) == 'reliable'
    return traces, counts, done, errors


def symbolize(sfu, elf, pcs, with_offset=False):
    """{pc: function name} ('?' for a PC in no function); with_offset, sfu's own 'name+0xoff'."""
    if not pcs:
        return {}
    out = subprocess.run([sfu, 'symbolize', elf] + ['0x%x' % pc for pc in pcs],
                         capture_output=True, text=True, check=True).stdout
    names = {}
    for line in out.splitlines():
        addr, sym = line.split(' ', 1)
        if with_offset:
            names[int(addr, 16)] = sym
        else:  # an address in no function comes back as itself: "?" in expectations
            names[int(addr, 16)] = '?' if sym.startswith('0x') else sym.split('+')[0]
    return names


# Call instructions per e_machine, and the cross objdump that reads each.
MACHINES = {
    62: ('objdump', {'call', 'callq'}),
    183: ('aarch64-linux-gnu-objdump', {'bl', 'blr', 'blraa', 'blrab', 'blraaz', 'blrabz'}),
    22: ('s390x-linux-gnu-objdump', {'brasl', 'bras', 'basr', 'balr', 'bal', 'bas'}),
}
INSN = re.compile(r'^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(\S+)\s*(.*)$')
INSN_MORE = re.compile(r'^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*$')  # bytes of a long instruction
TARGET = re.compile(r'<([^>+]+)(\+0x[0-9a-f]+)?>\s*$')


class CallSites:
    """Every call instruction of the kernel, by the return address it leaves."""

    def __init__(self, elf):
        with open(elf, 'rb') as f:
            head = f.read(20)
        machine = int.from_bytes(head[18:20], 'big' if head[5] == 2 else 'little')
        objdump, calls = MACHINES[machine]
        text = subprocess.run([objdump, '-d', elf], capture_output=True, text=True, check=True).stdout
        self.by_return = {}  # return address -> direct target name, or None for an indirect call
        last = None  # [address, byte count, mnemonic, operands]
        for line in text.splitlines() + ['']:
            m = INSN.match(line)
            more = None if m else INSN_MORE.match(line)
            if more and last:
                last[1] += len(more.group(2).replace(' ', '')) // 2
                continue
            if last and last[2] in calls:
                t = TARGET.search(last[3])
                direct = t and not t.group(2) and re.search(r'(^|[ ,])[0-9a-f]+ <', last[3])
                self.by_return[last[0] + last[1]] = t.group(1) if direct else None
            last = [int(m.group(1), 16), len(m.group(2).replace(' ', '')) // 2, m.group(3), m.group(4)] if m else None


def check_callers(t, names, calls, root):
    """@callers: each return address follows a call into the frame before it; the last is root."""
    for i, (pc, src) in enumerate(t.frames):
        if src not in RETURN_SOURCES or i == 0:
            continue
        if pc not in calls.by_return:
            return 'frame #%d: 0x%x follows no call instruction' % (i, pc)
        target = calls.by_return[pc]
        callee = names[t.frames[i - 1][0] - (1 if t.frames[i - 1][1] in RETURN_SOURCES else 0)]
        if target is not None and target != callee:
            return 'frame #%d: 0x%x returns from a call to %s, not to %s' % (i, pc, target, callee)
    if not t.frames:
        return 'no frames'
    last_pc, last_src = t.frames[-1]
    last = names[last_pc - 1 if last_src in RETURN_SOURCES else last_pc]
    if last != root:
        return 'the last frame is in %s, not %s' % (last, root)
    return None


def check_trace(t, names, calls):
    """Returns None when the trace is what it expected, else why not."""
    if t.expect is None or not t.ended or t.stop is None:
        return 'incomplete trace (no expect, stop or end line)'
    want_frames, _, want_stop = t.expect.partition('|')
    want, want_stop = want_frames.split(), want_stop.split()
    if want and want[0] == '@callers':
        why = check_callers(t, names, calls(), want[1] if len(want) > 1 else '?')
        if why:
            return why
    else:
        got = [names[pc - 1 if src in RETURN_SOURCES else pc] for pc, src in t.frames]
        if got != want:
            return 'frames %s, expected %s' % (' '.join(got) or '(none)', ' '.join(want))
    # "STOP" or "STOP reliable|unreliable": the verdict of the stop line is checked when given,
    # and a clean end must be reliable unless the expectation says otherwise (a table that lost
    # rows would still reach the root through frame-pointer guesses).
    if want_stop == ['end-of-stack']:
        want_stop.append('reliable')
    got_stop = [t.stop, 'reliable' if t.reliable else 'unreliable'][:len(want_stop)]
    if not want_stop or got_stop != want_stop:
        return 'stopped with %s (%s), expected %s' % (t.stop, 'reliable' if t.reliable else 'unreliable',
                                                     ' '.join(want_stop) or 'a stop reason')
    return None


def trace_names(sfu, elf, traces):
    """{pc: function} for every frame of the traces (return addresses looked up as PC-1)."""
    return symbolize(sfu, elf, sorted({pc - 1 if src in RETURN_SOURCES else pc
                                       for t in traces for pc, src in t.frames}))


def judge(lines, sfu, elf, timed_out=False):
    """Every check of one run's serial output. Returns (scenarios, counted, failures):
    {scenario: [checks, [why, ...]]}, the count lines that passed as (name, ok, total), and
    run-level failures as (what, why)."""
    traces, counts, done, errors = parse(lines)
    failures = [('boot', e) for e in errors]
    if done is None and not timed_out:
        failures.append(('boot', 'no sfu-done line: the guest crashed or stopped early'))
    elif done not in (None, '0'):
        failures.append(('boot', 'the guest reported %s failures' % done))
    names = trace_names(sfu, elf, traces)

    call_sites = []  # read the disassembly once, and only if a trace needs it

    def calls():
        if not call_sites:
            call_sites.append(CallSites(elf))
        return call_sites[0]

    # Scenario = the trace name up to its first '/': "1-faults/ud2" belongs to "1-faults".
    scenarios, counted = {}, []
    for t in traces:
        s = scenarios.setdefault(t.name.split('/')[0], [0, []])
        s[0] += 1
        why = check_trace(t, names, calls)
        if why:
            s[1].append('%s: %s' % (t.name, why))
    for name, ok, total in counts:
        s = scenarios.setdefault(name.split('/')[0], [0, []])
        s[0] += 1
        if total == 0 or ok != total:
            s[1].append('%s: %d of %d correct' % (name, ok, total))
        else:
            counted.append((name, ok, total))
    if not scenarios and not failures:
        failures.append(('boot', 'the guest printed no scenario'))
    return scenarios, counted, failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sfu', required=True)
    ap.add_argument('--elf', required=True)
    ap.add_argument('--label', required=True)
    ap.add_argument('--timeout', type=float, default=120)
    ap.add_argument('--log', required=True)
    ap.add_argument('qemu', nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.qemu[1:] if a.qemu and a.qemu[0] == '--' else a.qemu

    timed_out = False
    with open(a.log, 'w') as log:
        try:
            proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=a.timeout)
            output = proc.stdout.decode('utf-8', 'replace')
        except subprocess.TimeoutExpired as e:
            output = (e.stdout or b'').decode('utf-8', 'replace')
            timed_out = True
        log.write(output)
    scenarios, counted, failures = judge(output.splitlines(), a.sfu, a.elf, timed_out)
    if timed_out:
        failures.insert(0, ('boot', 'killed after %gs: the guest hung' % a.timeout))

    for name, ok, total in counted:
        print('qemu: %s %s: %d of %d correct' % (a.label, name, ok, total))
    passed = failed = 0
    for name, (n, fails) in scenarios.items():
        print('qemu: %s %s: %s (%d checks)' % (a.label, name, 'FAIL' if fails else 'pass', n))
        for f in fails:
            print('    ' + f)
        failed += bool(fails)
        passed += not fails
    for name, why in failures:
        print('qemu: %s %s: FAIL' % (a.label, name))
        print('    ' + why)
        failed += 1
    print('qemu-run: %d passed, %d failed' % (passed, failed))
    print('    log: ' + a.log)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
