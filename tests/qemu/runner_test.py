#!/usr/bin/env python3
"""Tests of the QEMU runner's checks (run.py) on a real image, without QEMU: serial output is
made up around the call chain chain_a -> chain_b -> chain_c -> chain_d of the x86_64 gen corpus
(tests/gen), and each case must pass or fail as it says.

    runner_test.py SFU CORPUS_DIR        ends "runner: N passed, M failed"
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run  # noqa: E402


def frame_line(i, pc, source):
    return ' #%-3d    0x%016x  sp 0x0000000000007f00  task   %-11s  image' % (i, pc, '[%s]' % source)


def main():
    sfu, corpus = sys.argv[1], sys.argv[2]
    elf = os.path.join(corpus, 'x86_64', 'gcc-O2.elf')
    calls = run.CallSites(elf)
    into = {}  # callee -> the return address of its one call site
    for ra, target in calls.by_return.items():
        into.setdefault(target, ra)
    nm = subprocess.run(['nm', elf], capture_output=True, text=True, check=True).stdout
    start_of = {f[2]: int(f[0], 16) for f in (l.split() for l in nm.splitlines()) if len(f) == 3}

    # chain_d interrupted two bytes in, then each caller's return address.
    frames = [(start_of['chain_d'] + 2, 'regs'), (into['chain_d'], 'table'), (into['chain_c'], 'table'),
              (into['chain_b'], 'table'), (into['chain_a'], 'table'), (into['main'], 'table')]
    exact = 'chain_d chain_c chain_b chain_a main _start | end-of-stack'

    def serial(expect, fr=frames, stop='end-of-stack (reliable)', done='0'):
        lines = ['booting', 'sfu-trace 1-faults/x', 'sfu-expect ' + expect]
        lines += [frame_line(i, pc, src) for i, (pc, src) in enumerate(fr)]
        lines += ['stop: ' + stop, 'sfu-end']
        return lines + (['sfu-done ' + done] if done is not None else [])

    def verdict(lines):
        traces, counts, done, errors = run.parse(lines)
        names = run.trace_names(sfu, elf, traces)
        whys = [run.check_trace(t, names, lambda: calls) for t in traces]
        return traces, counts, done, errors, [w for w in whys if w]

    passed = failed = 0

    def case(name, ok):
        nonlocal passed, failed
        ok = bool(ok)  # the checks below give a list or None
        print('%s %s' % ('PASS' if ok else 'FAIL', name))
        passed += ok
        failed += not ok

    _, _, done, _, whys = verdict(serial(exact))
    case('the exact frames pass', not whys and done == '0')
    _, _, _, _, whys = verdict(serial('chain_d chain_b chain_c chain_a main _start | end-of-stack'))
    case('frames out of order fail', whys and whys[0].startswith('frames '))
    _, _, _, _, whys = verdict(serial(exact, stop='bad-return-address (unreliable)'))
    case('another stop reason fails', whys and whys[0].startswith('stopped with bad-return-address'))
    _, _, _, _, whys = verdict(serial(exact + ' unreliable'))
    case('the verdict is checked when given', whys and whys[0].startswith('stopped with end-of-stack (reliable)'))
    _, _, _, _, whys = verdict(serial(exact + ' reliable'))
    case('a matching verdict passes', not whys)
    _, _, _, _, whys = verdict(serial(exact, stop='end-of-stack (unreliable)'))
    case('a clean end is reliable unless expected otherwise',
         whys and whys[0] == 'stopped with end-of-stack (unreliable), expected end-of-stack reliable')
    _, _, _, _, whys = verdict(serial(exact + ' unreliable', stop='end-of-stack (unreliable)'))
    case('an unreliable end passes when expected', not whys)
    _, _, _, _, whys = verdict(serial('| bad-start', fr=[], stop='bad-start (unreliable)'))
    case('a trace without frames can be expected', not whys)
    _, _, _, _, whys = verdict(serial(exact, fr=frames[:-1]))
    case('a missing frame fails', bool(whys))
    _, _, _, _, whys = verdict(serial('@callers _start | end-of-stack'))
    case('@callers passes real callers', not whys)
    skipped = frames[:2] + frames[3:]  # chain_b's frame lost: chain_a's call is not into chain_c
    _, _, _, _, whys = verdict(serial('@callers _start | end-of-stack', fr=skipped))
    case('@callers catches a skipped caller', whys and 'returns from a call to chain_b, not to chain_c' in whys[0])
    not_after_call = frames[:3] + [(start_of['chain_a'] + 1, 'table')] + frames[4:]
    _, _, _, _, whys = verdict(serial('@callers _start | end-of-stack', fr=not_after_call))
    case('@callers catches a return address after no call', whys and 'follows no call instruction' in whys[0])
    _, _, _, _, whys = verdict(serial('@callers chain_a | end-of-stack'))
    case('@callers checks the root', whys and whys[0].startswith('the last frame is in _start'))
    lines = serial(exact)
    lines.remove('sfu-end')
    _, _, _, _, whys = verdict(lines)
    case('a trace without sfu-end fails', whys == ['incomplete trace (no expect, stop or end line)'])
    _, counts, _, _, _ = verdict(['sfu-count 2-sampling 9999 10000', 'sfu-done 0'])
    case('counts are read', counts == [('2-sampling', 9999, 10000)])
    _, _, done, _, _ = verdict(serial(exact, done=None))
    case('a run without sfu-done is seen', done is None)

    # The run as a whole (run.judge, what run.py prints from).
    def run_failures(lines, timed_out=False):
        scenarios, counted, failures = run.judge(lines, sfu, elf, timed_out)
        return [w for _, (_, whys) in sorted(scenarios.items()) for w in whys] + [w for _, w in failures]

    case('a good run passes', run_failures(serial(exact)) == [])
    case('a run without sfu-done fails',
         run_failures(serial(exact, done=None)) == ['no sfu-done line: the guest crashed or stopped early'])
    case('a hung run is not also reported as without sfu-done', run_failures(serial(exact, done=None), True) == [])
    case('on-device failures fail the run', run_failures(serial(exact, done='2')) == ['the guest reported 2 failures'])
    case('an sfu-error line fails the run',
         run_failures(['sfu-error 1-faults/x: the fault did not happen'] + serial(exact)) ==
         ['sfu-error 1-faults/x: the fault did not happen'])
    case('a count short of its total fails',
         run_failures(['sfu-count 2-sampling 9999 10000', 'sfu-done 0']) == ['2-sampling: 9999 of 10000 correct'])
    case('a count of nothing fails', run_failures(['sfu-count 2-sampling 0 0', 'sfu-done 0']) == ['2-sampling: 0 of 0 correct'])
    case('a run with no scenario fails', run_failures(['booting', 'sfu-done 0']) == ['the guest printed no scenario'])
    case('a wrong trace fails the run',
         run_failures(serial('chain_d chain_b chain_c chain_a main _start | end-of-stack'))[0].startswith('1-faults/x: frames '))
    print('runner: %d passed, %d failed' % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
