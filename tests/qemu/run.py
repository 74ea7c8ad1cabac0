#!/usr/bin/env python3
"""Boots one test kernel under QEMU and checks what it prints (protocol: tests/qemu/README.md).

    run.py --sfu build/tools/sfu --elf KERNEL.elf --label "x86_64 gen-v2" --timeout 120 \\
           --log LOG -- qemu-system-x86_64 ARGS...

Prints one line per scenario ("qemu: x86_64 gen-v2 1-faults: pass (4 traces)"), the failures
indented under it, and exits 1 if anything failed. A guest that does not finish within the
timeout is killed and counts as failed.

A crash kernel's run (--crash record|torn|smp, scenario 8) boots twice: its checks are in
check_crash (smp: two CPUs panicking at once, check_smp). --keep DIR keeps the record it decoded and the kernel (DIR/record.bin,
DIR/kernel.elf).

A reloc kernel's run (--crash record --reloc, scenario 11: an image that moves itself at boot)
picks a seed (SFU_RELOC_SEED if set, else random; printed, to replay a run), puts it into the
QEMU command where it says {seed}, names the frames at the bias the runner finds itself, and
checks the move and every host command on the moved image (check_reloc). --keep DIR keeps the
serial log, the kernel, the record and the dumps; --breakpad BIN is where minidump_stackwalk is.

A profile kernel's run (--profile DIR, scenario 12) checks `sfu profile`'s table and folded stacks
against what the kernel printed (profile_check.py) and keeps the log and kernel in DIR.
"""
import argparse
import base64
import os
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

import every_check
import profile_check

# A frame line up to its source; then the module and, when the module has symbols, the symbol.
FRAME_START = r'^\s*#(\d+)\s+(\?\s+)?0x([0-9a-f]+)\s+sp 0x[0-9a-f]+\s+\S+\s+\[(\w+)\]'
FRAME = re.compile(FRAME_START + r'\s+(\S+)(?:\s+(\S+))?\s*$')
STOP = re.compile(r'^\s*stop: (\S+) \((reliable|unreliable)\)\s*$')
# sfu_print_backtrace's module line, before the first frame of each module (include/sfu/print.h).
MODULE = re.compile(r'^\s*module (\d+) (.+) 0x([0-9a-f]{16})-0x([0-9a-f]{16}) (?:build-id ([0-9a-f]+)|no build-id)\s*$')
# A frame line's sp.
FRAME_SP = re.compile(r'\ssp 0x([0-9a-f]+)\s')
# Frames whose PC is a return address: symbolized as the call before it.
RETURN_SOURCES = {'table', 'fp', 'backchain'}


class Trace:
    def __init__(self, name):
        self.name = name
        self.expect = None
        self.frames = []  # (pc, source)
        self.sps = []  # the sp of each frame
        self.symbols = []  # (module, symbol column or None), one per frame
        self.placed = []  # per frame: the module line before it for its module, as (name, lo, hi)
        self.modules = {}  # module lines so far: name -> (lo, hi)
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
                cur.sps.append(int(FRAME_SP.search(line).group(1), 16))
                cur.symbols.append((m.group(5), m.group(6)))
                cur.placed.append(cur.modules.get(m.group(5)))
                continue
            m = MODULE.match(line)
            if m:
                cur.modules[m.group(2)] = (int(m.group(3), 16), int(m.group(4), 16))
                continue
            m = STOP.match(line)
            if m:
                cur.stop, cur.reliable = m.group(1), m.group(2) == 'reliable'
    return traces, counts, done, errors


def symbolize(sfu, elf, pcs, with_offset=False, bias=0):
    """{pc: function name} ('?' for a PC in no function); with_offset, sfu's own 'name+0xoff'.
    bias: the image ran that far from its link address: each pc is looked up at pc - bias."""
    if not pcs:
        return {}
    out = subprocess.run([sfu, 'symbolize', elf] + ['0x%x' % ((pc - bias) & MASK) for pc in pcs],
                         capture_output=True, text=True, check=True).stdout
    names = {}
    for line in out.splitlines():
        if line[:1].isspace():  # the source lines under each address
            continue
        addr, sym = line.split(' ', 1)
        pc = (int(addr, 16) + bias) & MASK
        if with_offset:
            names[pc] = sym
        else:  # an address in no function comes back as itself: "?" in expectations
            names[pc] = '?' if sym.startswith('0x') else sym.split('+')[0]
    return names


def source_lines(sfu, elf, pcs):
    """{pc: [(function, 'FILE:LINE'), ...]}: the source frames `sfu symbolize` gives each link-time
    address, innermost first (none for an address without line information)."""
    if not pcs:
        return {}
    out = subprocess.run([sfu, 'symbolize', elf] + ['0x%x' % pc for pc in pcs],
                         capture_output=True, text=True, check=True).stdout
    lines, cur = {}, None
    for line in out.splitlines():
        if not line[:1].isspace():
            cur = lines.setdefault(int(line.split(' ', 1)[0], 16), [])
            continue
        m = SOURCE_LINE.match(line)
        if m and cur is not None:
            cur.append((m.group(1), m.group(2)))
    return lines


MASK = (1 << 64) - 1
# A source line under an address in `sfu symbolize` and `sfu crash`: "    FUNC at FILE:LINE".
SOURCE_LINE = re.compile(r'^\s+(\S+) at (\S+:\d+)(?: \(inlined\))?\s*$')

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
    """Every call instruction of the kernel, by the return address it leaves (at the link address
    plus bias, where the image ran)."""

    def __init__(self, elf, bias=0):
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
                self.by_return[(last[0] + last[1] + bias) & MASK] = t.group(1) if direct else None
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


def check_symbols(t, full):
    """The names the device printed itself (name+0xoff/0xsize), frame by frame, against the host's
    symbolization of the same lookup address (PC - 1 for a return address): the same name, the
    offset of the PC itself, and no name where the host has none."""
    for i, ((pc, src), (module, sym)) in enumerate(zip(t.frames, t.symbols)):
        lookup = pc - 1 if src in RETURN_SOURCES else pc
        host = full.get(lookup, '?')
        if module == '-' or host == '?' or host.startswith('0x'):
            if sym:
                return 'frame #%d: the device names %s, the host nothing' % (i, sym)
            continue
        name, _, off = host.partition('+')
        want = '%s+0x%x' % (name, (int(off, 16) if off else 0) + pc - lookup)
        got, _, size = (sym or '').rpartition('/')
        if got != want or not re.fullmatch(r'0x[0-9a-f]+', size):
            return 'frame #%d: the device printed %s, the host says %s/0x...' % (i, sym or 'no name', want)
    return None


