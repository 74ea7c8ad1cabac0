"""The gdb half of the debugger oracle (tests/qemu/common/oracle.h; tests/qemu/README.md, "Every
instruction"). Runs inside gdb-multiarch, attached to a stepping kernel held at reset (-S):

    gdb-multiarch -q -batch -nx KERNEL.elf -ex 'target remote HOST:PORT' -x gdb_oracle.py

with its parameters in the environment: ORACLE_ARCH (x86_64, arm64, s390x), ORACLE_EVERY (K: hand
every K-th stepped walk over), ORACLE_OUT (the result, JSON), ORACLE_DIR (one file per
difference) and ORACLE_FACTS (every_check.elf_facts: the code the CFI covers, the entry point's
function). At each handover it loads the interrupted registers the kernel saved into the CPU,
unwinds with gdb's own DWARF CFI unwinder, compares PC and SP frame by frame with the frames the
kernel's walk gave, puts the handler's registers back and continues, until the guest ends.
classify() (plain Python, also used by runner_test.py) decides each comparison."""
import json
import os
import struct
import time

# oracle.h's regs[] order, by gdb's register names.
REGS = {
    'x86_64': ['rip', 'rsp', 'rbp', 'rax', 'rbx', 'rcx', 'rdx', 'rsi', 'rdi'] +
              ['r%d' % n for n in range(8, 16)] + ['eflags'],
    'arm64': ['pc', 'sp'] + ['x%d' % n for n in range(31)] + ['cpsr'],
    's390x': ['pswm', 'pswa'] + ['r%d' % n for n in range(16)] + ['f%d' % n for n in range(16)],
}
SP = {'x86_64': 'rsp', 'arm64': 'sp', 's390x': 'r15'}
PC = {'x86_64': 'rip', 'arm64': 'pc', 's390x': 'pswa'}
ENDIAN = {'x86_64': '<', 'arm64': '<', 's390x': '>'}
# struct oracle_point: serial, num_regs, regs[40], num_frames, stop, pc[64], sp[64], num_traps,
# trap_start[8], trap_end[8].
MAX_FRAMES, MAX_REGS, MAX_TRAPS = 64, 40, 8
POINT_WORDS = 2 + MAX_REGS + 2 + 2 * MAX_FRAMES + 1 + 2 * MAX_TRAPS
# SFU_STOP_END (include/sfu/unwind.h, after SFU_STOP_NONE): the walk reached the outermost frame.
STOP_END = 1
# arm64 kernels run with 48-bit virtual addresses: bits 48-63 of a signed return address hold
# its PAC.
ARM64_VA_MASK = (1 << 48) - 1

EQUAL = 'equal'
DIFFER = 'differ'
# Named gdb limitations (tests/qemu/README.md, "What gdb cannot vouch for"), each shown on a
# minimal case there. A walk cut short by one is compared as far as gdb can vouch for, and counted
# gdb-equal when every frame up to there is equal, and under the limitation's name as well.
PAC_UNSTRIPPED = 'pac-unstripped'
ENTRY_OUTERMOST = 'entry-outermost'
ENTRY_NO_CFI = 'entry-no-cfi'
RA_IN_FPR = 'ra-in-fpr'
LIMITATIONS = (PAC_UNSTRIPPED, ENTRY_OUTERMOST, ENTRY_NO_CFI, RA_IN_FPR)
# gdb's own stop at the entry point's function ("backtrace past-entry" is off by default): it
# gives no unwind stop reason there. unwind() says this instead; classify takes it as outermost.
AT_ENTRY = 'the entry point\'s function'
# The reason unwind() gives when gdb cannot read a frame's PC or SP.
UNREADABLE = 'gdb could not read the frame\'s PC or SP'
# Frames gdb gives at most (set backtrace limit): past a frame it cannot unwind it may go on and
# on, each "caller" a little further up the stack.
BACKTRACE_LIMIT = 2 * MAX_FRAMES


def in_traps(pc, traps):
    return any(start <= pc < end for start, end in traps)


