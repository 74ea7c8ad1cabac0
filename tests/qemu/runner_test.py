#!/usr/bin/env python3
"""Tests of the QEMU runner's checks (run.py) on a real image, without QEMU: serial output is
made up around the call chain chain_a -> chain_b -> chain_c -> chain_d of the x86_64 gen corpus
(tests/gen), and each case must pass or fail as it says. The crash runs' checks (run.check_crash)
start from real serial output instead: the arm64 crash kernels of QEMU_DIR (make qemu-kernels),
booted once each (a tenth of a second), then changed the ways a broken run would look; and the
kernels built to be wrong must fail: crash-smp-nowait and crash-smp-nolock of arm64, x86_64 and
s390x, arm64's nofault-nofixup and s390x's reentry-wrong (scenario 10 built to fail). The reloc
run's checks (run.check_reloc, scenario 11) start from the arm64 reloc kernel booted once with a
fixed seed; each host command's check also meets a stand-in for sfu or minidump_stackwalk (the
real one, its answer edited) that names one frame wrong. Breakpad's tools are QEMU_DIR/../oracles/
breakpad/bin (make qemu-kernels builds them). The every-instruction runs' judgement
(gdb_oracle.classify, every_check.judge) on made-up frames and counts; the named gdb limitations
on their minimal case (gdb_limits.py); and x86_64's every-wrong.elf, booted with gdb, which the
oracle must find wrong at every walk it compares.

    runner_test.py SFU CORPUS_DIR [QEMU_DIR]     ends "runner: N passed, M failed"
                                                 QEMU_DIR: CORPUS_DIR/../qemu if not given
"""
import os
import shlex
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import every_check  # noqa: E402
import gdb_limits  # noqa: E402
import gdb_oracle  # noqa: E402
import run  # noqa: E402


def frame_line(i, pc, source, symbol=None, module='image'):
    line = ' #%-3d    0x%016x  sp 0x0000000000007f00  task   %-11s  %s' % (i, pc, '[%s]' % source, module)
    return line + ('  ' + symbol if symbol else '')


# The arm64 crash kernels need no timer or interrupt controller: a plain virt machine, without
# -no-reboot (the runs' own command is tests/qemu/arm64/kernel.mk's).
ARM64_CRASH_QEMU = ['qemu-system-aarch64', '-machine', 'virt', '-cpu', 'max', '-m', '128M', '-display', 'none',
                    '-nodefaults', '-semihosting', '-serial', 'stdio', '-kernel']
# The s390x scenario kernels' command (tests/qemu/s390x/kernel.mk).
S390X_QEMU = ['qemu-system-s390x', '-machine', 's390-ccw-virtio', '-cpu', 'qemu', '-m', '128M', '-display', 'none',
              '-nodefaults', '-no-reboot', '-action', 'panic=exit-failure', '-serial', 'stdio', '-singlestep',
              '-icount', 'shift=0', '-kernel']
# The crash-smp kernels: two CPUs, without -icount and -no-reboot (as each kernel.mk boots them).
CRASH_SMP_QEMU = {
    'arm64': ARM64_CRASH_QEMU[:-1] + ['-smp', '2', '-kernel'],
    's390x': ['qemu-system-s390x', '-machine', 's390-ccw-virtio', '-cpu', 'qemu', '-m', '128M', '-display', 'none',
              '-nodefaults', '-action', 'panic=exit-failure', '-serial', 'stdio', '-smp', '2', '-kernel'],
    # SeaBIOS boots it again after the reset
    'x86_64': ['qemu-system-x86_64', '-machine', 'q35', '-cpu', 'max', '-m', '128M', '-display', 'none',
               '-nodefaults', '-serial', 'stdio', '-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04',
               '-smp', '2', '-kernel'],
}