def check_trace(t, names, calls, full=None):
    """Returns None when the trace is what it expected, else why not. With full (the host's
    name+0xoff of every lookup address), the device's own names are checked too."""
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
    why = check_modules(t)
    if why:
        return why
    return check_symbols(t, full) if full is not None else None


# A core built without the names (CONFIG_SFU_NAMES=n, configs/walk-only.config) prints a stop
# reason as a code, S<n> (n its place in SFU_STOPS), which `sfu name` names, and no function names.
def stop_of_code(sfu, code):
    """The stop reason `sfu name` gives the code, or None when it is not a stop code."""
    if not re.fullmatch(r'S\d+', code or ''):
        return None
    r = subprocess.run([sfu, 'name', code], capture_output=True, text=True)
    return r.stdout.split()[1] if r.returncode == 0 and len(r.stdout.split()) == 2 else None


def check_unnamed(t, sfu):
    """A trace printed without names: its stop code named by `sfu name` (t.stop becomes the
    name), and no frame naming its function. None, or why not."""
    if t.stop is not None:
        name = stop_of_code(sfu, t.stop)
        if name is None:
            return 'stop %s is not a stop code (sfu name)' % t.stop
        t.stop = name
    named = [i for i, (_, sym) in enumerate(t.symbols) if sym]
    return 'frame #%d: the device printed a name, %s' % (named[0], t.symbols[named[0]][1]) if named else None


def check_modules(t):
    """A trace sfu_print_backtrace printed has a module line before the first frame of each module,
    whose text range holds the frame's lookup address (what a host needs to name the frames of an
    image that runs away from its link address). Traces printed frame by frame (sfu_print_frame)
    have none: then there is nothing to check."""
    if not t.modules:
        return None
    for i, ((pc, src), (module, _), placed) in enumerate(zip(t.frames, t.symbols, t.placed)):
        if module == '-':
            continue
        lookup = pc - 1 if src in RETURN_SOURCES else pc
        if placed is None:
            return 'frame #%d: no module line for %s before it' % (i, module)
        if not placed[0] <= lookup < placed[1]:
            return 'frame #%d: 0x%x is outside the module line\'s text 0x%x-0x%x' % (i, lookup, placed[0], placed[1])
    return None


def trace_names(sfu, elf, traces, with_offset=False, bias=0):
    """{pc: function} for every frame of the traces (return addresses looked up as PC-1); with_offset,
    {pc: 'name+0xoff'}. bias: the image ran that far from its link address."""
    return symbolize(sfu, elf, sorted({pc - 1 if src in RETURN_SOURCES else pc
                                       for t in traces for pc, src in t.frames}), with_offset, bias)


def judge(lines, sfu, elf, timed_out=False, crash=None, log=None, keep=None, reloc=None, unnamed=False):
    """Every check of one run's serial output. Returns (scenarios, counted, failures):
    {scenario: [checks, [why, ...]]}, the count lines that passed as (name, ok, total), and
    run-level failures as (what, why). crash: 'record' or 'torn' for a crash kernel's run, whose
    serial output is also in the file log (check_crash). reloc: a reloc kernel's run, a Reloc
    (its seed and where Breakpad's tools are): its frames are named at the bias the module lines
    say, and check_reloc runs. unnamed: the core has no names (check_unnamed), so the frames are
    checked against the ELF's symbols alone."""
    traces, counts, done, errors = parse(lines)
    failures = [('boot', e) for e in errors]
    if done is None and not timed_out:
        failures.append(('boot', 'no sfu-done line: the guest crashed or stopped early'))
    elif done not in (None, '0'):
        failures.append(('boot', 'the guest reported %s failures' % done))
    bias = 0
    if reloc:
        found, why = module_bias(traces, elf_symbols(elf))
        if why:
            failures.append(('bias', why))
        bias = found or 0
    names = trace_names(sfu, elf, traces, bias=bias)
    full = trace_names(sfu, elf, traces, with_offset=True, bias=bias)

    call_sites = []  # read the disassembly once, and only if a trace needs it

    def calls():
        if not call_sites:
            call_sites.append(CallSites(elf, bias))
        return call_sites[0]

    # Scenario = the trace name up to its first '/': "1-faults/ud2" belongs to "1-faults".
    scenarios, counted = {}, []
    for t in traces:
        s = scenarios.setdefault(t.name.split('/')[0], [0, []])
        s[0] += 1
        why = check_unnamed(t, sfu) if unnamed else None
        why = why or check_trace(t, names, calls, None if unnamed else full)
        if why:
            s[1].append('%s: %s' % (t.name, why))
    for name, ok, total in counts:
        s = scenarios.setdefault(name.split('/')[0], [0, []])
        s[0] += 1
        if total == 0 or ok != total:
            s[1].append('%s: %d of %d correct' % (name, ok, total))
        else:
            counted.append((name, ok, total))
    if crash:
        s = scenarios.setdefault(CRASH_SCENARIO, [0, []])
        s[0] += 1
        s[1] += ['%s/%s: %s' % (CRASH_SCENARIO, crash, why)
                 for why in check_crash(crash, lines, traces, sfu, elf, log, None if reloc else keep)]
    if reloc:
        for name, whys in check_reloc(reloc, lines, traces, sfu, elf, log, keep, bias):
            s = scenarios.setdefault(name, [0, []])
            s[0] += 1
            s[1] += whys
    if not scenarios and not failures:
        failures.append(('boot', 'the guest printed no scenario'))
    return scenarios, counted, failures


# ---- Crash runs (scenario 8; tests/qemu/README.md, "Crash records") ---------------------------
# A crash kernel boots twice in one run, and says so ("sfu-boot N"). Boot 1 finds no record,
# faults, prints the checked trace CRASH_TRACE, captures a record and resets the machine. Boot 2
# takes the record and prints it ('record'), or refuses it as torn ('torn': boot 1 reset in the
# middle of the capture) and ends the run.
CRASH_SCENARIO = '8-crash'
CRASH_TRACE = CRASH_SCENARIO + '/fault'
CRASH_BOOTS = 2
NO_RECORD = 'crash-no-record'  # boot 1's take: QEMU starts with RAM zeroed
TORN = 'crash-record-torn'
# A frame of `sfu crash`'s trace: as the device prints it, whatever follows the source.
DECODED_FRAME = re.compile(FRAME_START)