def lookup(frames, i):
    """The address frame i's code is looked up at: a caller's return address less one."""
    return frames[i][0] - (1 if i else 0)


def classify(arch, kernel, gdb_frames, gdb_stop, traps=(), restarts=0, fdes=None, ra_fpr=()):
    """kernel: (frames [(pc, sp)], stop as enum sfu_stop); gdb_frames: [(pc, sp)] gdb gave, the
    frames it makes up left out; gdb_stop: gdb's reason for its last frame
    (gdb.frame_stop_reason_string); traps: the kernel's trap entry code [(start, end)]; restarts:
    how many signed return addresses gdb was started again past (unwind()); fdes: the code the
    image's CFI covers [(start, end)] (None: not known); ra_fpr: the code whose CFI keeps the
    return address in a floating-point register [(start, end)].
    Returns (EQUAL | DIFFER | a LIMITATIONS name, why). Equal: the same frames, PC and SP, and
    both walks end at the same frame (gdb calls it outermost: its CFI leaves the return address
    undefined) while the kernel's walk ends cleanly. The limitations, where gdb stops vouching:
      pac-unstripped (arm64): gdb takes a signed return address, PAC bits and all, for the PC
        (QEMU 7.2's gdb stub has no pauth registers, so gdb cannot strip them) and cannot unwind
        past it. gdb_oracle.py strips it to the 48 bits of address and starts gdb again from
        there (restarts): a walk otherwise equal is counted here. Frames a restart did not reach
        are compared up to the signed one, its PC stripped.
      entry-outermost: gdb ends at a frame in the trap entry code, which it calls outermost (the
        entry code's CFI leaves the return address undefined, as arm64's and s390x's do), where
        the kernel's walk crosses into the interrupted code by the trap layout. Compared up to
        that frame.
      entry-no-cfi: gdb goes on past a frame in trap entry code that no CFI covers (gas 2.40's
        SFrame V1 kernels leave arm64's out: V1 cannot say "no caller"), guessing its caller by
        analysing the prologue, which takes the interrupted x30 for a return address. Compared up
        to that frame.
      ra-in-fpr (s390x): gdb cannot take a return address the CFI says a floating-point register
        holds ("DW_CFA_register r14 in f1", as gcc keeps a leaf's return address on s390x): it
        fails making the frame ("Value can't be converted to integer"), the newest one when its
        own return address is there. Compared up to the frame before."""
    frames, stop = kernel
    for i, (k, g) in enumerate(zip(frames, gdb_frames)):
        if k == g:
            continue
        if (arch == 'arm64' and i > 0 and g[0] != k[0] and g[0] & ARM64_VA_MASK == k[0] and g[1] == k[1]):
            return PAC_UNSTRIPPED, 'frame #%d: gdb has pc 0x%x, the kernel 0x%x: the PAC bits left on' % (
                i, g[0], k[0])
        if (i > 0 and fdes is not None and in_traps(lookup(gdb_frames, i - 1), traps)
                and not in_traps(lookup(gdb_frames, i - 1), fdes)):
            return ENTRY_NO_CFI, 'frame #%d, 0x%x, is trap entry code without CFI: gdb guessed its caller, 0x%x' % (
                i - 1, gdb_frames[i - 1][0], g[0])
        return DIFFER, 'frame #%d: gdb has pc 0x%x sp 0x%x, the kernel pc 0x%x sp 0x%x' % (i, g[0], g[1], k[0], k[1])
    n = len(gdb_frames)
    if (gdb_stop.startswith(UNREADABLE) and n < len(frames)
            and any(in_traps(lookup(frames, j), ra_fpr) for j in (n - 1, n) if j >= 0)):
        return RA_IN_FPR, 'gdb could not make frame #%d: a return address in a floating-point register (%s)' % (
            n, gdb_stop)
    if gdb_stop == AT_ENTRY:
        gdb_stop = 'outermost'
    if len(gdb_frames) < len(frames) and gdb_frames and gdb_stop == 'outermost':
        last = len(gdb_frames) - 1
        pc = gdb_frames[last][0]
        if in_traps(pc if last == 0 else pc - 1, traps):
            return ENTRY_OUTERMOST, 'gdb ends at frame #%d, 0x%x in the trap entry code; the kernel goes on to %d frames' % (
                last, pc, len(frames))
    if len(gdb_frames) != len(frames):
        return DIFFER, 'gdb gave %d frames (stopping with "%s"), the kernel %d' % (len(gdb_frames), gdb_stop, len(frames))
    if stop != STOP_END:
        return DIFFER, 'the kernel\'s walk stopped with stop %d, not end-of-stack' % stop
    if gdb_stop != 'outermost':
        return DIFFER, 'gdb stopped with "%s" where the kernel\'s walk ended' % gdb_stop
    if restarts:
        return PAC_UNSTRIPPED, 'gdb left %d return addresses signed: stripped, and gdb started again from each' % restarts
    return EQUAL, None


