#!/usr/bin/env python3
"""Tests of scenario 12's checks (profile_check.py, run.py --profile): the arm64 profile kernel of
QEMU_DIR (make qemu-kernels) booted once (about a second), its serial output checked as a run
checks it, then changed the ways a wrong profiler, a wrong count or a wrong tool would show: each
change must fail the check it names, and only that one. The share tolerance and the sample floor
are tested on made-up input at their edges.

    profile_check_test.py SFU QEMU_DIR        ends "profile-runner: N passed, M failed"
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profile_check  # noqa: E402
import run  # noqa: E402

# tests/qemu/arm64/kernel.mk's ARM64_QEMU, with the kernel last.
ARM64_QEMU = ['qemu-system-aarch64', '-machine', 'virt,gic-version=2', '-cpu', 'max,pauth-impdef=on', '-m', '128M',
              '-display', 'none', '-nodefaults', '-no-reboot', '-icount', 'shift=0', '-semihosting', '-serial', 'stdio',
              '-kernel']
SCENARIOS = [profile_check.SCENARIO + s for s in ('-raw', '-top', '-folded')]


def checked(sfu, elf, lines, keep):
    """{scenario: [why, ...]} of profile_check.check on lines written as a log."""
    log = os.path.join(keep, 'input.log')
    with open(log, 'w') as f:
        f.write('\n'.join(lines) + '\n')
    return dict(profile_check.check(sfu, elf, log, keep))


def only(results, scenario, text):
    """scenario failed, its first reason holding text, and every other scenario passed."""
    return (all(not whys for name, whys in results.items() if name != scenario)
            and bool(results.get(scenario)) and text in results[scenario][0])


def replaced(lines, pattern, new, which=0):
    """lines with the which-th line matching pattern made new(line) (None: removed)."""
    at = [i for i, l in enumerate(lines) if re.match(pattern, l)][which]
    made = new(lines[at])
    return lines[:at] + ([made] if made is not None else []) + lines[at + 1:]


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    sfu, qemu_dir = sys.argv[1], sys.argv[2]
    results = []

    def case(name, ok):
        results.append(ok)
        print('%s: %s' % ('PASS' if ok else 'FAIL', name))

    # ---- Made-up input: the edges of the tolerance and the sample floor ------------------------
    def made_up(hot, rest, share=('profile_hot', 6, 10)):
        raw = profile_check.Raw()
        raw.shares = [share]
        raw.stacks = [(hot, 'end-of-stack', [0x10]), (rest, 'end-of-stack', [0x20])]
        raw.end = (2, hot + rest)
        raw.profile_samples = [hot + rest]
        raw.profile_stopped = {'end-of-stack': hot + rest}
        names = {0x10: 'profile_hot', 0x20: 'other'}
        top = ('%d %.2f%% %d %.2f%% profile_hot\n' % (hot, 100.0 * hot / (hot + rest), hot, 100.0 * hot / (hot + rest))
               + '%d %.2f%% %d %.2f%% other\n' % (rest, 100.0 * rest / (hot + rest), rest, 100.0 * rest / (hot + rest)))
        return raw, names, top

    raw, names, top = made_up(6300, 3700)
    case('a share 3.0 points off its known share passes',
         profile_check.check_top(raw, top, profile_check.self_counts(raw, names)) == [])
    raw, names, top = made_up(6301, 3699)
    whys = profile_check.check_top(raw, top, profile_check.self_counts(raw, names))
    case('a share 3.01 points off fails', len(whys) == 1 and 'profile_hot: 63.0% of the samples' in whys[0])
    raw, names, top = made_up(5700, 4300)
    case('3.0 points under passes', profile_check.check_top(raw, top, profile_check.self_counts(raw, names)) == [])
    raw, names, top = made_up(6000, 4000)
    whys = profile_check.check_top(raw, top, {'profile_hot': 5999, 'other': 4001})
    case('a table count other than the raw stacks\' fails',
         len(whys) == 1 and whys[0] == 'profile_hot: 6000 samples in the table, 5999 in the raw stacks')
    whys = profile_check.check_top(raw, top.replace('60.00%', '61.00%', 1), profile_check.self_counts(raw, names))
    case('a percentage that is not its count\'s fails',
         len(whys) == 1 and whys[0] == 'profile_hot: 6000 of 10000 samples printed as 61.00%')
    case('a known function missing from the table fails',
         profile_check.check_top(raw, top.replace('profile_hot', 'profile_hat'), {}) == ['profile_hot: not in the table'])
    raw, names, top = made_up(6000, 4000)
    case('10,000 samples are enough', profile_check.check_raw(raw) == [])
    raw, names, top = made_up(5999, 4000)
    case('9,999 samples are too few', profile_check.check_raw(raw) == ['9999 samples, fewer than 10000'])
    case('a folded line without a count does not parse',
         profile_check.parse_folded('a;b 3\na;c\n') == (None, "folded line 2 does not parse: 'a;c'"))
    case('folded stacks compare as a whole',
         profile_check.check_folded({'a;b': 3, 'a;c': 1}, {'a;b': 3, 'a;d': 1})
         == ['a;c: sfu profile 1, the raw stacks none', 'a;d: sfu profile none, the raw stacks 1'])

    # ---- The arm64 profile kernel's real output, and that output broken --------------------------
    elf = os.path.join(qemu_dir, 'arm64', 'profile.elf')
    if not os.path.exists(elf):
        case('the arm64 profile kernel is built (make qemu-kernels): ' + elf, False)
    else:
        output, killed = run.boot(ARM64_QEMU + [elf], 60)
        lines = output.splitlines()
        case('the arm64 profile kernel ran to its end', killed is None and 'sfu-done 0' in output)
        with tempfile.TemporaryDirectory() as keep:
            got = checked(sfu, elf, lines, keep)
            case('a right profile run passes', sorted(got) == sorted(SCENARIOS) and all(not w for w in got.values()))
            case('the run is kept', all(os.path.exists(os.path.join(keep, f)) for f in
                                        ('serial.log', 'kernel.elf', 'top.txt', 'folded.txt', 'raw.folded')))

            # A known share the profile does not give: the workload or the profiler is off.
            got = checked(sfu, elf, replaced(lines, r'sfu-share profile_hot ', lambda l: 'sfu-share profile_hot 5 10'), keep)
            case('a share 10 points off fails the table', only(got, SCENARIOS[1], 'profile_hot: ')
                 and 'known share 50.0%' in got[SCENARIOS[1]][0])

            # One raw stack's leaf moved into another function: the profiler's stacks no longer
            # fold to the raw count's.
            raws = [(i, l) for i, l in enumerate(lines) if l.startswith('sfu-raw-stack ')]
            names = profile_check.symbolize(sfu, elf, sorted({int(a, 16) for _, l in raws for a in l.split()[3:]}))
            leaf = {i: names[int(l.split()[3], 16)] for i, l in raws}
            cold = max((i for i, _ in raws if leaf[i] == 'profile_cold'), key=lambda i: int(lines[i].split()[1]))
            warm = next(i for i, _ in raws if leaf[i] == 'profile_warm' and len(lines[i].split()) == len(lines[cold].split()))
            moved = list(lines)
            parts = moved[cold].split()
            parts[3] = lines[warm].split()[3]
            moved[cold] = ' '.join(parts)
            got = checked(sfu, elf, moved, keep)
            case('a raw stack moved to another function fails the folded stacks and the table',
                 not got[SCENARIOS[0]] and 'profile_cold' in ' '.join(got[SCENARIOS[2]])
                 and any('profile_cold: ' in w and 'in the raw stacks' in w for w in got[SCENARIOS[1]]))

            # The raw count cut or lost a line.
            got = checked(sfu, elf, replaced(lines, r'sfu-raw-stack ', lambda l: None), keep)
            case('a raw stack lost fails the raw count and the folded stacks',
                 got[SCENARIOS[0]] and 'sfu-raw-stack lines, the end line says' in got[SCENARIOS[0]][0]
                 and got[SCENARIOS[2]] != [])
            got = checked(sfu, elf, replaced(lines, r'sfu-raw-stack ', lambda l: l.replace(' end-of-stack ', ' frame-cap-reached ')), keep)
            case('a raw walk that stopped otherwise than the profile\'s fails the raw count',
                 only(got, SCENARIOS[0], 'the profile\'s walks stopped end-of-stack 10000, the raw count\'s end-of-stack '))
            got = checked(sfu, elf, replaced(lines, r'sfu-raw-end ', lambda l: None), keep)
            case('no sfu-raw-end line fails the raw count',
                 got[SCENARIOS[0]] == ['no sfu-raw-end line: the raw stacks are cut'])

            # The profile itself damaged, printed twice, or read with the wrong image.
            def bad_crc(line):
                return line[:-1] + ('0' if line[-1] != '0' else '1')
            got = checked(sfu, elf, replaced(lines, r'sfu-profile-stack ', bad_crc), keep)
            case('a profile line with a wrong CRC fails sfu profile (exit 1)',
                 not got[SCENARIOS[0]] and all(len(got[s]) == 1 and 'exited 1' in got[s][0] and 'profile-bad-crc' in got[s][0]
                                               for s in SCENARIOS[1:]))
            begin = next(i for i, l in enumerate(lines) if l.startswith('sfu-profile-begin'))
            end = next(i for i, l in enumerate(lines) if l.startswith('sfu-profile-end'))
            got = checked(sfu, elf, lines[:end + 1] + lines[begin:], keep)
            case('a profile printed twice fails the raw count', '2 profiles printed, expected 1' in got[SCENARIOS[0]])
            got = checked(os.path.join(keep, 'no-such-sfu'), elf, lines, keep)
            case('no sfu to run fails the table and the folded stacks, not the runner',
                 not got[SCENARIOS[0]] and all(len(got[s]) == 1 and 'sfu symbolize did not name the raw stacks' in got[s][0]
                                               for s in SCENARIOS[1:]))
            other = os.path.join(qemu_dir, 'arm64', 'gen-v3.elf')
            if os.path.exists(other):
                log = os.path.join(keep, 'wrong.log')
                with open(log, 'w') as f:
                    f.write('\n'.join(lines) + '\n')
                got = dict((n, w) for n, w in profile_check.check(sfu, other, log, keep))
                case('the wrong image fails sfu profile (exit 1)',
                     all(len(got[s]) == 1 and 'exited 1' in got[s][0] for s in SCENARIOS[1:]))
            else:
                case('the arm64 gen-v3 kernel is built (make qemu-kernels): ' + other, False)

    passed = sum(results)
    print('profile-runner: %d passed, %d failed' % (passed, len(results) - passed))
    return 0 if passed == len(results) else 1


if __name__ == '__main__':
    sys.exit(main())