class Boot:
    """What one boot printed about its crash record."""

    def __init__(self, number):
        self.number = number
        self.refused = None   # sfu-crash-refused NAME: the take's refusal
        self.captured = None  # sfu-crash-captured NAME: the capture's answer
        self.captures = []    # crash-smp: (NAME, TRACE) from "sfu-crash-captured NAME TRACE"
        self.waited = []      # crash-smp: NAME from each "sfu-crash-waited NAME SPINS"
        self.tear = None      # (read, reads) from sfu-crash-tear: where the capture is cut
        self.printed = False  # sfu-crash-begin: the taken record, printed
        self.frames = []      # its readable trace: (pc, source) from the sfu-crash: lines
        self.stop = None      # (reason, reliable) from its stop line


def parse_boots(lines):
    """The boots of a crash run, in order, with what each printed about its record."""
    boots = []
    for raw in lines:
        line = raw.rstrip('\r\n')
        words = line.split()
        if line.startswith('sfu-boot '):
            boots.append(Boot(words[1] if len(words) > 1 else '?'))
        elif not boots:
            continue
        elif line.startswith('sfu-crash-refused ') and len(words) == 2:
            boots[-1].refused = words[1]
        elif line.startswith('sfu-crash-captured ') and len(words) == 2:
            boots[-1].captured = words[1]
        elif line.startswith('sfu-crash-captured ') and len(words) == 3:
            boots[-1].captures.append((words[1], words[2]))
        elif line.startswith('sfu-crash-waited ') and len(words) == 3:
            boots[-1].waited.append(words[1])
        elif line.startswith('sfu-crash-tear ') and len(words) == 3 and words[1].isdigit() and words[2].isdigit():
            boots[-1].tear = (int(words[1]), int(words[2]))
        elif line.startswith('sfu-crash-begin'):
            boots[-1].printed = True
        elif line.startswith('sfu-crash: '):
            text = line[len('sfu-crash: '):]
            m, stop = FRAME.match(text), STOP.match(text)
            if m:
                boots[-1].frames.append((int(m.group(3), 16), m.group(4)))
            elif stop:
                boots[-1].stop = (stop.group(1), stop.group(2) == 'reliable')
    return boots


def decode_record(sfu, elf, log, save=None):
    """Runs `sfu crash LOG --image ELF` as a user would. Returns (frames, stop, why): the decoded
    trace as (pc, source) and (reason, reliable), or why there is none. sfu crash must find one
    record, match its module to the image and walk its stack windows again to the same frames
    (exit 0). save: write the record's bytes there (--save-record)."""
    cmd = [sfu, 'crash', log, '--image', elf] + (['--save-record', save] if save else [])
    p = subprocess.run(cmd, capture_output=True, text=True)
    said = (p.stderr.strip() or p.stdout.strip()).splitlines()
    if p.returncode != 0:
        return None, None, 'sfu crash exited %d: %s' % (p.returncode, said[-1] if said else '(no output)')
    out = p.stdout.splitlines()
    records = [l for l in out if l.startswith('crash record ')]
    if len(records) != 1:
        return None, None, 'sfu crash decoded %d records, not 1' % len(records)
    if 'frames:' not in out:
        return None, None, 'sfu crash printed no frames'
    frames, stop = [], None
    for line in out[out.index('frames:') + 1:]:
        m, st = DECODED_FRAME.match(line), STOP.match(line)
        if m:
            frames.append((int(m.group(3), 16), m.group(4)))
        elif st:
            stop = (st.group(1), st.group(2) == 'reliable')
            break
    return frames, stop, None


def differs(frames, stop, trace):
    """How a trace (frames as (pc, source), stop as (reason, reliable)) differs from the Trace
    boot 1 printed, PC by PC and source by source; None when it does not."""
    want = trace.frames
    for i in range(max(len(frames), len(want))):
        got_i = '0x%x [%s]' % frames[i] if i < len(frames) else 'none'
        want_i = '0x%x [%s]' % want[i] if i < len(want) else 'none'
        if got_i != want_i:
            return 'frame #%d is %s, boot 1 had %s' % (i, got_i, want_i)
    verdict = lambda st: '%s (%s)' % (st[0], 'reliable' if st[1] else 'unreliable') if st else 'none'
    if stop != (trace.stop, trace.reliable):
        return 'stop %s, boot 1 had %s' % (verdict(stop), verdict((trace.stop, trace.reliable)))
    return None


# crash-smp (--crash smp): every CPU of boot 1 faults at once and captures; exactly one capture
# wins, every other answers one of LOST and waits for the winner (sfu-crash-waited ok) before
# resetting. Each CPU's trace is 8-crash/cpuN; the record is the winner's.
SMP_TRACE = CRASH_SCENARIO + '/cpu'
SMP_CPUS = 2
LOST = {'crash-capture-busy', 'crash-record-kept'}


def whole_traces(lines):
    """Why boot 1's traces were not printed whole (a line of another CPU inside one, or lines of two
    CPUs mixed into one), or None: between "sfu-trace" and its "sfu-end" only its expect line,
    frames and stop line may come, and from "sfu-boot 1" on every line must be one of the
    protocol's whole lines (a crash-smp kernel prints nothing else)."""
    inside, started = None, False
    whole = ('sfu-boot ', 'sfu-crash-refused ', 'sfu-trace ', 'sfu-expect ', 'sfu-end',
             'sfu-crash-captured ', 'sfu-crash-waited ', 'sfu-error ', 'sfu-done ')
    for raw in lines:
        line = raw.rstrip('\r\n')
        if line.startswith('sfu-boot ') and line != 'sfu-boot 1':
            break
        if line == 'sfu-boot 1':
            started = True
        elif line.startswith('sfu-trace '):
            if inside:
                return 'trace %s starts inside trace %s' % (line.split()[1], inside)
            inside, number = (line.split()[1] if len(line.split()) > 1 else '?'), 0
        elif line.startswith('sfu-end') and inside:
            inside = None
        elif inside and FRAME.match(line):
            # Frames are numbered from #0 in order: another CPU's whole frame line breaks that.
            if int(FRAME.match(line).group(1)) != number:
                return 'trace %s has frame line #%s where #%d belongs' % (
                    inside, FRAME.match(line).group(1), number)
            number += 1
        elif inside and not (line.startswith('sfu-expect ') or STOP.match(line) or MODULE.match(line)):
            return 'trace %s has a foreign line: %r' % (inside, line[:80])
        elif started and not (line.startswith(whole) or FRAME.match(line) or STOP.match(line) or MODULE.match(line)):
            return 'a mixed line: %r' % line[:80]
    return 'trace %s never ended' % inside if inside else None