def crash_cases(sfu, qemu_dir, case):
    """run.check_crash on the real output of the arm64 crash kernels, and on that output broken."""
    record_elf = os.path.join(qemu_dir, 'arm64', 'crash.elf')
    torn_elf = os.path.join(qemu_dir, 'arm64', 'crash-torn.elf')
    if not (os.path.exists(record_elf) and os.path.exists(torn_elf)):
        case('the arm64 crash kernels are built (make qemu-kernels): ' + qemu_dir, False)
        return
    record = run.boot(ARM64_CRASH_QEMU + [record_elf], 60, run.CRASH_BOOTS + 1)[0].splitlines()
    torn = run.boot(ARM64_CRASH_QEMU + [torn_elf], 60, run.CRASH_BOOTS + 1)[0].splitlines()

    def failures(mode, lines, elf=None):
        """run.judge's failures for a crash run, its serial output in a log file as in a run."""
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, 'serial.log')
            with open(log, 'w') as f:
                f.write('\n'.join(lines) + '\n')
            scenarios, _, fails = run.judge(lines, sfu, elf or (torn_elf if mode == 'torn' else record_elf),
                                            crash=mode, log=log)
        return [w for _, (_, whys) in sorted(scenarios.items()) for w in whys] + [w for _, w in fails]

    def changed(lines, old, new, which=0):
        """lines with the which-th line that starts with old replaced by new (None: removed)."""
        at = [i for i, l in enumerate(lines) if l.startswith(old)][which]
        return lines[:at] + ([new] if new is not None else []) + lines[at + 1:]

    def first(whys, text):
        return bool(whys) and all(text in w for w in whys[:1])

    case('a right crash run passes', failures('record', record) == [])
    with tempfile.TemporaryDirectory() as keep:
        log = os.path.join(keep, 'serial.log')
        with open(log, 'w') as f:
            f.write('\n'.join(record) + '\n')
        scenarios, _, _ = run.judge(record, sfu, record_elf, crash='record', log=log, keep=keep)
        kept = run.decode_record(sfu, os.path.join(keep, 'kernel.elf'), os.path.join(keep, 'record.bin'))
        case('a crash run keeps its record and kernel, which decode alike',
             scenarios[run.CRASH_SCENARIO][1] == [] and kept[2] is None and kept[0] and
             kept[:2] == run.decode_record(sfu, record_elf, log)[:2])
    case('a right torn run passes', failures('torn', torn) == [])

    # Boot 1's trace with one return address moved inside its function (its symbol column with
    # it): the trace's own check still passes, the record (boot 2's print and sfu crash's
    # decode) no longer equals it.
    frame3 = next(l for l in record if l.lstrip().startswith('#3 '))
    pc, symbol = frame3.split()[1], frame3.split()[-1]
    name, _, offset = symbol.partition('+')
    moved_line = frame3.replace(pc, '0x%016x' % (int(pc, 16) + 4))
    if offset:  # name+0xoff/0xsize
        off, _, size = offset.partition('/')
        moved_line = moved_line.replace(symbol, '%s+0x%x/%s' % (name, int(off, 16) + 4, size))
    moved = changed(record, frame3, moved_line)
    whys = failures('record', moved)
    case('frames that differ from boot 1 fail', len(whys) == 2 and
         whys[0].endswith('the record boot 2 printed: frame #3 is %s [table], boot 1 had 0x%x [table]' %
                          (hex(int(pc, 16)), int(pc, 16) + 4)) and 'sfu crash: frame #3' in whys[1])
    stop = changed(record, 'sfu-crash: stop: ', 'sfu-crash: stop: end-of-stack (unreliable)')
    case('a printed stop that differs fails',
         first(failures('record', stop), 'the record boot 2 printed: stop end-of-stack (unreliable)'))
    data = next(l for l in record if l.startswith('sfu-crash-data 5 '))
    bad = data.split()
    bad[2] = ('B' if bad[2][0] != 'B' else 'C') + bad[2][1:]
    case('a corrupted data line fails', first(failures('record', changed(record, data, ' '.join(bad))),
                                              'sfu crash: sfu crash exited 1'))
    case('the wrong image fails', first(failures('record', record, torn_elf), 'sfu crash: sfu crash exited 1'))
    begin = [l.startswith('sfu-crash-begin') for l in record].index(True)
    end = [l.startswith('sfu-crash-end') for l in record].index(True)
    missing = record[:begin] + ['sfu-crash-refused crash-no-record'] + record[end + 1:]
    case('a missing record fails', failures('record', missing) ==
         ['8-crash/record: boot 2 printed no record (crash-no-record)'])
    case('a capture that failed fails', first(failures('record', changed(
        record, 'sfu-crash-captured', 'sfu-crash-captured crash-capture-busy')), 'capture gave crash-capture-busy'))
    case('a wrong refusal fails', failures('torn', changed(torn, 'sfu-crash-refused crash-record-torn',
                                                            'sfu-crash-refused crash-bad-crc')) ==
         ['8-crash/torn: boot 2 took crash-bad-crc, expected the refusal crash-record-torn'])
    at = torn.index('sfu-boot 2')
    case('a capture the reset did not cut fails',
         first(failures('torn', torn[:at] + ['sfu-crash-captured ok'] + torn[at:]), 'the reset did not cut it'))
    case('boot 1 finding a record fails', first(failures('record', changed(
        record, 'sfu-crash-refused crash-no-record', 'sfu-crash-begin v1 arm64')), 'boot 1 took a record'))
    extra = record[:-1] + ['sfu-boot 3', 'sfu-error 8-crash: boot 3', 'sfu-done 1']
    case('an extra reset fails', '8-crash/record: 3 boots, not 2: the machine reset more than once'
         in failures('record', extra))
    case('a boot count that did not survive fails',
         first(failures('record', changed(record, 'sfu-boot 2', 'sfu-boot 1')), 'boots 1 1: the boot count'))
    case('a run without its second boot fails', first(failures('record', record[:record.index('sfu-boot 2')]),
                                                       '1 boots, not 2'))