def unpack_point(arch, data):
    """(serial, regs, frames [(pc, sp)], stop, traps [(start, end)]) of struct oracle_point's bytes."""
    words = struct.unpack(ENDIAN[arch] + '%dQ' % POINT_WORDS, bytes(data))
    serial, num_regs = words[0], words[1]
    regs = list(words[2:2 + num_regs])
    at = 2 + MAX_REGS
    num_frames, stop = words[at], words[at + 1]
    pcs = words[at + 2:at + 2 + MAX_FRAMES]
    sps = words[at + 2 + MAX_FRAMES:at + 2 + 2 * MAX_FRAMES]
    at += 2 + 2 * MAX_FRAMES
    num_traps = min(words[at], MAX_TRAPS)
    starts, ends = words[at + 1:at + 1 + MAX_TRAPS], words[at + 1 + MAX_TRAPS:]
    return (serial, regs, [(pcs[i], sps[i]) for i in range(min(num_frames, MAX_FRAMES))], stop,
            [(starts[i], ends[i]) for i in range(num_traps)])


def run_in_gdb():
    import gdb

    arch = os.environ['ORACLE_ARCH']
    every = int(os.environ['ORACLE_EVERY'])
    out = os.environ['ORACLE_OUT']
    diff_dir = os.environ['ORACLE_DIR']
    names = REGS[arch]
    sp_name = SP[arch]
    with open(os.environ['ORACLE_FACTS']) as f:
        facts = json.load(f)
    fdes = [tuple(r) for r in facts['fdes']]
    ra_fpr = [tuple(r) for r in facts['ra_in_fpr']]
    entry = facts['entry']
    endian = ENDIAN[arch]
    counts = {EQUAL: 0, DIFFER: 0}
    for name in LIMITATIONS:
        counts[name] = 0
    virtual = [0, 0]  # inline frames, tail-call frames gdb gave and the comparison left out
    result = {'every': every, 'compared': 0, 'counts': counts, 'diffs': [], 'ended': None,
              'virtual': {'inline': 0, 'tailcall': 0}}
    inferior = gdb.selected_inferior()
    started = time.monotonic()

    # The registers go to and from the CPU as the remote protocol's packets ('g' reads them all,
    # 'P' writes one), past gdb's register cache, which is flushed after: a register written
    # through gdb ('set $rsp = ...') makes gdb find its selected frame again by unwinding the whole
    # stack each time, and, once the PC changed, select an older frame whose registers live in
    # the stack's memory. Per register: its number in the packets, its place in 'g', its size.
    remote = {}
    for line in gdb.execute('maintenance print remote-registers', to_string=True).splitlines()[1:]:
        w = line.split()
        if len(w) >= 8 and w[0] in names:
            remote[w[0]] = (int(w[-2]), int(w[-1]), int(w[4]))
    missing = [n for n in names if n not in remote]
    if missing:
        raise gdb.GdbError('the gdb stub has no register %s' % ', '.join(missing))
    order = 'little' if endian == '<' else 'big'

    def packet(text):
        said = gdb.execute('maintenance packet ' + text, to_string=True)
        reply = said[said.index('received: "') + len('received: "'):].rstrip().rstrip('"')
        if reply.startswith('E') and len(reply) == 3:
            raise gdb.GdbError('the gdb stub refused %s: %s' % (text[:8], reply))
        return reply

    def read_all():
        """The CPU's registers: ('g' reply, {name: hex} of ours beyond it, read one by one: a stub
        may leave some out of 'g', as QEMU does with s390x's floating-point registers)."""
        g = packet('g')
        return g, {n: packet('p%x' % remote[n][0]) for n in names if len(g) < 2 * sum(remote[n][1:])}

    def write_all(state, cpu):
        """Puts state into the CPU, which holds cpu now: 'G', then 'P' for each register beyond
        'g' whose value changes (s390x's sixteen FPRs mostly do not)."""
        g, rest = state
        if packet('G' + g) != 'OK':
            raise gdb.GdbError('the gdb stub did not write the registers')
        for name, value in rest.items():
            if value != cpu[1].get(name) and packet('P%x=%s' % (remote[name][0], value)) != 'OK':
                raise gdb.GdbError('the gdb stub did not write %s' % name)
        gdb.execute('maintenance flush register-cache', to_string=True)

    def with_regs(state, regs):
        """The registers of state with the kernel's in place of this architecture's list."""
        g, rest = state[0], dict(state[1])
        for name, raw in zip(names, regs):
            nr, off, size = remote[name]
            value = (raw & (1 << 8 * size) - 1).to_bytes(size, order).hex()
            if name in rest:
                rest[name] = value
            else:
                g = g[:2 * off] + value + g[2 * (off + size):]
        return g, rest

    def frame_regs(f, pc):
        """Frame f's registers as gdb unwound them, in this architecture's list, with pc for the PC
        (0 for one gdb cannot recover: a caller-saved register, which no CFI rule reads)."""
        values = []
        for name in names:
            try:
                values.append(int(f.read_register(name)) & (1 << 64) - 1)
            except gdb.error:
                values.append(0)
        values[names.index(PC[arch])] = pc
        return values

    def unwind(saved, cpu):
        """gdb's frames [(pc, sp)], its reason to stop, and how many signed return addresses it was
        restarted past. Left out: the frames gdb makes up that have nothing on the stack, a
        function inlined into another (INLINE_FRAME, from the DWARF of inlined subroutines) and the
        caller of a tail call (TAILCALL_FRAME, from DW_TAG_call_site: run_chain's jmp to chain_1,
        say), counted in result['virtual']. arm64: at a caller's PC with PAC bits, which gdb cannot
        strip and cannot unwind past (pac-unstripped), the frame is taken with its PC stripped to
        the address bits, and gdb starts again from that frame's registers as it unwound them, the
        PC on the call instruction (the return address less 4: a caller frame's CFI row, as gdb
        looks it up for any caller), so that the frames above are gdb's own again. cpu: [the
        registers the CPU holds], kept up to date."""
        frames, restarts = [], 0
        try:
            f = gdb.newest_frame()
        except gdb.error as e:
            return frames, '%s (frame #0: %s)' % (UNREADABLE, e), restarts
        last = f
        while f is not None and len(frames) < BACKTRACE_LIMIT:
            kind = f.type()
            if kind in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME):
                virtual[kind == gdb.TAILCALL_FRAME] += 1
                last, f = f, f.older()
                continue
            try:
                pc, sp = int(f.pc()), int(f.read_register(sp_name)) & (1 << 64) - 1
            except gdb.error as e:  # gdb vouches for no such frame: its walk ends before it
                return frames, '%s (frame #%d: %s)' % (UNREADABLE, len(frames), e), restarts
            if arch == 'arm64' and frames and pc & ~ARM64_VA_MASK and restarts < MAX_FRAMES:
                pc &= ARM64_VA_MASK
                state = with_regs(saved, frame_regs(f, pc - 4))
                write_all(state, cpu[0])
                cpu[0] = state
                restarts += 1
                frames.append((pc, sp))
                last = gdb.newest_frame()
                f = last.older()
                continue
            frames.append((pc, sp))
            last, f = f, f.older()
        reason = gdb.frame_stop_reason_string(last.unwind_stop_reason())
        if last.unwind_stop_reason() == gdb.FRAME_UNWIND_NO_REASON and frames and \
                entry[0] <= lookup(frames, len(frames) - 1) < entry[1]:
            reason = AT_ENTRY
        return frames, reason, restarts

    point = int(gdb.parse_and_eval('(unsigned long long)&oracle_point'))

    def compare():
        serial, regs, frames, stop, traps = unpack_point(arch, inferior.read_memory(point, POINT_WORDS * 8))
        if len(regs) != len(names):
            raise gdb.GdbError('the kernel handed over %d registers, %s has %d' % (len(regs), arch, len(names)))
        saved = read_all()  # the handler's own, to put back
        cpu = [saved]
        try:
            loaded = with_regs(saved, regs)
            write_all(loaded, saved)
            cpu[0] = loaded
            gdb_frames, gdb_stop, restarts = unwind(saved, cpu)
        finally:
            write_all(saved, cpu[0])
        verdict, why = classify(arch, (frames, stop), gdb_frames, gdb_stop, traps, restarts, fdes, ra_fpr)
        result['compared'] += 1
        counts[verdict] += 1
        if verdict == DIFFER or (verdict != EQUAL and counts[verdict] <= 5):  # the first few of a limitation
            path = os.path.join(diff_dir, 'oracle-%s-%d.txt' % (verdict, serial))
            with open(path, 'w') as f:
                f.write('serial %d: %s\n%s\n' % (serial, verdict, why))
                f.write('registers: %s\n' % ' '.join('%s=0x%x' % (n, r) for n, r in zip(names, regs)))
                f.write('kernel (stop %d):\n' % stop)
                f.writelines('  #%d pc 0x%x sp 0x%x\n' % (i, pc, sp) for i, (pc, sp) in enumerate(frames))
                f.write('gdb (stop: %s):\n' % gdb_stop)
                f.writelines('  #%d pc 0x%x sp 0x%x\n' % (i, pc, sp) for i, (pc, sp) in enumerate(gdb_frames))
            if len(result['diffs']) < 20:
                result['diffs'].append({'serial': serial, 'verdict': verdict, 'why': why, 'file': path})

    def save():
        result['virtual'] = {'inline': virtual[0], 'tailcall': virtual[1]}
        result['seconds'] = round(time.monotonic() - started, 3)
        with open(out + '.tmp', 'w') as f:
            json.dump(result, f)
        os.replace(out + '.tmp', out)

    gdb.execute('set confirm off')
    gdb.execute('set pagination off')
    gdb.execute('set backtrace limit %d' % BACKTRACE_LIMIT)
    # oracle_every lives in .bss, which the kernel zeroes at boot: set it at the first oracle_due.
    first = gdb.Breakpoint('oracle_due', internal=True)
    handover = gdb.Breakpoint('oracle_handover', internal=True)
    handover.enabled = False
    due_at = int(gdb.parse_and_eval('(unsigned long long)&oracle_due'))
    at = int(gdb.parse_and_eval('(unsigned long long)&oracle_handover'))
    try:
        while True:
            gdb.execute('continue', to_string=True)
            if not inferior.is_valid() or inferior.pid == 0 or not inferior.threads():
                result['ended'] = 'exited'
                break
            pc = int(gdb.newest_frame().pc())
            if pc == due_at and first is not None:
                gdb.execute('set var *(unsigned long long *)&oracle_every = %d' % every, to_string=True)
                first.delete()
                first = None
                handover.enabled = True
            elif pc == at:
                compare()
            else:
                result['ended'] = 'stopped at 0x%x' % pc
                break
            if result['compared'] % 200 == 0:
                save()
    except gdb.error as e:  # the guest ended QEMU: the connection closes
        result['ended'] = str(e)
    except Exception as e:  # noqa: BLE001 - whatever it is, the runner reports it
        result['error'] = '%s: %s' % (type(e).__name__, e)
    save()


if __name__ == '__main__':
    run_in_gdb()