def check_smp(first, traces, lines):
    """crash-smp's boot 1: returns (the winner's Trace or None, why it fails)."""
    whys = []
    names = sorted(t.name for t in traces if t.name.startswith(SMP_TRACE))
    want = ['%s%d' % (SMP_TRACE, n) for n in range(SMP_CPUS)]
    if names != want:
        whys.append('boot 1 printed the traces %s, expected %s' % (' '.join(names) or 'none', ' '.join(want)))
    if sorted(t for _, t in first.captures) != want:
        whys.append('boot 1\'s captures answered for %s, expected %s' % (
            ' '.join(sorted(t for _, t in first.captures)) or 'none', ' '.join(want)))
    winners = [t for a, t in first.captures if a == 'ok']
    losers = [(a, t) for a, t in first.captures if a != 'ok']
    if len(winners) != 1:
        whys.append('%d captures won (%s), not exactly 1' % (len(winners), ' '.join(winners) or 'none'))
    for a, t in losers:
        if a not in LOST:
            whys.append('%s\'s capture answered %s, not one of %s' % (t, a, ' '.join(sorted(LOST))))
    if first.waited != ['ok'] * len(losers):
        whys.append('the losers\' sfu_crash_wait answered %s, expected ok for each of %d' % (
            ' '.join(first.waited) or 'nothing', len(losers)))
    why = whole_traces(lines)
    if why:
        whys.append('interleaved output: ' + why)
    winner = next((t for t in traces if winners and t.name == winners[0]), None)
    return winner, whys


def check_crash(mode, lines, traces, sfu, elf, log, keep=None):
    """A crash run's checks beyond its traces: the boots, the takes, and the record (mode
    'record': decoded by `sfu crash` from the log file, equal to boot 1's trace; 'torn': refused
    as torn). Returns why it fails, [] when it passes. keep: a directory to keep the decoded
    record and the kernel in (record.bin, kernel.elf)."""
    boots = parse_boots(lines)
    if not boots:
        return ['no sfu-boot line: the kernel never started, or is not a crash kernel']
    numbers = [b.number for b in boots]
    if numbers != [str(n) for n in range(1, len(boots) + 1)]:
        return ['boots %s: the boot count did not survive a reset' % ' '.join(numbers)]
    if len(boots) != CRASH_BOOTS:
        return ['%d boots, not %d: the machine %s' % (len(boots), CRASH_BOOTS, 'reset more than once'
                if len(boots) > CRASH_BOOTS else 'did not boot again after the crash')]
    first, second = boots
    whys = []
    if first.refused != NO_RECORD:
        whys.append('boot 1 took %s, expected the refusal %s' % (first.refused or 'a record', NO_RECORD))
    trace = next((t for t in traces if t.name == CRASH_TRACE), None)
    if mode == 'torn':
        read, reads = first.tear or (0, 0)
        if not 0 < read < reads:
            whys.append('boot 1 did not say where its capture is cut (sfu-crash-tear READ READS)')
        if first.captured is not None:
            whys.append('boot 1\'s capture ended (%s): the reset did not cut it' % first.captured)
        if second.printed or second.refused != TORN:
            whys.append('boot 2 %s, expected the refusal %s' % (
                'printed a record' if second.printed else 'took ' + (second.refused or 'nothing'), TORN))
        return whys
    if mode == 'smp':
        trace, smp_whys = check_smp(first, traces, lines)
        whys += smp_whys
    elif first.captured != 'ok':
        whys.append('boot 1\'s capture gave %s' % (first.captured or 'no answer'))
    if not second.printed:
        return whys + ['boot 2 printed no record (%s)' % (second.refused or 'no refusal either')]
    if trace is None:
        return whys + ['boot 1 printed no %s to compare the record with' % (
            'winning trace' if mode == 'smp' else 'trace ' + CRASH_TRACE)]
    why = differs(second.frames, second.stop, trace)
    if why:
        whys.append('the record boot 2 printed: ' + why)
    save = None
    if keep:
        os.makedirs(keep, exist_ok=True)
        save = os.path.join(keep, 'record.bin')
        if os.path.exists(save):
            os.remove(save)
        shutil.copyfile(elf, os.path.join(keep, 'kernel.elf'))
    frames, stop, why = decode_record(sfu, elf, log, save)
    if not why:
        why = differs(frames, stop, trace)
    if why:
        whys.append('sfu crash: ' + why)
    return whys


# ---- Moved images (--reloc; scenario 11, tests/qemu/README.md, "Images that move themselves") ---------------
# A reloc kernel is the crash kernel linked position independent: at each boot it moves itself by
# a bias its seed decides (common/reloc.c), says so ("sfu-reloc seed S load L run R bias B relocs
# N", after "sfu-boot N"), and runs the crash scenario there. The runner gives the seed, finds the
# bias itself (a module line's text start minus the ELF's _stext), names every frame at
# PC - bias, and checks the move (RELOC_SCENARIO) and each host command on the moved image.
RELOC_SCENARIO = '11-reloc'
RELOC_LINE = re.compile(r'^sfu-reloc seed 0x([0-9a-f]+) load 0x([0-9a-f]+) run 0x([0-9a-f]+) '
                        r'bias 0x([0-9a-f]+) relocs (\d+)\s*$')
IMAGE = 'image'  # the module name sfu_register_image gives
# What the runner reads from a reloc kernel's ELF (reloc/kernel.ld*, qemu.mk's qemu_reloc_ldflags).
RELOC_SYMBOLS = ('_stext', '_etext', '__reloc_image_start', '__reloc_image_end', '__reloc_window_lo',
                 '__reloc_window_hi', '__reloc_align')
# `sfu stackwalk`'s readable frames: "#N  0xPC  sp 0xSP  TRUST  MODULE  [NAME[+0xOFF]]  [FILE:LINE]".
STACKWALK_FRAME = re.compile(r'^\s*#(\d+)\s+0x([0-9a-f]+)\s+sp 0x([0-9a-f]+)\s+\S+\s+\S+(?:\s+(\S+))?')
FILE_LINE = re.compile(r'^\S+:\d+$')
# What `sfu symbolize --image` appends to a frame line: "  NAME[+0xOFF] FILE:LINE[ (FUNC inlined)]".
ANNOTATION = re.compile(r'^  (\S+) (\S+:\d+)(?: \(\S+ inlined\))?$')
# minidump_stackwalk: a frame's first line (" 0  module!function [...]"), its pc and sp.
BREAKPAD_FRAME = re.compile(r'^\s?\s?\d+  \S')
BREAKPAD_PC = re.compile(r'\b(?:pc|rip) = 0x([0-9a-f]+)')
BREAKPAD_SP = re.compile(r'\b(?:sp|rsp) = 0x([0-9a-f]+)')
# e_machine of the architectures Breakpad has minidumps for (x86_64, arm64), and arm64 (microdumps).
MINIDUMP_MACHINES = {62, 183}
EM_AARCH64 = 183