def crash_smp_cases(sfu, qemu_dir, arch, case_of):
    """run.check_crash --crash smp on arch's crash-smp kernel's real output and on it broken, and
    on the real output of the two kernels built to be wrong: crash-smp-nowait (the loser resets
    without sfu_crash_wait: a torn record) and crash-smp-nolock (no print lock: lines
    interleave)."""
    def case(name, ok):
        case_of(arch + ': ' + name, ok)
    elfs = {v: os.path.join(qemu_dir, arch, v + '.elf') for v in ('crash-smp', 'crash-smp-nowait',
                                                                   'crash-smp-nolock')}
    if not all(os.path.exists(e) for e in elfs.values()):
        case('the crash-smp kernels are built (make qemu-kernels): ' + qemu_dir, False)
        return
    smp = CRASH_SMP_QEMU[arch]
    out = {v: run.boot(smp + [e], 60, run.CRASH_BOOTS + 1)[0].splitlines() for v, e in elfs.items()}

    def failures(lines, elf=elfs['crash-smp']):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, 'serial.log')
            with open(log, 'w') as f:
                f.write('\n'.join(lines) + '\n')
            scenarios, _, fails = run.judge(lines, sfu, elf, crash='smp', log=log)
        return [w for _, (_, whys) in sorted(scenarios.items()) for w in whys] + [w for _, w in fails]

    right = out['crash-smp']
    case('a right crash-smp run passes', failures(right) == [])
    whys = failures(out['crash-smp-nowait'], elfs['crash-smp-nowait'])
    case('a loser that resets without sfu_crash_wait fails (torn)',
         any('boot 2 printed no record (crash-record-torn)' in w for w in whys) and
         any('sfu_crash_wait answered not' in w for w in whys))
    # Without the lock the two CPUs' lines mix only if both vCPU threads really print at once: on
    # a loaded host one may print everything within its time slice (with two busy host cores, 1
    # boot in 4 mixed on s390x, whose console writes a line per SERVICE CALL, and 2 in 5 on arm64).
    # Up to 30 boots, a fifth of a second each: the first that mixes ends the loop.
    mixed_runs = 0
    for attempt in range(30):
        lines = out['crash-smp-nolock'] if attempt == 0 else \
            run.boot(smp + [elfs['crash-smp-nolock']], 60, run.CRASH_BOOTS + 1)[0].splitlines()
        if any('interleaved output' in w for w in failures(lines, elfs['crash-smp-nolock'])):
            mixed_runs += 1
            break
    case('traces printed without the print lock fail', mixed_runs)
    captured = [l for l in right if l.startswith('sfu-crash-captured ')]
    winner = next(l for l in captured if l.split()[1] == 'ok')
    loser = next(l for l in captured if l.split()[1] != 'ok')
    both = [loser.replace(loser.split()[1], 'ok') if l == loser else l for l in right]
    case('two winners fail', any('2 captures won' in w for w in failures(both)))
    swapped = [winner.replace(winner.split()[2], loser.split()[2]) if l == winner else
               loser.replace(loser.split()[2], winner.split()[2]) if l == loser else l for l in right]
    case('a record that is not the winner\'s trace fails',
         any('the record boot 2 printed: frame #' in w for w in failures(swapped)))
    case('a loser that did not wait fails', any('sfu_crash_wait answered nothing' in w for w in
                                                failures([l for l in right if not l.startswith('sfu-crash-waited ')])))
    inside = [i for i, l in enumerate(right) if l.startswith('sfu-trace ')][1] + 3
    mixed = right[:inside] + ['sfu-crash-waited ok 1'] + right[inside:]
    case('a line of the other CPU inside a trace fails', any('has a foreign line' in w for w in failures(mixed)))


def nofault_cases(sfu, qemu_dir, case):
    """Scenario 10's faulting stack read on arm64 (10-nofault), on the real output of the kernel
    built to be wrong: nofault-nofixup, whose abort handler ignores the fixup table. The hook's
    load from the hole aborts (a synchronous external abort, ESR 0x96000010) and the run must
    fail there. It ends at that scenario, before the slow ones: a quarter of a second."""
    elf = os.path.join(qemu_dir, 'arm64', 'nofault-nofixup.elf')
    if not os.path.exists(elf):
        case('the arm64 nofault-nofixup kernel is built (make qemu-kernels): ' + qemu_dir, False)
        return
    qemu = ['qemu-system-aarch64', '-machine', 'virt,gic-version=2', '-cpu', 'max,pauth-impdef=on', '-m', '128M',
            '-display', 'none', '-nodefaults', '-no-reboot', '-icount', 'shift=0', '-semihosting', '-serial',
            'stdio', '-kernel', elf]
    lines = run.boot(qemu, 60)[0].splitlines()
    scenarios, _, fails = run.judge(lines, sfu, elf)
    whys = [w for _, (_, ws) in sorted(scenarios.items()) for w in ws] + [w for _, w in fails]
    case('a stack read whose abort finds no fixup fails (external abort, trace cut)',
         any(w.startswith('sfu-error unexpected exception: esr 0x96000010 ') for w in whys) and
         any(w.startswith('10-nofault/hole: incomplete trace') for w in whys))


def reentry_wrong_cases(sfu, qemu_dir, case):
    """The s390x kernel built to fail scenario 10 (reentry-wrong.elf: the restart entry not among
    the walker's trap entries, the no-fault loads not in the fixup table; gen-v2 is it built
    right): its run must fail both ways."""
    elf = os.path.join(qemu_dir, 's390x', 'reentry-wrong.elf')
    if not os.path.exists(elf):
        case('s390x: reentry-wrong.elf is built (make qemu-kernels): ' + qemu_dir, False)
        return
    lines = run.boot(S390X_QEMU + [elf], 60, 1)[0].splitlines()
    scenarios, _, fails = run.judge(lines, sfu, elf)
    whys = [w for _, (_, ws) in sorted(scenarios.items()) for w in ws] + [w for _, w in fails]
    case('s390x: a restart entry the walker is not told of fails 10-reentry',
         '10-reentry/restart: the last frame is in rst_entry, not _start' in whys)
    case('s390x: a no-fault load not in the fixup table fails 10-nofault',
         any(w.startswith('sfu-error unexpected program check code 0x5 ') for w in whys) and
         any(w.startswith('10-nofault/beyond-ram: ') for w in whys))


# The arm64 reloc kernel's command (tests/qemu/arm64/kernel.mk): the seed's word at the top of its
# RAM, given by QEMU's generic loader. One fixed seed: every runner test boots the same.
ARM64_RELOC_QEMU = ARM64_CRASH_QEMU[:-1] + ['-device', 'loader,addr=0x47fff000,data={seed},data-len=8', '-kernel']
RELOC_SEED = 0x5eed0000c0ffee01


