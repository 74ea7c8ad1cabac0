#!/usr/bin/env python3
"""`sfu symbolize` default mode and log mode on one kernel, against addr2line's own answers.

    modes.py SFU ELF [LOG|""] [MADE_UP_LOG_OUT]

Default mode: for a sample of instruction starts, the indented lines under each address must be
addr2line's levels (`addr2line -a -f -i`), one "    FUNCTION at FILE:LINE" each, " (inlined)"
on all but the last. Log mode: a log made here from the kernel's own call sites (frames of every
source, with and without the device's symbol, CRLF endings, lines that are not frames), and the
real serial LOG when given, run through `sfu symbolize --image ELF`: non-frame lines come back
unchanged; each frame line gets "  SYMBOL+0xOFF FILE:LINE" for its PC (the return address minus
one for table, fp and backchain frames; the symbol as binutils' addr2line and nm give it, never
sfu's own answer) and one "(inlined by)" line per inlined caller.
Prints PASS/FAIL lines, one per check.
"""
import re
import subprocess
import sys

PREFIX = {62: '', 183: 'aarch64-linux-gnu-', 22: 's390x-linux-gnu-'}
CALLS = {62: {'call', 'callq'}, 183: {'bl', 'blr', 'blraa', 'blrab', 'blraaz', 'blrabz'},
         22: {'brasl', 'bras', 'basr', 'balr'}}
INSN = re.compile(r'^\s*([0-9a-f]+):\t(?:[0-9a-f ]+\t)?(\S+)')
RETURN_SOURCES = ('table', 'fp', 'backchain')
DISCRIMINATOR = re.compile(r' \(discriminator \d+\)$')

failures = 0


def check(name, ok, why=''):
    global failures
    print(('PASS ' if ok else 'FAIL ') + name + ('' if ok else ': ' + why))
    failures += 0 if ok else 1


def machine(elf):
    with open(elf, 'rb') as f:
        head = f.read(20)
    return int.from_bytes(head[18:20], 'big' if head[5] == 2 else 'little')


def instructions(elf, m):
    """[(address, mnemonic)] of the image's code, in order."""
    out = subprocess.run([PREFIX[m] + 'objdump', '-d', elf], capture_output=True, text=True, check=True).stdout
    insns = []
    for line in out.splitlines():
        mo = INSN.match(line)
        if mo and not line.rstrip().endswith('>:'):
            insns.append((int(mo.group(1), 16), mo.group(2)))
    return insns


def addr2line(elf, m, addrs, demangle=False, prime=()):
    """{address: [(function, 'file:line')]} from addr2line -a -f -i. addr2line names a function
    that has no linkage name in a C++ unit, the first time it meets it, by the nearest symbol
    before the address (an inlined callee then gets its caller's name): every address is asked
    twice, the second answer kept. Names can still differ where addr2line renames such a function
    after a symbol, or has not yet: see same_name()."""
    cmd = [PREFIX[m] + 'addr2line', '-a', '-f', '-i'] + (['-C'] if demangle else []) + ['-e', elf]
    asked = ['0x%x' % a for a in addrs]
    primed = ['0x%x' % a for a in prime]
    out = subprocess.run(cmd + primed + asked + asked, capture_output=True, text=True, check=True).stdout
    levels, cur = {}, None
    lines = out.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith('0x') and (i + 1 >= len(lines) or not lines[i + 1].startswith('0x')) and \
                re.fullmatch(r'0x[0-9a-f]+', lines[i]):
            cur = int(lines[i], 16)
            levels[cur] = []
            i += 1
            continue
        levels[cur].append((lines[i], DISCRIMINATOR.sub('', lines[i + 1])))
        i += 2
    return levels


SYMBOLS = set()


def load_symbols(elf, m):
    """The demangled names of the image's code symbols (function and untyped)."""
    out = subprocess.run([PREFIX[m] + 'nm', '-C', '--defined-only', elf], capture_output=True, text=True,
                         check=True).stdout
    for line in out.splitlines():
        parts = line.split(' ', 2)
        if len(parts) == 3 and parts[1] in 'tTwW':
            SYMBOLS.add(parts[2])


def same_name(want, got):
    """addr2line names a C++ function that has no linkage name after a symbol (the nearest one
    before the address, or the one at the function's start) depending on what it looked up
    before; sfu names out-of-line ones after the symbol at their entry, always. Either may thus
    be a symbol's name where the other is the DWARF name; any other difference is a failure."""
    return want == got or want in SYMBOLS or got in SYMBOLS


def same_levels(want, got):
    """Lists of (name, rest of line) equal, names as same_name() allows."""
    return len(want) == len(got) and all(w[1] == g[1] and same_name(w[0], g[0]) for w, g in zip(want, got))