class Reloc:
    """A reloc kernel's run: the seed the runner gave, where Breakpad's tools are."""

    def __init__(self, seed, breakpad=None):
        self.seed = seed
        self.breakpad = breakpad


def pick_seed(environ=os.environ):
    """SFU_RELOC_SEED when set (to replay a run), else a random non-zero 64-bit seed."""
    given = environ.get('SFU_RELOC_SEED')
    if given:
        return int(given, 0) & MASK
    return random.getrandbits(64) | 1


def elf_symbols(elf):
    """{name: value} of the ELF's symbols (readelf reads every architecture's)."""
    out = subprocess.run(['readelf', '-sW', elf], capture_output=True, text=True, check=True).stdout
    syms = {}
    for line in out.splitlines():
        f = line.split()
        if len(f) >= 8 and f[0].endswith(':') and re.fullmatch(r'[0-9a-f]+', f[1]):
            syms.setdefault(f[7], int(f[1], 16))
    return syms


def elf_machine(elf):
    with open(elf, 'rb') as f:
        head = f.read(20)
    return int.from_bytes(head[18:20], 'big' if head[5] == 2 else 'little')


def elf_build_id(elf):
    out = subprocess.run(['readelf', '-n', elf], capture_output=True, text=True, check=True).stdout
    m = re.search(r'Build ID: ([0-9a-f]+)', out)
    return m.group(1) if m else None


def reloc_slot(seed, link, span, lo, hi, align):
    """(the copy's place, the number of places) for a seed, as common/reloc.c's reloc_slot: slot
    number seed mod the count of align-aligned places in [lo, hi) whose [place, place + span) is
    off [link, link + span)."""
    if hi <= lo or span > hi - lo:
        return link, 0
    count = (hi - lo - span) // align + 1
    below = min((link - lo - span) // align + 1 if link >= lo + span else 0, count)
    first_above = 0 if link + span <= lo else (link + span - lo + align - 1) // align
    above = count - first_above if first_above < count else 0
    slots = below + above
    if not slots:
        return link, 0
    i = seed % slots
    return lo + (i if i < below else first_above + (i - below)) * align, slots


def module_bias(traces, syms):
    """The bias the traces' module lines say for the image: its text start there minus the ELF's
    _stext. Returns (bias, None) or (None, why there is none)."""
    if '_stext' not in syms or '_etext' not in syms:
        return None, 'the ELF has no _stext and _etext'
    ranges = {t.modules[IMAGE] for t in traces if IMAGE in t.modules}
    if not ranges:
        return None, 'no module line for %s: the bias cannot be found' % IMAGE
    if len(ranges) > 1:
        return None, 'the traces place %s at %s' % (IMAGE, ', '.join('0x%x-0x%x' % r for r in sorted(ranges)))
    lo, hi = ranges.pop()
    if hi - lo != syms['_etext'] - syms['_stext']:
        return None, 'the module line\'s text 0x%x-0x%x is not as long as _stext-_etext (0x%x)' % (
            lo, hi, syms['_etext'] - syms['_stext'])
    return (lo - syms['_stext']) & MASK, None


def reloc_lines(lines):
    """[(boot number, the sfu-reloc line's match or None for a malformed one)] in order."""
    found, number = [], None
    for raw in lines:
        line = raw.rstrip('\r\n')
        if line.startswith('sfu-boot '):
            number = line.split()[1] if len(line.split()) > 1 else '?'
        elif line.startswith('sfu-reloc '):
            found.append((number, RELOC_LINE.match(line)))
    return found


def record_bytes(lines):
    """The record boot 2 printed, decoded by the runner itself from its sfu-crash-data lines (each
    line's base64 on its own), or None."""
    data, seen = b'', False
    for raw in lines:
        words = raw.rstrip('\r\n').split()
        if words[:1] == ['sfu-crash-data'] and len(words) == 4:
            data += base64.b64decode(words[2])
            seen = True
    return data if seen else None


def expected_frames(trace, sfu, elf, bias):
    """Boot 1's trace as the host names it: [(pc, sp, 'name+0xOFF' or None, [(func, FILE:LINE)])],
    each frame looked up at its lookup address minus bias, OFF the PC's own offset."""
    lookups = [pc - 1 if src in RETURN_SOURCES else pc for pc, src in trace.frames]
    named = symbolize(sfu, elf, sorted(set(lookups)), True, bias)
    sources = source_lines(sfu, elf, sorted({(l - bias) & MASK for l in lookups}))
    want = []
    for (pc, src), sp, lookup in zip(trace.frames, trace.sps, lookups):
        host = named.get(lookup, '0x')
        sym = None
        if not host.startswith('0x'):
            name, _, off = host.partition('+')
            sym = '%s+0x%x' % (name, (int(off, 16) if off else 0) + pc - lookup)
        want.append((pc, sp, sym, sources.get((lookup - bias) & MASK, [])))
    return want


def same_frames(got, want):
    """got: [(pc, sp, name or None)] against want (expected_frames): None when every frame has the
    expected pc, sp and function name, else the first difference."""
    for i in range(max(len(got), len(want))):
        if i >= len(got) or i >= len(want):
            return '%d frames, the device\'s trace has %d' % (len(got), len(want))
        pc, sp, name = got[i]
        wpc, wsp, wsym, _ = want[i]
        wname = wsym.split('+')[0] if wsym else None
        if (pc, sp, name) != (wpc, wsp, wname):
            return 'frame #%d is 0x%x sp 0x%x %s, the device\'s 0x%x sp 0x%x %s' % (
                i, pc, sp, name or '(no name)', wpc, wsp, wname or '(no name)')
    return None


def run_tool(cmd, out=None):
    """Runs a host command; returns (exit status, stdout, a short account of what it said). out:
    a file to keep its stdout and stderr in."""
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, errors='replace')
    except OSError as e:
        return 127, '', str(e)
    if out:
        with open(out, 'w') as f:
            f.write(p.stdout + p.stderr)
    said = (p.stderr.strip() or p.stdout.strip()).splitlines()
    return p.returncode, p.stdout, said[-1] if said else '(no output)'