def reloc_slot_cases(case):
    """run.reloc_slot, the runner's copy of common/reloc.c's: the slots off the image, on both sides."""
    # Window [0x10000, 0x20000) in 0x1000 steps, an image of 0x2000 linked at 0x14000: 0x10000..0x12000
    # end at or before it (3 slots), 0x16000..0x1e000 start after it (9 slots).
    slot = lambda seed: run.reloc_slot(seed, 0x14000, 0x2000, 0x10000, 0x20000, 0x1000)
    case('reloc_slot: slots below the image come first, then those above',
         [slot(s) for s in (0, 2, 3, 11, 12)] == [(0x10000, 12), (0x12000, 12), (0x16000, 12), (0x1e000, 12),
                                                  (0x10000, 12)])
    case('reloc_slot: none overlaps the image', all(not (0x14000 - 0x2000 < slot(s)[0] < 0x14000 + 0x2000)
                                                    for s in range(12)))
    case('reloc_slot: no slot in a window the image fills', run.reloc_slot(5, 0x10000, 0x10000, 0x10000, 0x20000,
                                                                          0x1000) == (0x10000, 0))
    case('reloc_slot: an image linked below the window has every slot above it',
         run.reloc_slot(1, 0x1000, 0x2000, 0x10000, 0x20000, 0x1000) == (0x11000, 15))
    case('pick_seed: SFU_RELOC_SEED replays a run', run.pick_seed({'SFU_RELOC_SEED': '0x1234'}) == 0x1234)
    seeds = {run.pick_seed({}) for _ in range(4)}
    case('pick_seed: a fresh non-zero seed each run', len(seeds) == 4 and 0 not in seeds)


def reloc_cases(sfu, qemu_dir, case):
    """run.py --reloc's checks (scenario 11) on the real output of the arm64 reloc kernel, booted once
    (a quarter of a second) with a fixed seed, and on it broken; the host commands' checks with sfu
    and minidump_stackwalk standing in for the real ones, each giving one frame a wrong answer."""
    elf = os.path.join(qemu_dir, 'arm64', 'reloc.elf')
    unmoved = os.path.join(qemu_dir, 'arm64', 'crash.elf')
    bp = os.path.join(os.path.dirname(os.path.abspath(qemu_dir)), 'oracles', 'breakpad', 'bin')
    if not (os.path.exists(elf) and os.path.exists(unmoved)):
        case('the arm64 reloc and crash kernels are built (make qemu-kernels): ' + qemu_dir, False)
        return
    if not os.access(os.path.join(bp, 'minidump_stackwalk'), os.X_OK):
        case('Breakpad\'s tools are built (make qemu-kernels): ' + bp, False)
        return
    cmd = [c.replace('{seed}', '0x%x' % RELOC_SEED) for c in ARM64_RELOC_QEMU] + [elf]
    lines = run.boot(cmd, 60, run.CRASH_BOOTS + 1)[0].splitlines()
    host = ['%s-%s' % (run.RELOC_SCENARIO, c) for c in ('crash', 'symbolize', 'minidump', 'stackwalk')]

    def failures(lines, seed=RELOC_SEED, elf=elf, sfu=sfu, bp=bp):
        """({scenario: [why, ...]}, [run-level why, ...]) of run.judge on a reloc run's output."""
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, 'serial.log')
            with open(log, 'w') as f:
                f.write('\n'.join(lines) + '\n')
            scenarios, _, fails = run.judge(lines, sfu, elf, crash='record', log=log, keep=os.path.join(d, 'keep'),
                                            reloc=run.Reloc(seed, bp))
        return {name: whys for name, (_, whys) in scenarios.items()}, [w for _, w in fails]

    def changed(lines, old, new, which=0):
        at = [i for i, l in enumerate(lines) if l.startswith(old)][which]
        return lines[:at] + ([new] if new is not None else []) + lines[at + 1:]

    def only(got, scenario, text):
        """got's one failing scenario is scenario, and one of its failures says text."""
        scenarios, fails = got
        failing = sorted(n for n, whys in scenarios.items() if whys)
        return failing == [scenario] and not fails and any(text in w for w in scenarios[scenario])

    right = failures(lines)
    moved = [l for l in lines if l.startswith('sfu-reloc ')]
    case('a right reloc run passes', right == ({n: [] for n in [run.CRASH_SCENARIO, run.RELOC_SCENARIO] + host}, []))
    case('the reloc kernel moved itself the same in both boots, by a non-zero bias',
         len(moved) == 2 and moved[0] == moved[1] and ' bias 0x0 ' not in moved[0])
    case('a seed the kernel did not read fails', only(failures(lines, seed=RELOC_SEED + 1), run.RELOC_SCENARIO,
                                                      'the kernel read the seed 0x%x' % RELOC_SEED))
    line = moved[1].split()
    unmoved_boot = ' '.join(line[:2] + ['0x0'] + line[3:-1] + ['0'])  # seed 0, relocs 0: the copy re-entered
    case('a boot that did not move the image again fails',
         only(failures(changed(lines, 'sfu-reloc ', unmoved_boot, 1)), run.RELOC_SCENARIO,
              'boot 2 moved the image otherwise than boot 1'))
    case('a boot without its sfu-reloc line fails', only(failures(changed(lines, 'sfu-reloc ', None, 1)),
                                                        run.RELOC_SCENARIO, 'sfu-reloc lines in boots 1,'))
    fewer = [' '.join(l.split()[:-1] + [str(int(l.split()[-1]) - 1)]) if l.startswith('sfu-reloc ') else l
             for l in lines]
    case('relocations the kernel did not apply fail', only(failures(fewer), run.RELOC_SCENARIO, 'dynamic relocations'))
    module = next(l for l in lines if l.startswith('module 0 image '))
    lo, hi = (int(x, 16) for x in module.split()[3].split('-'))
    shifted = module.replace(module.split()[3], '0x%016x-0x%016x' % (lo + 0x1000, hi + 0x1000))
    scenarios, _ = failures(changed(lines, 'module 0 image ', shifted))
    case('a module line away from _stext plus the bias fails',
         any('the module lines say the bias 0x%x' % (int(line[8], 16) + 0x1000) in w
             for w in scenarios[run.RELOC_SCENARIO]))
    scenarios, _ = failures(lines, elf=unmoved)
    case('the wrong image fails, and every host command with it',
         any('not a reloc kernel' in w for w in scenarios[run.RELOC_SCENARIO]) and all(scenarios[n] for n in host))

    # Each host command's check, given one wrong frame: frame #3 (chain_4) named chain_3.
    frame3 = next(l for l in lines if l.lstrip().startswith('#3 '))
    sym = frame3.split()[-1].split('/')[0]  # chain_4+0xOFF
    wrong = sym.replace('chain_4', 'chain_3')
    with tempfile.TemporaryDirectory() as d:
        def fake_sfu(command, edit, when='true'):
            path = os.path.join(d, 'sfu-' + command)
            with open(path, 'w') as f:
                f.write('#!/bin/bash\n# the real sfu, its answer to %s edited\n'
                        'if [[ $1 == %s ]] && %s; then %s "$@" | sed %s; exit ${PIPESTATUS[0]}; fi\n'
                        'exec %s "$@"\n' % (command, command, when, sfu, shlex.quote(edit), sfu))
            os.chmod(path, 0o755)
            return path
        case('sfu crash with a frame\'s source line lost fails', only(
            failures(lines, sfu=fake_sfu('crash', '/^        chain_4 at /d')), host[0], 'frame #3: sfu crash names it'))
        case('sfu symbolize --image annotating a frame wrong fails', only(
            failures(lines, sfu=fake_sfu('symbolize', 's/  %s /  %s /' % (sym, wrong), '[[ $2 == --image ]]')),
            host[1], 'annotated \'%s /' % wrong))
        case('sfu stackwalk naming a frame wrong fails', only(
            failures(lines, sfu=fake_sfu('stackwalk', 's/ %s / %s /' % (sym, wrong))), host[3],
            'frame #3 is 0x%x' % int(frame3.split()[1], 16)))
        fake_bp = os.path.join(d, 'breakpad')
        os.makedirs(fake_bp)
        os.symlink(os.path.join(bp, 'dump_syms'), os.path.join(fake_bp, 'dump_syms'))
        with open(os.path.join(fake_bp, 'minidump_stackwalk'), 'w') as f:
            f.write('#!/bin/bash\n%s "$@" | sed "s/|chain_4|/|chain_3|/"\n' % os.path.join(bp, 'minidump_stackwalk'))
        os.chmod(os.path.join(fake_bp, 'minidump_stackwalk'), 0o755)
        case('minidump_stackwalk naming a frame otherwise than the device fails',
             only(failures(lines, bp=fake_bp), host[2], 'minidump_stackwalk: frame #3'))
    scenarios, _ = failures(lines, bp=os.path.join(qemu_dir, 'no-breakpad'))
    case('a run without Breakpad\'s tools fails', any('Breakpad\'s tools are not there' in w
                                                       for w in scenarios[host[2]]))


