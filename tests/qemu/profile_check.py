"""Scenario 12's checks (tests/qemu/README.md, "The profile kernels"), for run.py --profile DIR.

The profile kernel prints, after its ticks:

    sfu-share NAME PARTS TOTAL          a workload function and its known share, PARTS of TOTAL
    sfu-profile-begin ... sfu-profile-end ...   the profile (docs/profile-format.md)
    sfu-raw-stack COUNT STOP ADDR ...   its own second count of the same ticks: each distinct
                                        stack's lookup addresses, innermost first
    sfu-raw-end stacks=S samples=N

and the checks are:

- 12-profile-raw: the second count is whole (S lines, N samples, at least MIN_SAMPLES) and
  counts the ticks the profile says it took, its walks stopped for the reasons the profile's
  sfu-profile-stopped lines count.
- 12-profile-top: `sfu profile LOG --image ELF --format top` gives each NAME a share within
  TOLERANCE percentage points of PARTS/TOTAL, and the same count the raw stacks give it.
- 12-profile-folded: `sfu profile ... --format folded` equals the raw stacks folded here: each
  address named with `sfu symbolize ELF ADDR...` (the function of the symbol table, as
  `sfu profile` names a frame; one in no function by its address), outermost first, joined with
  ';', counts added up per stack.

DIR keeps the run: serial.log, kernel.elf, and what each command printed (top.txt,
folded.txt) with the folding of the raw stacks (raw.folded).
"""
import os
import re
import shutil
import subprocess

SCENARIO = '12-profile'
MIN_SAMPLES = 10000
TOLERANCE = 3.0  # percentage points

SHARE = re.compile(r'^sfu-share (\S+) (\d+) (\d+)\s*$')
RAW_STACK = re.compile(r'^sfu-raw-stack (\d+) (\S+)((?: 0x[0-9a-f]+)+)\s*$')
RAW_END = re.compile(r'^sfu-raw-end stacks=(\d+) samples=(\d+)\s*$')
# The profile's end line (docs/profile-format.md), after any console prefix.
PROFILE_END = re.compile(r'sfu-profile-end samples=(\d+) counted=(\d+) lines=(\d+) 0x[0-9a-f]{8}\s*$')
PROFILE_STOPPED = re.compile(r'sfu-profile-stopped (\S+) (\d+) 0x[0-9a-f]{8}\s*$')
# A line of `sfu profile --format folded`: "root;...;leaf COUNT".
FOLDED = re.compile(r'^(\S(?:.*\S)?) (\d+)$')


class Raw:
    """What the kernel printed besides the profile."""

    def __init__(self):
        self.shares = []  # (name, parts, total)
        self.stacks = []  # (count, stop, [addr, ...] innermost first)
        self.end = None   # (stacks, samples) of the sfu-raw-end line
        self.profile_samples = []  # samples= of each sfu-profile-end line
        self.profile_stopped = {}  # stop reason -> samples, from the sfu-profile-stopped lines
        self.bad = []     # lines that start like ours and do not parse


def parse(lines):
    raw = Raw()
    for line in lines:
        line = line.rstrip('\r\n')
        if line.startswith('sfu-share '):
            m = SHARE.match(line)
            if m:
                raw.shares.append((m.group(1), int(m.group(2)), int(m.group(3))))
            else:
                raw.bad.append(line)
        elif line.startswith('sfu-raw-stack '):
            m = RAW_STACK.match(line)
            if m:
                raw.stacks.append((int(m.group(1)), m.group(2), [int(a, 16) for a in m.group(3).split()]))
            else:
                raw.bad.append(line)
        elif line.startswith('sfu-raw-end '):
            m = RAW_END.match(line)
            if m:
                raw.end = (int(m.group(1)), int(m.group(2)))
            else:
                raw.bad.append(line)
        else:
            m = PROFILE_END.search(line)
            if m:
                raw.profile_samples.append(int(m.group(1)))
            m = PROFILE_STOPPED.search(line)
            if m:
                raw.profile_stopped[m.group(1)] = raw.profile_stopped.get(m.group(1), 0) + int(m.group(2))
    return raw