def check_crash_names(sfu, elf, log, want, keep):
    """`sfu crash LOG --image ELF` (the unmoved ELF): exit 0 (its re-walk equals the device's
    frames), and every frame the name and source lines the host gives its link-time address."""
    rc, out, said = run_tool([sfu, 'crash', log, '--image', elf], os.path.join(keep, 'crash.txt'))
    if rc != 0:
        return ['sfu crash exited %d: %s' % (rc, said)]
    lines = out.splitlines()
    if 'frames:' not in lines:
        return ['sfu crash printed no frames']
    frames = []  # [symbol, [(func, FILE:LINE)]]
    for line in lines[lines.index('frames:') + 1:]:
        m = DECODED_FRAME.match(line)
        if m:
            f = FRAME.match(line)
            frames.append([f.group(6) if f else None, []])
        elif frames and SOURCE_LINE.match(line):
            frames[-1][1].append(SOURCE_LINE.match(line).groups())
        elif STOP.match(line):
            break
    whys = []
    if len(frames) != len(want):
        whys.append('sfu crash printed %d frames, the device %d' % (len(frames), len(want)))
    for i, ((sym, src), (_, _, wsym, wsrc)) in enumerate(zip(frames, want)):
        if not wsym or not wsrc:
            whys.append('frame #%d: the host has no %s for it at its link address' % (i, 'name' if not wsym else 'source line'))
        elif not same_symbol(sym, wsym) or src[:1] != wsrc[:1]:
            whys.append('frame #%d: sfu crash names it %s%s, the host %s %s' % (
                i, sym or '(no name)', ' at ' + src[0][1] if src else ' (no source line)', wsym, wsrc[0][1]))
    return whys[:3]


def check_symbolize(sfu, elf, log, lines, want, keep):
    """`sfu symbolize --image ELF < LOG`: every frame line of the log (boot 1's trace and the
    record's, "sfu-crash: " lines) comes back with "  NAME+0xOFF FILE:LINE" after it, the name
    and the innermost source line the host gives its link-time address; exit 0."""
    try:
        with open(log) as f:
            p = subprocess.run([sfu, 'symbolize', '--image', elf], stdin=f, capture_output=True,
                               text=True, errors='replace')
    except OSError as e:
        return ['sfu symbolize: %s' % e]
    with open(os.path.join(keep, 'symbolize.txt'), 'w') as f:
        f.write(p.stdout + p.stderr)
    whys = []
    if p.returncode != 0:
        said = (p.stderr.strip() or p.stdout.strip()).splitlines()
        whys.append('sfu symbolize --image exited %d: %s' % (p.returncode, said[-1] if said else '(no output)'))
    by_pc = {w[0]: w for w in want}
    out = p.stdout.splitlines()
    at = 0
    for raw in lines:
        line = raw.rstrip('\r\n')
        text = line[len('sfu-crash: '):] if line.startswith('sfu-crash: ') else line
        m = FRAME.match(text)
        if not m:
            continue
        pc = int(m.group(3), 16)
        while at < len(out) and not out[at].startswith(line):
            at += 1
        if at == len(out):
            whys.append('the frame line of 0x%x is missing from its output' % pc)
            break
        rest = out[at][len(line):]
        at += 1
        w = by_pc.get(pc)
        if w is None:
            whys.append('0x%x: a frame the runner has no expectation for' % pc)
            continue
        if not (w[2] and w[3]):
            whys.append('0x%x: the host has no name and source line for it at its link address' % pc)
            continue
        got = ANNOTATION.match(rest)
        if not got or not same_symbol(got.group(1), w[2]) or got.group(2) != w[3][0][1]:
            whys.append('0x%x annotated %r, expected %r' % (pc, rest.strip() or '(nothing)', '%s %s' % (w[2], w[3][0][1])))
    return whys[:3]


def breakpad_walk(bp, dump, syms, out):
    """minidump_stackwalk's frames of a minidump: [(pc, sp, function or None)], or why none."""
    full = subprocess.run([os.path.join(bp, 'minidump_stackwalk'), dump, syms], capture_output=True,
                          text=True, errors='replace').stdout
    machine = subprocess.run([os.path.join(bp, 'minidump_stackwalk'), '-m', dump, syms],
                             capture_output=True, text=True, errors='replace').stdout
    with open(out, 'w') as f:
        f.write(full + '\n' + machine)
    regs = []  # [pc, sp] per frame of the crashed thread
    for line in full.splitlines():
        if line.startswith('Thread ') and regs:
            break
        if BREAKPAD_FRAME.match(line):
            regs.append([None, None])
        elif regs:
            pc, sp = BREAKPAD_PC.search(line), BREAKPAD_SP.search(line)
            if pc:
                regs[-1][0] = int(pc.group(1), 16)
            if sp:
                regs[-1][1] = int(sp.group(1), 16)
    names = [l.split('|') for l in machine.splitlines() if l.startswith('0|')]
    if not regs:
        return None, 'minidump_stackwalk gave no frames'
    if len(names) != len(regs):
        return None, 'minidump_stackwalk gave %d frames, and %d -m lines' % (len(regs), len(names))
    return [(pc, sp, n[3] or None) for (pc, sp), n in zip(regs, names)], None


def check_minidump(sfu, bp, elf, log, want, keep):
    """`sfu minidump` of the record (from the serial log, the unmoved ELF), walked by Breakpad's
    minidump_stackwalk with dump_syms' symbols: the device's frames, pc, sp and name."""
    tools = [os.path.join(bp or '', t) for t in ('dump_syms', 'minidump_stackwalk')]
    missing = [t for t in tools if not os.access(t, os.X_OK)]
    if not bp or missing:
        return ['Breakpad\'s tools are not there (%s): make builds them with %s' % (
            ', '.join(missing) or 'no --breakpad', '../shared/oracles/breakpad/build.sh')]
    dump = os.path.join(keep, 'crash.dmp')
    rc, _, said = run_tool([sfu, 'minidump', log, '--image', elf, '-o', dump], os.path.join(keep, 'minidump.txt'))
    if rc != 0:
        return ['sfu minidump exited %d: %s' % (rc, said)]
    p = subprocess.run([tools[0], elf], capture_output=True, text=True, errors='replace')
    head = p.stdout.split('\n', 1)[0].split()
    if p.returncode != 0 or len(head) != 5 or head[0] != 'MODULE':
        return ['dump_syms %s failed: %s' % (elf, (p.stderr.strip().splitlines() or ['?'])[-1])]
    syms = os.path.join(keep, 'symbols')
    shutil.rmtree(syms, ignore_errors=True)
    os.makedirs(os.path.join(syms, head[4], head[3]))
    with open(os.path.join(syms, head[4], head[3], head[4] + '.sym'), 'w') as f:
        f.write(p.stdout)
    got, why = breakpad_walk(bp, dump, syms, os.path.join(keep, 'minidump_stackwalk.txt'))
    why = why or same_frames(got, want)
    return ['minidump_stackwalk: ' + why] if why else []