def every_cases(case):
    """The every-instruction runs' judgement (gdb_oracle.classify, every_check.judge), on made-up
    frames and counts."""
    cls = gdb_oracle.classify
    end, out = gdb_oracle.STOP_END, 'outermost'
    k = [(0x1000, 0x7f00), (0x2004, 0x7f10), (0x3008, 0x7f40), (0x4000, 0x7ff0)]
    case('oracle: the same frames, both ending cleanly, are equal', cls('x86_64', (k, end), k, out) == (gdb_oracle.EQUAL, None))
    case('oracle: a PC one off differs',
         cls('x86_64', (k, end), k[:2] + [(0x3009, 0x7f40)] + k[3:], out) ==
         (gdb_oracle.DIFFER, 'frame #2: gdb has pc 0x3009 sp 0x7f40, the kernel pc 0x3008 sp 0x7f40'))
    case('oracle: an SP (a CFA) 8 off differs',
         cls('x86_64', (k, end), k[:1] + [(0x2004, 0x7f18)] + k[2:], out)[0] == gdb_oracle.DIFFER)
    case('oracle: gdb ending earlier, outside the entry code, differs',
         cls('x86_64', (k, end), k[:3], out, [(0x5000, 0x6000)]) ==
         (gdb_oracle.DIFFER, 'gdb gave 3 frames (stopping with "outermost"), the kernel 4'))
    case('oracle: gdb going on past the kernel\'s end differs',
         cls('x86_64', (k, end), k + [(0x9000, 0x8000)], 'previous frame identical to this frame (corrupt stack?)')[0] ==
         gdb_oracle.DIFFER)
    case('oracle: a kernel walk that did not end cleanly differs',
         cls('x86_64', (k, end + 1), k, out) == (gdb_oracle.DIFFER, 'the kernel\'s walk stopped with stop 2, not end-of-stack'))
    case('oracle: gdb stopping for another reason at the same frame differs',
         cls('x86_64', (k, end), k, 'frame did not save the PC') ==
         (gdb_oracle.DIFFER, 'gdb stopped with "frame did not save the PC" where the kernel\'s walk ended'))
    signed = k[:2] + [(0x3a00000000003008, 0x7f40)]
    case('oracle: arm64, a return address with its PAC bits is the named limitation',
         cls('arm64', (k, end), signed, 'previous frame identical to this frame (corrupt stack?)') ==
         (gdb_oracle.PAC_UNSTRIPPED, 'frame #2: gdb has pc 0x3a00000000003008, the kernel 0x3008: the PAC bits left on'))
    case('oracle: arm64, an equal walk gdb was started again past signed return addresses is the named limitation',
         cls('arm64', (k, end), k, out, (), 2) ==
         (gdb_oracle.PAC_UNSTRIPPED, 'gdb left 2 return addresses signed: stripped, and gdb started again from each'))
    case('oracle: ... and a difference after a restart still differs',
         cls('arm64', (k, end), k[:3] + [(0x4004, 0x7ff0)], out, (), 1)[0] == gdb_oracle.DIFFER)
    case('oracle: x86_64 has no PAC: the same frames differ', cls('x86_64', (k, end), signed, out)[0] == gdb_oracle.DIFFER)
    case('oracle: arm64, PAC bits and a wrong SP differ',
         cls('arm64', (k, end), k[:2] + [(0x3a00000000003008, 0x7f48)], out)[0] == gdb_oracle.DIFFER)
    case('oracle: arm64, a wrong address under the PAC bits differs',
         cls('arm64', (k, end), k[:2] + [(0x3a0000000000300c, 0x7f40)], out)[0] == gdb_oracle.DIFFER)
    case('oracle: gdb ending outermost in the entry code is the named limitation',
         cls('arm64', (k, end), k[:3], out, [(0x2000, 0x2100), (0x3000, 0x3008)]) ==
         (gdb_oracle.ENTRY_OUTERMOST, 'gdb ends at frame #2, 0x3008 in the trap entry code; the kernel goes on to 4 frames'))
    case('oracle: ... looked up at the return address less one',
         cls('arm64', (k, end), k[:3], out, [(0x3008, 0x3010)])[0] == gdb_oracle.DIFFER)
    case('oracle: ... and only where gdb calls the frame outermost',
         cls('arm64', (k, end), k[:3], 'frame did not save the PC', [(0x3000, 0x3010)])[0] == gdb_oracle.DIFFER)
    case('oracle: gdb stopping at the entry point\'s function, as it does by default, ends the walk as outermost',
         cls('arm64', (k, end), k, gdb_oracle.AT_ENTRY) == (gdb_oracle.EQUAL, None))
    case('oracle: gdb stopping with no reason elsewhere differs', cls('arm64', (k, end), k, 'no reason')[0] == gdb_oracle.DIFFER)
    guessed = k[:3] + [(0x9999, 0x7f60)]
    case('oracle: gdb guessing past trap entry code without CFI is the named limitation',
         cls('arm64', (k, end), guessed, 'x', [(0x3000, 0x3008)], 0, [(0x1000, 0x2008)]) ==
         (gdb_oracle.ENTRY_NO_CFI, 'frame #2, 0x3008, is trap entry code without CFI: gdb guessed its caller, 0x9999'))
    case('oracle: ... not where CFI covers it',
         cls('arm64', (k, end), guessed, 'x', [(0x3000, 0x3008)], 0, [(0x3000, 0x3008)])[0] == gdb_oracle.DIFFER)
    case('oracle: ... nor outside the entry code', cls('arm64', (k, end), guessed, 'x', [], 0, [])[0] == gdb_oracle.DIFFER)
    unreadable = gdb_oracle.UNREADABLE + ' (frame #0: Value can\'t be converted to integer.)'
    case('oracle: gdb failing on a frame whose return address is in an FPR is the named limitation',
         cls('s390x', (k, end), [], unreadable, (), 0, None, [(0x1000, 0x1004)])[0] == gdb_oracle.RA_IN_FPR)
    case('oracle: ... or on the frame after it', cls('s390x', (k, end), k[:1], unreadable, (), 0, None,
                                                     [(0x1000, 0x1004)])[0] == gdb_oracle.RA_IN_FPR)
    case('oracle: ... not elsewhere', cls('s390x', (k, end), [], unreadable, (), 0, None, [(0x2000, 0x2008)])[0] ==
         gdb_oracle.DIFFER)
    rows = """
000001b8 0000000000000014 0000018c FDE cie=00000030 pc=00000000000205d0..00000000000205e0
   LOC           CFA      r9    ra    r15   
00000000000205d0 r15+160  u     u     u     
00000000000205d4 r15+160  c-88  r20 (f1) u     
00000000000205de r15+160  c-88  u     u     

000001d0 000000000000001c 000001a4 FDE cie=00000030 pc=00000000000205e0..00000000000205fc
   LOC           CFA      ra    
00000000000205e0 r15+160  u     
00000000000205f6 r15+160  r22 (f2) 
"""
    case('every: the code whose CFI keeps the return address in an FPR, from readelf -wF',
         every_check.ra_in_fpr(rows) == [(0x205d4, 0x205de), (0x205f6, 0x205fc)])
    point = [7, 2, 0x11, 0x22] + [0] * 38 + [2, end, 0x1000, 0x2004] + [0] * 62 + [0x7f00, 0x7f10] + [0] * 62 + \
        [1, 0x5000] + [0] * 7 + [0x6000] + [0] * 7
    for arch in ('x86_64', 's390x'):
        data = gdb_oracle.struct.pack(gdb_oracle.ENDIAN[arch] + '%dQ' % len(point), *point)
        case('oracle: struct oracle_point read back (%s\'s byte order)' % arch,
             gdb_oracle.unpack_point(arch, data) == (7, [0x11, 0x22], k[:2], end, [(0x5000, 0x6000)]))

    judge = every_check.judge
    counts = [('every-instruction', 110402, 110402)]
    oracle = {'compared': 1104, 'counts': {'equal': 1000, 'differ': 0, 'pac-unstripped': 0, 'entry-outermost': 104},
              'diffs': []}
    line, limited, whys = judge('arm64', 'gen-v2', counts, 1104, oracle)
    case('every: a good run passes, its line in the form tools read',
         line == 'qemu: arm64 every-instruction gen-v2: 110402 instructions, 110402 walks right, 1104 gdb-equal, 0 differ'
         and whys == [] and every_check.LINE.match(line).groups() == ('arm64', 'gen-v2', '110402', '110402', '1104', '0'))
    case('every: walks a limitation cut short are counted on their own line',
         limited == ['qemu: arm64 every-instruction gen-v2: gdb limitation entry-outermost: 104 of the gdb-equal walks '
                     'compared up to it'])
    case('every: a wrong walk on the device fails',
         judge('arm64', 'gen-v2', [('every-instruction', 110401, 110402)], 1104, oracle)[2] ==
         ['1 of 110402 stepped walks were wrong on the device'])
    case('every: no count line fails', judge('arm64', 'gen-v2', [], 1104, oracle) ==
         (None, [], ['0 "sfu-count every-instruction" lines, expected one']))
    case('every: no sfu-oracle-handed line fails', judge('arm64', 'gen-v2', counts, None, oracle)[2] == ['no sfu-oracle-handed line'])
    case('every: gdb comparing fewer walks than handed over fails',
         judge('arm64', 'gen-v2', counts, 1105, oracle)[2] == ['gdb compared 1104 walks, the kernel handed over 1105'])
    none = dict(oracle, compared=0, counts={'equal': 0, 'differ': 0})
    case('every: gdb comparing nothing fails', judge('arm64', 'gen-v2', counts, 0, none)[2] == ['gdb compared no walk'])
    bad = dict(oracle, counts=dict(oracle['counts'], equal=998, differ=2),
               diffs=[{'serial': 300, 'verdict': 'differ', 'why': 'frame #1: ...', 'file': 'f300'},
                      {'serial': 900, 'verdict': 'differ', 'why': 'frame #2: ...', 'file': 'f900'}])
    line, _, whys = judge('arm64', 'gen-v2', counts, 1104, bad)
    case('every: a difference fails the run, named with its file',
         line.endswith('1102 gdb-equal, 2 differ') and
         whys == ['2 walks differ from gdb\'s, first: serial 300: frame #1: ... (f300); serial 900: frame #2: ... (f900)'])
    case('every: no result from gdb fails', judge('arm64', 'gen-v2', counts, 1104, 'gdb-multiarch is not installed')[2] ==
         ['gdb: gdb-multiarch is not installed'])
    case('every: an error in gdb_oracle.py fails',
         judge('arm64', 'gen-v2', counts, 1104, dict(oracle, error='GdbError: x'))[2] == ['gdb_oracle.py: GdbError: x'])
    case('every: sfu-oracle-handed read', every_check.handed_over(['a', 'sfu-oracle-handed 12\r', 'b']) == 12
         and every_check.handed_over(['sfu-oracle-handed x']) is None)