def check_raw(raw):
    """The second count is whole and counts what the profile took. Returns [why, ...]."""
    whys = ['a line that does not parse: ' + b for b in raw.bad]
    if raw.end is None:
        return whys + ['no sfu-raw-end line: the raw stacks are cut']
    stacks, samples = raw.end
    if len(raw.stacks) != stacks:
        whys.append('%d sfu-raw-stack lines, the end line says %d' % (len(raw.stacks), stacks))
    got = sum(c for c, _, _ in raw.stacks)
    if got != samples:
        whys.append('the raw stacks count %d samples, the end line says %d' % (got, samples))
    if samples < MIN_SAMPLES:
        whys.append('%d samples, fewer than %d' % (samples, MIN_SAMPLES))
    if len(raw.profile_samples) != 1:
        whys.append('%d profiles printed, expected 1' % len(raw.profile_samples))
    elif raw.profile_samples[0] != samples:
        whys.append('the profile took %d samples, the raw count %d' % (raw.profile_samples[0], samples))
    stops = {}
    for count, stop, _ in raw.stacks:
        stops[stop] = stops.get(stop, 0) + count
    if stops != raw.profile_stopped:
        whys.append('the profile\'s walks stopped %s, the raw count\'s %s' % (
            ', '.join('%s %d' % kv for kv in sorted(raw.profile_stopped.items())) or 'nowhere',
            ', '.join('%s %d' % kv for kv in sorted(stops.items())) or 'nowhere'))
    if not raw.shares:
        whys.append('no sfu-share line: no known shares to compare')
    return whys


def symbolize(sfu, elf, addrs):
    """{addr: function} from `sfu symbolize ELF ADDR...`; an address in no function maps to None."""
    if not addrs:
        return {}
    out = subprocess.run([sfu, 'symbolize', elf] + ['0x%x' % a for a in addrs],
                         capture_output=True, text=True, check=True).stdout
    names = {}
    for line in out.splitlines():
        if line[:1].isspace():  # the source lines under an address
            continue
        addr, sym = line.split(' ', 1)
        names[int(addr, 16)] = None if sym.startswith('0x') else sym.split('+')[0]
    return names


def frame_name(names, addr):
    """A frame's name: its function, or (in no function) its address, as `sfu profile` names a
    frame of an image that did not move."""
    return names.get(addr) or '0x%x' % addr


def fold(raw, names):
    """{'root;...;leaf': count} of the raw stacks, frames named by names."""
    folded = {}
    for count, _, addrs in raw.stacks:
        key = ';'.join(frame_name(names, a) for a in reversed(addrs))
        folded[key] = folded.get(key, 0) + count
    return folded


def self_counts(raw, names):
    """{function: samples whose innermost frame is in it}."""
    counts = {}
    for count, _, addrs in raw.stacks:
        leaf = frame_name(names, addrs[0])
        counts[leaf] = counts.get(leaf, 0) + count
    return counts


def run_profile(sfu, log, elf, fmt, out):
    """`sfu profile LOG --image ELF --format FMT`, its output also written to out. (stdout, why)."""
    r = subprocess.run([sfu, 'profile', log, '--image', elf, '--format', fmt], capture_output=True, text=True)
    with open(out, 'w') as f:
        f.write(r.stdout)
    if r.returncode != 0:
        return r.stdout, 'sfu profile --format %s exited %d: %s' % (fmt, r.returncode, r.stderr.strip())
    return r.stdout, None


def parse_folded(text):
    """{'root;...;leaf': count} of `sfu profile --format folded`, or (None, why)."""
    folded = {}
    for n, line in enumerate(text.splitlines(), 1):
        m = FOLDED.match(line)
        if not m:
            return None, 'folded line %d does not parse: %r' % (n, line)
        folded[m.group(1)] = folded.get(m.group(1), 0) + int(m.group(2))
    return folded, None


