"""The sfu-profile suite's end-to-end half (tests/profile/check.py): tests/profile/program.c, linked
with the host core built with CONFIG_SFU_PROFILE=y, samples its own stacks at known places and
prints its profile; `sfu profile` reads it back. Built -no-pie and -pie (a moved image, named
through its module line's bias), both must give exactly:
  - the top table and folded stacks the program's samples make (hot 6, cold 3, main 1, and 2
    samples of a stack deeper than the profile keeps, cut at depth);
  - folded stacks equal to the program's own second walk of each sample (its "raw" lines) folded
    here, each address named by `sfu symbolize`;
  - go tool pprof -top: top's functions and counts.
"""
import os
import re
import subprocess

TOP = """samples: 12 taken, 12 counted in 5 stacks (1 profile); period: 250000 nanoseconds
lost: cut-at-depth 2
stopped: end-of-stack 10, frame-cap-reached 2

 self    self%  total   total%  function
    6   50.00%      6   50.00%  hot
    3   25.00%      3   25.00%  cold
    2   16.67%      2   16.67%  deep
    1    8.33%     10   83.33%  main
    0    0.00%     10   83.33%  [unknown]
    0    0.00%      9   75.00%  work
"""
# The walks end in the C library's frame that called main: outside the program's module line.
FOLDED = """[unknown];main 1
[unknown];main;work;cold 3
[unknown];main;work;hot 6
deep;deep;deep;deep;deep;deep;deep;deep 2
"""


def run(args):
    p = subprocess.run(args, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def fold_raw(sfu, program, log):
    """The program's raw stacks folded: innermost first in the log, each frame after the first a
    return address (looked up less one), named by `sfu symbolize` at its link address."""
    m = re.search(r"sfu-profile-module 0 \S+ 0x([0-9a-f]+)-0x([0-9a-f]+) ", log)
    start, end = int(m.group(1), 16), int(m.group(2), 16)
    load = min(int(x, 16) for x in re.findall(r"^\s+LOAD\s+\S+\s+(0x[0-9a-f]+)", run(["readelf", "-lW", program])[1],
                                              re.M))
    bias = start - load  # the image's text starts at its first loaded byte (linker/sfunwind.ld's registration)
    stacks = [[int(a, 16) for a in l.split()[2:]] for l in log.splitlines() if l.startswith("raw ")]
    lookups = sorted({(a if i == 0 else a - 1) for s in stacks for i, a in enumerate(s) if start <= a - (i > 0) < end})
    names = {}
    if lookups:
        out = run([sfu, "symbolize", program] + ["0x%x" % (a - bias) for a in lookups])[1]
        firsts = [l for l in out.splitlines() if not l[:1].isspace()]
        for a, line in zip(lookups, firsts):
            names[a] = re.sub(r"\+0x[0-9a-f]+$", "", line.split(" ", 1)[1])
    folded = {}
    for s in stacks:
        frames = [names.get(a if i == 0 else a - 1, "[unknown]") for i, a in enumerate(s)]
        key = ";".join(reversed(frames))
        folded[key] = folded.get(key, 0) + 1
    return "".join("%s %d\n" % kv for kv in sorted(folded.items())), bias


def check(sfu, programs, work, pprof_top, top_rows):
    results = []
    for program in programs:
        which = os.path.basename(program)
        p = subprocess.run([program], capture_output=True, text=True)
        if p.returncode != 0:
            results.append((which + " runs", "exit %d: %s" % (p.returncode, (p.stdout + p.stderr)[-300:])))
            continue
        log = os.path.join(work, which + ".log")
        with open(log, "w") as f:
            f.write(p.stdout)
        top = run([sfu, "profile", log, "--image", program])
        results.append((which + ": the exact top table", None if top == (0, TOP, "") else "got %r" % (top,)))
        folded = run([sfu, "profile", log, "--image", program, "--format", "folded"])
        results.append((which + ": the exact folded stacks", None if folded == (0, FOLDED, "") else "got %r" % (folded,)))
        raw, bias = fold_raw(sfu, program, p.stdout)
        results.append((which + ": folded = the program's own walks folded",
                        None if folded[1] == raw else "sfu profile %r, raw %r" % (folded[1], raw)))
        pb = os.path.join(work, which + ".pb.gz")
        rc, _, err = run([sfu, "profile", log, "--image", program, "--format", "pprof", "-o", pb])
        got = pprof_top(["-nodefraction=0"], pb) if rc == 0 else err
        results.append((which + ": go tool pprof -top: top's functions and counts",
                        None if got == top_rows(TOP) else "got %r" % (got,)))
    if len(programs) == 2:
        biases = [fold_raw(sfu, p, run([p])[1])[1] for p in programs]
        results.append(("the -pie program ran moved from its link address", None if biases[0] == 0 and biases[1] != 0
                        else "biases %s" % [hex(b) for b in biases]))
    return results