def every_wrong_cases(qemu_dir, case):
    """x86_64's every-wrong.elf hands gdb a caller one byte off at every walk: booted with gdb, the
    oracle must find every walk it compares different, and the run fail."""
    elf = os.path.join(qemu_dir, 'x86_64', 'every-wrong.elf')
    if not os.path.exists(elf):
        case('x86_64 every-wrong.elf is built (make qemu-kernels): ' + qemu_dir, False)
        return
    with tempfile.TemporaryDirectory() as tmp:
        output, killed, oracle, _ = every_check.boot_with_gdb(run.boot, X86_QEMU + [elf], 120, elf, 'x86_64', 1000, tmp)
        ok = not killed and not isinstance(oracle, str)
        case('every-wrong: booted with gdb (%s)' % (killed or (oracle if isinstance(oracle, str) else 'ok')), ok)
        if not ok:
            return
        lines = output.splitlines()
        handed = every_check.handed_over(lines)
        line, _, whys = every_check.judge('x86_64', 'wrong', run.parse(lines)[1], handed, oracle)
        case('every-wrong: gdb finds every walk it compares different',
             handed and oracle['compared'] == handed and oracle['counts']['differ'] == handed
             and line.endswith('0 gdb-equal, %d differ' % handed))
        case('every-wrong: the run fails for it', len(whys) == 1 and whys[0].startswith('%d walks differ' % handed)
             and 'frame #1: gdb has pc ' in whys[0])