def default_mode(sfu, elf, m, insns):
    sample = [a for i, (a, _) in enumerate(insns) if i % 5 == 0][:1500]
    want = addr2line(elf, m, sample, demangle=True)
    out = subprocess.run([sfu, 'symbolize', '-C', elf] + ['0x%x' % a for a in sample], capture_output=True, text=True)
    got, cur = {}, None
    for line in out.stdout.splitlines():
        if line.startswith('    '):
            got[cur].append(line)
        else:
            cur = int(line.split(' ', 1)[0], 16)
            got[cur] = []
    compared, bad = 0, []
    for a in sample:
        levels = want.get(a, [])
        if not levels or levels[0][1].endswith(':?') or levels[0][1] == '??:0':
            continue  # no line for it: the default mode prints nothing there
        compared += 1
        expect = [(fn, ' at %s%s' % (loc, ' (inlined)' if i + 1 < len(levels) else ''))
                  for i, (fn, loc) in enumerate(levels)]
        mine = [tuple(re.match(r'    (.*)( at .*)$', l).groups()) for l in got.get(a, [])]
        if not same_levels(expect, mine):
            bad.append('0x%x: want %s, got %s' % (a, expect, got.get(a)))
    check('%s default mode (%d addresses with lines)' % (elf, compared), out.returncode == 0 and compared > 100
          and not bad, '; '.join(bad[:3]) or 'exit %d, %d compared' % (out.returncode, compared))


def symbols(elf, m, pcs, work):
    """{pc: 'name+0xoff'} for the function holding each address, from binutils alone: the name
    addr2line gives from the symbol table (a copy without DWARF, so its nearest code symbol: a
    function or an assembly label), the offset from nm's value for that name, and no name ('0x..')
    past the end of a symbol nm gives a size (the padding after a function belongs to none),
    demangled by c++filt."""
    bare = work + '.nodwarf'
    subprocess.run([PREFIX[m] + 'objcopy', '--strip-debug', elf, bare], check=True)
    out = subprocess.run([PREFIX[m] + 'nm', '-S', '--defined-only', bare], capture_output=True, text=True,
                         check=True).stdout
    extent = {}  # name -> (value, size or None)
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in 'tTwWiI':
            extent.setdefault(parts[3], (int(parts[0], 16), int(parts[1], 16)))
        elif len(parts) == 3 and parts[1] in 'tTwWiI':
            extent.setdefault(parts[2], (int(parts[0], 16), None))
    names = subprocess.run([PREFIX[m] + 'addr2line', '-f', '-e', bare] + ['0x%x' % pc for pc in pcs],
                           capture_output=True, text=True, check=True).stdout.splitlines()[0::2]
    # Log mode is for people: C++ names demangled, as c++filt spells them.
    shown = dict(zip(sorted(set(names)), subprocess.run(
        [PREFIX[m] + 'c++filt'], input='\n'.join(sorted(set(names))) + '\n', capture_output=True, text=True,
        check=True).stdout.splitlines()))
    got = {}
    for pc, name in zip(pcs, names):
        start, size = extent.get(name, (None, None))
        if start is None or pc < start or (size is not None and size and pc >= start + size):
            got[pc] = '0x%x' % pc
        else:
            got[pc] = shown[name] + ('+0x%x' % (pc - start) if pc != start else '')
    return got


def expected_annotation(levels, sym):
    """What log mode appends: "  SYM FILE:LINE" (either alone when the other is unknown),
    " (FUNC inlined)" if the innermost level is inlined, and one "(inlined by)" line per caller."""
    parts = [] if sym.startswith('0x') else [sym]
    if levels:
        fn0, loc0 = levels[0]
        parts.append(loc0.replace(':?', ':0') + (' (%s inlined)' % fn0 if len(levels) > 1 else ''))
    extra = ['        (inlined by) %s at %s' % (fn, loc.replace(':?', ':0')) for fn, loc in levels[1:]]
    return ('  ' + ' '.join(parts)) if parts else '', extra


def log_mode(sfu, elf, m, insns, real_log):
    # Made here: return addresses after call sites as table/fp frames, starts as regs/trap frames.
    rets = [insns[i + 1][0] for i in range(len(insns) - 1) if insns[i][1] in CALLS[m]][:400]
    starts = [a for i, (a, _) in enumerate(insns) if i % 11 == 0][:200]
    frames = [(pc, 'table' if i % 3 else 'fp') for i, pc in enumerate(rets)] + \
             [(pc, 'regs' if i % 2 else 'trap') for i, pc in enumerate(starts)]
    lines = ['sfu-trace made-up', 'not a frame: #1 0x123 sp', '']
    for i, (pc, src) in enumerate(frames):
        line = ' #%-3d %s 0x%016x  sp 0x%016x  task   %-11s  image' % (i % 64, ' ' if i % 4 else '?', pc,
                                                                       0x7f00 + 16 * i, '[%s]' % src)
        if i % 5 == 1:
            line += '  chain_%d+0x6/0x10' % i  # the device's own symbol
        lines.append(line + ('\r' if i % 7 == 3 else ''))
    lines.append('stop: end-of-stack (reliable)')
    log = '\n'.join(lines) + '\n'
    if len(sys.argv) > 4:  # check.sh joins the made-up logs of two kernels
        with open(sys.argv[4], 'w') as f:
            f.write(log)
    prime = [a for a, _ in insns]
    run_log_check('%s log mode (made-up log, %d frames)' % (elf, len(frames)), sfu, elf, m, log, prime)
    if real_log:
        with open(real_log, errors='replace') as f:
            run_log_check('%s log mode (%s)' % (elf, real_log), sfu, elf, m, f.read(), prime)