# A row of `sfu profile --format top`: self count, self %, total count, total %, function
# (docs/host-tools.md).
TOP_ROW = re.compile(r'^\s*(\d+)\s+(\d+(?:\.\d+)?)%\s+(\d+)\s+(\d+(?:\.\d+)?)%\s+(\S.*?)\s*$')


def parse_top(text):
    """{function: (self count, self percent)} of `sfu profile --format top`."""
    rows = {}
    for line in text.splitlines():
        m = TOP_ROW.match(line)
        if m:
            rows[m.group(5)] = (int(m.group(1)), float(m.group(2)))
    return rows


def check_top(raw, top, self_raw):
    """Each known function's share within TOLERANCE of its parts, and its count the raw one."""
    whys = []
    rows = parse_top(top)
    if not rows:
        return ['sfu profile --format top printed no rows']
    total = sum(c for c, _, _ in raw.stacks)
    for name, parts, of in raw.shares:
        if name not in rows:
            whys.append('%s: not in the table' % name)
            continue
        count, percent = rows[name]
        known = 100.0 * parts / of
        if abs(percent - known) > TOLERANCE:
            whys.append('%s: %.1f%% of the samples, known share %.1f%% (more than %g points off)' % (
                name, percent, known, TOLERANCE))
        if count != self_raw.get(name, 0):
            whys.append('%s: %d samples in the table, %d in the raw stacks' % (name, count, self_raw.get(name, 0)))
        if total and abs(100.0 * count / total - percent) > 0.05:
            whys.append('%s: %d of %d samples printed as %.2f%%' % (name, count, total, percent))
    return whys


def check_folded(got, want):
    """The folded stacks of sfu profile against those of the raw stacks: the same set, the same
    counts. Returns [why, ...], the first few differences."""
    whys = []
    for stack in sorted(set(got) | set(want)):
        g, w = got.get(stack), want.get(stack)
        if g != w:
            whys.append('%s: sfu profile %s, the raw stacks %s' % (stack, g or 'none', w or 'none'))
    return whys[:5] + (['... %d differences in all' % len(whys)] if len(whys) > 5 else [])


def check(sfu, elf, log, keep):
    """Every check of a profile run whose serial output is in log. Returns [(scenario, [why, ...])]."""
    os.makedirs(keep, exist_ok=True)
    kept_log, kept_elf = os.path.join(keep, 'serial.log'), os.path.join(keep, 'kernel.elf')
    if os.path.abspath(log) != os.path.abspath(kept_log):
        shutil.copyfile(log, kept_log)
    shutil.copyfile(elf, kept_elf)
    with open(kept_log, errors='replace') as f:
        raw = parse(f.read().splitlines())
    results = [(SCENARIO + '-raw', check_raw(raw))]
    try:  # sfu runs here first: a missing or failing one fails the checks instead of the runner
        names = symbolize(sfu, kept_elf, sorted({a for _, _, addrs in raw.stacks for a in addrs}))
    except (OSError, subprocess.CalledProcessError) as e:
        why = 'sfu symbolize did not name the raw stacks: %s' % e
        return results + [(SCENARIO + '-top', [why]), (SCENARIO + '-folded', [why])]
    want = fold(raw, names)
    with open(os.path.join(keep, 'raw.folded'), 'w') as f:
        f.writelines('%s %d\n' % kv for kv in sorted(want.items()))

    top, why = run_profile(sfu, kept_log, kept_elf, 'top', os.path.join(keep, 'top.txt'))
    results.append((SCENARIO + '-top', [why] if why else check_top(raw, top, self_counts(raw, names))))
    text, why = run_profile(sfu, kept_log, kept_elf, 'folded', os.path.join(keep, 'folded.txt'))
    if not why:
        got, why = parse_folded(text)
    results.append((SCENARIO + '-folded', [why] if why else check_folded(got, want)))
    return results


def add_to(scenarios, sfu, elf, log, keep):
    """run.py's hook: check() into run.judge's {scenario: [checks, [why, ...]]}."""
    for name, whys in check(sfu, elf, log, keep):
        s = scenarios.setdefault(name, [0, []])
        s[0] += 1
        s[1] += whys