# The x86_64 kernels' command (tests/qemu/x86_64/kernel.mk).
X86_QEMU = ['qemu-system-x86_64', '-machine', 'q35', '-cpu', 'max', '-m', '128M', '-display', 'none', '-nodefaults',
            '-no-reboot', '-serial', 'stdio', '-device', 'isa-debug-exit,iobase=0xf4,iosize=0x04', '-icount', 'shift=0',
            '-kernel']


def main():
    sfu, corpus = sys.argv[1], sys.argv[2]
    elf = os.path.join(corpus, 'x86_64', 'gcc-O2.elf')
    calls = run.CallSites(elf)
    into = {}  # callee -> the return address of its one call site
    for ra, target in calls.by_return.items():
        into.setdefault(target, ra)
    nm = subprocess.run(['nm', elf], capture_output=True, text=True, check=True).stdout
    start_of = {f[2]: int(f[0], 16) for f in (l.split() for l in nm.splitlines()) if len(f) == 3}
    sized = [(int(f[0], 16), int(f[1], 16), f[3]) for f in (l.split() for l in
             subprocess.run(['nm', '-S', elf], capture_output=True, text=True, check=True).stdout.splitlines())
             if len(f) == 4 and f[2] in 'tT']

    def device_name(pc, src):
        """What a kernel prints for the frame: the function of the lookup address, pc's offset."""
        lookup = pc - 1 if src in run.RETURN_SOURCES else pc
        for start, size, name in sized:
            if start <= lookup < start + size:
                return '%s+0x%x/0x%x' % (name, pc - start, size)
        return None

    # chain_d interrupted two bytes in, then each caller's return address.
    frames = [(start_of['chain_d'] + 2, 'regs'), (into['chain_d'], 'table'), (into['chain_c'], 'table'),
              (into['chain_b'], 'table'), (into['chain_a'], 'table'), (into['main'], 'table')]
    exact = 'chain_d chain_c chain_b chain_a main _start | end-of-stack'

    def serial(expect, fr=frames, stop='end-of-stack (reliable)', done='0', names=None):
        """names: the symbol column of each frame (default: what the device would print)."""
        lines = ['booting', 'sfu-trace 1-faults/x', 'sfu-expect ' + expect]
        names = names or [device_name(pc, src) for pc, src in fr]
        lines += [frame_line(i, pc, src, names[i]) for i, (pc, src) in enumerate(fr)]
        lines += ['stop: ' + stop, 'sfu-end']
        return lines + (['sfu-done ' + done] if done is not None else [])

    def verdict(lines):
        traces, counts, done, errors = run.parse(lines)
        names = run.trace_names(sfu, elf, traces)
        full = run.trace_names(sfu, elf, traces, with_offset=True)
        whys = [run.check_trace(t, names, lambda: calls, full) for t in traces]
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

    # The names the device prints itself: each must be the host's, at the PC's own offset.
    good = [device_name(pc, src) for pc, src in frames]
    case('the device names its frames as the host does',
         good[1].startswith('chain_c+') and not verdict(serial(exact, names=good))[4])

    def with_name(i, name):
        return serial(exact, names=good[:i] + [name] + good[i + 1:])

    _, _, _, _, whys = verdict(with_name(2, good[1]))
    case('a wrong device name fails', whys and whys[0].startswith('frame #2: the device printed chain_c+'))
    _, _, _, _, whys = verdict(with_name(3, ''))
    case('a missing device name fails', whys and whys[0].startswith('frame #3: the device printed no name'))
    pc, src = frames[1]
    off_by_one = good[1].replace('+0x%x/' % (pc - start_of['chain_c']), '+0x%x/' % (pc - 1 - start_of['chain_c']))
    _, _, _, _, whys = verdict(with_name(1, off_by_one))
    case('the offset of the lookup address instead of the PC fails', off_by_one != good[1] and whys and
         whys[0].startswith('frame #1: the device printed'))
    _, _, _, _, whys = verdict(with_name(1, good[1].split('/')[0]))
    case('a name without its size fails', whys and whys[0].startswith('frame #1: the device printed'))
    lost = frames + [(0x10, 'table')]  # a return address in no function, which the host cannot name
    lost_expect = exact.replace(' |', ' ? |') + ' unreliable'
    _, _, _, _, whys = verdict(serial(lost_expect, fr=lost, stop='end-of-stack (unreliable)', names=good + [None]))
    case('no device name where the host has none passes', not whys)
    _, _, _, _, whys = verdict(serial(lost_expect, fr=lost, stop='end-of-stack (unreliable)',
                                      names=good + ['main+0x0/0x10']))
    case('a device name where the host has none fails', whys and 'the host nothing' in whys[0])
    lines = serial(exact)
    lines[4] = frame_line(1, frames[1][0], 'table', good[1], module='-')
    _, _, _, _, whys = verdict(lines)
    case('a device name in no module fails', whys and whys[0].startswith('frame #1: the device names'))

    # A core without names (run.py --no-names, the walk-only kernels): stop codes, no function
    # names, the frames named by the host alone.
    def unnamed(lines):
        scenarios, _, failures = run.judge(lines, sfu, elf, unnamed=True)
        return [w for _, (_, whys) in sorted(scenarios.items()) for w in whys] + [w for _, w in failures]

    bare = [None] * len(frames)
    case('an unnamed trace with its stop code passes', unnamed(serial(exact, stop='S1 (reliable)', names=bare)) == [])
    whys = unnamed(serial('chain_d chain_b chain_c chain_a main _start | end-of-stack', stop='S1 (reliable)', names=bare))
    case('an unnamed trace is checked frame by frame', whys and whys[0].startswith('1-faults/x: frames '))
    whys = unnamed(serial(exact, stop='S2 (unreliable)', names=bare))
    case('another stop code fails', whys and whys[0].startswith('1-faults/x: stopped with bad-start'))
    case('a stop name where a code is due fails',
         unnamed(serial(exact, names=bare)) == ['1-faults/x: stop end-of-stack is not a stop code (sfu name)'])
    case('a stop code past the list fails',
         unnamed(serial(exact, stop='S14 (reliable)', names=bare)) == ['1-faults/x: stop S14 is not a stop code (sfu name)'])
    whys = unnamed(serial(exact, stop='S1 (reliable)'))
    case('a function name from an unnamed core fails', whys and whys[0].startswith('1-faults/x: frame #0: the device printed a name'))

    named = subprocess.run([sfu, 'name', 'S1', 'E5'], capture_output=True, text=True)
    case('sfu name names stop and error codes', named.returncode == 0 and
         named.stdout == 'S1 end-of-stack\nE5 bad-magic\n')
    case('sfu name refuses a code past its list', subprocess.run([sfu, 'name', 'S14'], capture_output=True).returncode == 1)

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

    # A guest that keeps resetting is stopped at the boot after the limit, not at the timeout.
    output, killed = run.boot(['sh', '-c', 'while :; do echo sfu-boot 1; sleep 0.05; done'], 30, 3)
    case('a machine that keeps resetting is stopped', killed == 'killed at boot 4: the machine kept resetting'
         and output.count('sfu-boot') == 4)

    qemu_dir = sys.argv[3] if len(sys.argv) > 3 else os.path.join(os.path.dirname(os.path.abspath(corpus)), 'qemu')
    for arch in sorted(CRASH_SMP_QEMU):
        crash_smp_cases(sfu, qemu_dir, arch, case)
    nofault_cases(sfu, qemu_dir, case)
    reentry_wrong_cases(sfu, qemu_dir, case)
    crash_cases(sfu, qemu_dir, case)
    reloc_slot_cases(case)
    reloc_cases(sfu, qemu_dir, case)
    every_cases(case)
    gdb_limits.cases(case)
    every_wrong_cases(qemu_dir, case)
    print('runner: %d passed, %d failed' % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == '__main__':
    sys.exit(main())
