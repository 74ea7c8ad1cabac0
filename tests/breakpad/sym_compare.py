#!/usr/bin/env python3
"""Compares two Breakpad symbol files record by record, as the breakpad suite needs:

    sym_compare.py WANT GOT [--no-stack]

FILE and INLINE_ORIGIN numbers may differ between the files: every line record, INLINE record and
INLINE_ORIGIN is compared by the names behind its numbers. Everything else is compared as text, in
order: MODULE, INFO, each FUNC with the INLINE and line records under it, PUBLIC, and STACK CFI
(left out with --no-stack). Prints one line: the record counts, and "identical text" when the files
are the same byte for byte; or the first differences, kind by kind. Exit status 0 equal, 1 not.
"""
import sys


def normalize(path, stack):
    files, origins = {}, {}
    lines = open(path, encoding='utf-8', errors='surrogateescape').read().splitlines()
    for line in lines:
        if line.startswith('FILE '):
            _, n, name = line.split(' ', 2)
            files[n] = name
        elif line.startswith('INLINE_ORIGIN '):
            _, n, name = line.split(' ', 2)
            origins[n] = name
    kinds = {'MODULE': [], 'INFO': [], 'FUNC': [], 'PUBLIC': [], 'STACK': []}
    for line in lines:
        word = line.split(' ', 1)[0]
        if word in ('FILE', 'INLINE_ORIGIN'):
            continue
        if word == 'INLINE':
            f = line.split(' ')
            f[3] = files.get(f[3], '<file %s>' % f[3])
            f[4] = origins.get(f[4], '<origin %s>' % f[4])
            kinds['FUNC'].append(' '.join(f))
        elif word in kinds:
            if word != 'STACK' or stack:
                kinds[word].append(line)
        else:  # a line record: address size line file
            f = line.split(' ')
            if len(f) == 4:
                f[3] = files.get(f[3], '<file %s>' % f[3])
            kinds['FUNC'].append(' '.join(f))
    return kinds, lines


def main():
    args = [a for a in sys.argv[1:] if not a.startswith('--')]
    stack = '--no-stack' not in sys.argv
    want, want_lines = normalize(args[0], stack)
    got, got_lines = normalize(args[1], stack)
    if not any(l.startswith('MODULE ') for l in want_lines) or not (want['FUNC'] or want['PUBLIC']):
        print('%s: no MODULE line or no FUNC/PUBLIC records: nothing to compare' % args[0])
        sys.exit(1)
    counts = ', '.join('%d %s' % (len(want[k]), k) for k in ('FUNC', 'PUBLIC', 'STACK') if want[k])
    funcs = sum(1 for l in want['FUNC'] if l.startswith('FUNC '))
    counts = counts.replace('%d FUNC' % len(want['FUNC']), '%d FUNC/INLINE/line' % len(want['FUNC']))
    diffs = []
    for kind in want:
        w, g = want[kind], got[kind]
        if w == g:
            continue
        at = next((i for i in range(min(len(w), len(g))) if w[i] != g[i]), min(len(w), len(g)))
        diffs.append('%s: %d vs %d records, first difference at %d: want %r, got %r' %
                     (kind, len(w), len(g), at, w[at] if at < len(w) else None, g[at] if at < len(g) else None))
    if diffs:
        print('; '.join(diffs))
        sys.exit(1)
    same = want_lines == got_lines or (not stack and [l for l in want_lines if not l.startswith('STACK')] ==
                                        [l for l in got_lines if not l.startswith('STACK')])
    print('%d functions, %s; %s' % (funcs, counts, 'identical text' if same else 'equal with names behind the numbers'))


main()