INLINED = re.compile(r'^(.*) \((.*) inlined\)(\r?)$')
INLINED_BY = re.compile(r'^(        \(inlined by\) )(.*)( at [^ ]*\r?)$')


def same_annotation(want, got):
    """Annotated lines equal, function names as same_name() allows."""
    if want == got:
        return True
    for pattern, name_group in ((INLINED, 2), (INLINED_BY, 2)):
        w, g = pattern.match(want), pattern.match(got)
        if w and g:
            rest = lambda mo: [x for i, x in enumerate(mo.groups(), 1) if i != name_group]
            return rest(w) == rest(g) and same_name(w.group(name_group), g.group(name_group))
    return False


FRAME = re.compile(r'^\s*#[0-9]+ +(\? +)?0x([0-9a-f]+)  sp 0x[0-9a-f]+  [a-z]+ +\[([a-z]+)\] +\S+(  \S+)?\s*$')


def run_log_check(name, sfu, elf, m, log, prime):
    out = subprocess.run([sfu, 'symbolize', '--image', elf], input=log.encode(), capture_output=True)
    got = out.stdout.decode(errors='replace').split('\n')
    src = log.split('\n')
    frames = {}
    for line in src:
        mo = FRAME.match(line.rstrip('\r'))
        if mo:
            pc = int(mo.group(2), 16)
            frames[line] = (pc, pc - 1 if mo.group(3) in RETURN_SOURCES else pc)
    lookups = sorted({q for _, q in frames.values()})
    # Real logs repeat the same frames thousands of times: look each address up once.
    want = {}
    for i in range(0, len(lookups), 2000):
        want.update(addr2line(elf, m, lookups[i:i + 2000], demangle=True))
    # The symbol of the lookup address with the offset of the PC itself.
    at_lookup = {}
    for i in range(0, len(lookups), 2000):
        at_lookup.update(symbols(elf, m, lookups[i:i + 2000], WORK))
    syms = {}
    for pc, q in frames.values():
        sym = at_lookup[q]
        if not sym.startswith('0x'):
            fn, _, off = sym.partition('+')
            off = (int(off, 16) if off else 0) + pc - q
            sym = fn + ('+0x%x' % off if off else '')
        syms[pc, q] = sym
    bad, j, annotated = [], 0, 0
    for line in src:
        if j >= len(got):
            bad.append('output ends early')
            break
        if line not in frames:
            if got[j] != line:
                bad.append('changed: %r -> %r' % (line, got[j]))
            j += 1
            continue
        pc, q = frames[line]
        levels = want.get(q, [])
        cr = '\r' if line.endswith('\r') else ''
        body = line.rstrip('\r')
        if levels and (levels[0][1] == '??:0' or levels[0][1].endswith(':?')):
            levels = []  # no line for it: only the symbol, if any
        text, extra = expected_annotation(levels, syms[pc, q])
        expect = body + text
        annotated += 1 if levels else 0
        if not same_annotation(expect + cr, got[j]):
            bad.append('0x%x: want %r, got %r' % (pc, expect, got[j]))
        j += 1
        for e in extra:
            if j >= len(got) or not same_annotation(e + cr, got[j]):
                bad.append('0x%x: want %r, got %r' % (pc, e, got[j] if j < len(got) else None))
            j += 1
    check(name, out.returncode == 0 and annotated > 0 and not bad,
          '; '.join(bad[:3]) or 'exit %d, %d frames annotated' % (out.returncode, annotated))


WORK = '/tmp/modes'


def main():
    global WORK
    sfu, elf = sys.argv[1], sys.argv[2]
    WORK = sys.argv[4] if len(sys.argv) > 4 else elf
    real_log = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] else None
    m = machine(elf)
    insns = instructions(elf, m)
    load_symbols(elf, m)
    default_mode(sfu, elf, m, insns)
    log_mode(sfu, elf, m, insns, real_log)
    return 0


if __name__ == '__main__':
    sys.exit(main())