def stackwalk_frames(out):
    """[(pc, sp, function or None)] of `sfu stackwalk`'s readable trace."""
    frames = []
    for m in (STACKWALK_FRAME.match(l) for l in out.splitlines()):
        if m:
            sym = m.group(4) if m.group(4) and not FILE_LINE.match(m.group(4)) else None
            frames.append((int(m.group(2), 16), int(m.group(3), 16), sym.split('+')[0] if sym else None))
    return frames


def same_symbol(got, want):
    """Symbols as 'name+0xoff', where a tool may leave out an offset of 0."""
    plain = lambda s: s[:-len('+0x0')] if s and s.endswith('+0x0') else s
    return plain(got) == plain(want)


def check_stackwalk(sfu, elf, inputs, want, keep):
    """`sfu stackwalk INPUT --image ELF` on each input (the record, the serial log, arm64's
    microdump): the device's frames, pc, sp and name."""
    whys = []
    for what, path in inputs:
        rc, out, said = run_tool([sfu, 'stackwalk', path, '--image', elf],
                                 os.path.join(keep, 'stackwalk-%s.txt' % what))
        if rc != 0:
            whys.append('on the %s: sfu stackwalk exited %d: %s' % (what, rc, said))
            continue
        why = same_frames(stackwalk_frames(out), want)
        if why:
            whys.append('on the %s: %s' % (what, why))
    return whys


def check_reloc(reloc, lines, traces, sfu, elf, log, keep, bias):
    """A reloc kernel's run, beyond the crash run's checks: [(scenario, [why, ...])].
    11-reloc: each boot moved the image by the seed the runner gave, to the place reloc_slot
    gives it (the window read from the ELF), by the bias the module lines say (their text range
    the ELF's _stext-_etext plus the bias, their build-id the ELF's), with RELATIVE relocations
    only. Then the host commands, on the unmoved ELF: sfu crash (names and source lines),
    sfu symbolize --image (the serial log's every frame line), and on x86_64 and arm64 (Breakpad
    has no s390x) sfu minidump walked by minidump_stackwalk and sfu stackwalk (record, log,
    arm64's microdump), each against boot 1's trace. keep: where the log, the image, the record and what each command said
    stay (a temporary directory without)."""
    if keep is None:
        with tempfile.TemporaryDirectory() as tmp:
            return check_reloc(reloc, lines, traces, sfu, elf, log, tmp, bias)
    os.makedirs(keep, exist_ok=True)
    kept_elf, kept_log = os.path.join(keep, 'kernel.elf'), os.path.join(keep, 'serial.log')
    if os.path.abspath(elf) != os.path.abspath(kept_elf):
        shutil.copyfile(elf, kept_elf)
    with open(kept_log, 'w') as f:
        f.write(''.join(l if l.endswith('\n') else l + '\n' for l in lines))
    syms = elf_symbols(elf)
    whys = []
    moved = reloc_lines(lines)
    boots = [n for n, _ in moved]
    missing = [n for n in RELOC_SYMBOLS if n not in syms]
    if missing:
        whys.append('%s has no %s: not a reloc kernel' % (elf, ', '.join(missing)))
    elif boots != ['1', '2'] or not all(m for _, m in moved):
        whys.append('sfu-reloc lines in boots %s, expected one well-formed in boot 1 and one in boot 2' % (
            ' '.join(str(b) for b in boots) or 'none'))
    else:
        said = [tuple(int(g, 16) for g in m.groups()[:4]) + (int(m.group(5)),) for _, m in moved]
        if said[0] != said[1]:
            whys.append('boot 2 moved the image otherwise than boot 1')
        seed, load, run, said_bias, relocs = said[0]
        link = syms['__reloc_image_start']
        align = syms['__reloc_align']
        span = (syms['__reloc_image_end'] - link + align - 1) // align * align
        place, slots = reloc_slot(reloc.seed, link, span, syms['__reloc_window_lo'], syms['__reloc_window_hi'], align)
        if seed != reloc.seed:
            whys.append('the kernel read the seed 0x%x, the runner gave 0x%x' % (seed, reloc.seed))
        if not slots:
            whys.append('the window has no place for the image')
        if load != link:
            whys.append('loaded at 0x%x, not at the link address 0x%x' % (load, link))
        if run != place or said_bias != (place - link) & MASK:
            whys.append('ran at 0x%x (bias 0x%x), the seed gives 0x%x (bias 0x%x)' % (
                run, said_bias, place, (place - link) & MASK))
        if bias != said_bias:
            whys.append('the module lines say the bias 0x%x, the kernel 0x%x' % (bias, said_bias))
        if bias == 0 or bias % align:
            whys.append('the bias 0x%x is not a non-zero multiple of 0x%x' % (bias, align))
        types = [l.split()[2] for l in subprocess.run(['readelf', '-rW', elf], capture_output=True, text=True,
                                                       check=True).stdout.splitlines()
                 if re.match(r'^[0-9a-f]{8,16}\s+[0-9a-f]+\s+\S', l)]
        other = sorted({t for t in types if not t.endswith('_RELATIVE')})
        if other or len(types) != relocs:
            whys.append('the image has %d dynamic relocations (%s), the kernel applied %d' % (
                len(types), ', '.join(other) + ' besides RELATIVE' if other else 'all RELATIVE', relocs))
    build_id = elf_build_id(elf)
    stext, etext = syms.get('_stext', 0), syms.get('_etext', 0)
    for raw in lines:
        line = raw.rstrip('\r\n')
        text = line[len('sfu-crash: '):] if line.startswith('sfu-crash: ') else line
        m = MODULE.match(text)
        if m and m.group(2) == IMAGE:
            lo, hi = int(m.group(3), 16), int(m.group(4), 16)
            if (lo, hi) != ((stext + bias) & MASK, (etext + bias) & MASK) or m.group(5) != build_id:
                whys.append('module line %r: expected 0x%x-0x%x build-id %s' % (
                    text.strip(), (stext + bias) & MASK, (etext + bias) & MASK, build_id))
    results = [(RELOC_SCENARIO, whys)]

    trace = next((t for t in traces if t.name == CRASH_TRACE), None)
    if trace is None or not trace.frames:
        return results + [(RELOC_SCENARIO + '-host', ['no trace %s to check the host commands against' % CRASH_TRACE])]
    want = expected_frames(trace, sfu, elf, bias)
    record = record_bytes(lines)
    kept_record = os.path.join(keep, 'record.bin')
    if os.path.exists(kept_record):
        os.remove(kept_record)
    if record is not None:
        with open(kept_record, 'wb') as f:
            f.write(record)
    results.append((RELOC_SCENARIO + '-crash', check_crash_names(sfu, kept_elf, kept_log, want, keep)))
    results.append((RELOC_SCENARIO + '-symbolize', check_symbolize(sfu, kept_elf, kept_log, lines, want, keep)))
    machine = elf_machine(elf)
    if machine not in MINIDUMP_MACHINES:
        return results  # Breakpad has no s390x: sfu minidump and sfu stackwalk refuse its records
    results.append((RELOC_SCENARIO + '-minidump', check_minidump(sfu, reloc.breakpad, kept_elf, kept_log, want, keep)))
    inputs = [('log', kept_log)]
    if record is None:
        results.append((RELOC_SCENARIO + '-stackwalk', ['boot 2 printed no record data']))
    else:
        inputs.insert(0, ('record', kept_record))
    if machine == EM_AARCH64:
        micro = os.path.join(keep, 'crash.micro')
        rc, _, said = run_tool([sfu, 'minidump', kept_log, '--image', kept_elf, '--microdump', '-o', micro],
                               os.path.join(keep, 'microdump.txt'))
        if rc != 0:
            results.append((RELOC_SCENARIO + '-stackwalk', ['sfu minidump --microdump exited %d: %s' % (rc, said)]))
        else:
            inputs.append(('microdump', micro))
    results.append((RELOC_SCENARIO + '-stackwalk', check_stackwalk(sfu, kept_elf, inputs, want, keep)))
    return results


def boot(cmd, timeout, max_boots=None):
    """Runs QEMU to its end. Returns (output, why it was killed or None): after timeout seconds,
    or once the guest printed more than max_boots "sfu-boot" lines (a machine that keeps
    resetting, which a crash run's boot count could not stop)."""
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out, killed = bytearray(), None
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            killed = 'killed after %gs: the guest hung' % timeout
            break
        if not select.select([proc.stdout], [], [], left)[0]:
            continue
        chunk = os.read(proc.stdout.fileno(), 65536)
        if not chunk:
            break
        out += chunk
        if max_boots is not None and len(re.findall(rb'(?m)^sfu-boot ', out)) > max_boots:
            killed = 'killed at boot %d: the machine kept resetting' % (max_boots + 1)
            break
    if killed:
        proc.kill()
    proc.stdout.close()
    proc.wait()
    return out.decode('utf-8', 'replace'), killed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sfu', required=True)
    ap.add_argument('--elf', required=True)
    ap.add_argument('--label', required=True)
    ap.add_argument('--timeout', type=float, default=120)
    ap.add_argument('--log', required=True)
    ap.add_argument('--crash', choices=('record', 'torn', 'smp'), help='a crash kernel\'s run (check_crash)')
    ap.add_argument('--keep', help='with --crash record: keep record.bin and kernel.elf here')
    ap.add_argument('--reloc', action='store_true',
                    help='a reloc kernel\'s run (check_reloc): the seed goes where the command says {seed}')
    ap.add_argument('--breakpad', help='with --reloc: the directory of Breakpad\'s dump_syms and minidump_stackwalk')
    ap.add_argument('--no-names', action='store_true',
                    help='a core without names (CONFIG_SFU_NAMES=n): stop codes, no function names')
    ap.add_argument('--profile', metavar='DIR',
                    help='a profile kernel\'s run (profile_check.py): its checks, its log and image kept in DIR')
    ap.add_argument('--every', nargs=2, metavar=('ARCH', 'TABLE'),
                    help='an every-instruction kernel\'s run, gdb_oracle.py attached (every_check.py)')
    ap.add_argument('--oracle-every', type=int, metavar='K',
                    help='with --every: gdb compares every K-th stepped walk (default: every_check.ORACLE_EVERY)')
    ap.add_argument('qemu', nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.qemu[1:] if a.qemu and a.qemu[0] == '--' else a.qemu
    reloc = None
    if a.reloc:
        if a.crash != 'record':
            print('qemu-run: --reloc is a crash run\'s: give --crash record too', file=sys.stderr)
            return 2
        reloc = Reloc(pick_seed(), a.breakpad)
        if not any('{seed}' in c for c in cmd):
            print('qemu-run: the QEMU command has no {seed} for --reloc', file=sys.stderr)
            return 2
        cmd = [c.replace('{seed}', '0x%x' % reloc.seed) for c in cmd]
        print('qemu: %s %s: seed 0x%x (SFU_RELOC_SEED=0x%x replays this run)' % (
            a.label, RELOC_SCENARIO, reloc.seed, reloc.seed))

    # A crash kernel ends the run itself by boot CRASH_BOOTS + 1 when its boot count survives
    # resets; one boot more means it did not.
    oracle = None
    if a.every:
        arch, table = a.every
        every = a.oracle_every or every_check.ORACLE_EVERY.get(arch, 1)
        output, killed, oracle, seconds = every_check.boot_with_gdb(
            boot, cmd, a.timeout, a.elf, arch, every, os.path.splitext(a.log)[0] + '.oracle')
    else:
        output, killed = boot(cmd, a.timeout, CRASH_BOOTS + 1 if a.crash else None)
    with open(a.log, 'w') as log:
        log.write(output)
    scenarios, counted, failures = judge(output.splitlines(), a.sfu, a.elf, killed is not None,
                                         a.crash, a.log, a.keep, reloc, a.no_names)
    if killed:
        failures.insert(0, ('boot', killed))
    if a.profile:
        profile_check.add_to(scenarios, a.sfu, a.elf, a.log, a.profile)
    if a.every:
        line, limited, whys = every_check.judge(arch, table, parse(output.splitlines())[1],
                                                every_check.handed_over(output.splitlines()), oracle)
        for text in ([line] if line else []) + limited:
            print(text)
        if not isinstance(oracle, str):
            print('qemu: %s gdb compared every %dth walk: %d in %.1f s (the run: %.1f s)' % (
                a.label, every, oracle['compared'], oracle.get('seconds', 0), seconds))
        s = scenarios.setdefault(every_check.SCENARIO + '-gdb', [0, []])
        s[0] += 1
        s[1] += whys

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
