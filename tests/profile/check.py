#!/usr/bin/env python3
"""`sfu profile` on profiles written here as a device prints them (docs/profile-format.md), for a
small C++ program built here (tests/profile/prog.cpp: g++ -g -O1, a build-id):
  - top and folded give exact tables and lines, frames named as `sfu symbolize` names them;
  - pprof: `go tool pprof -top` gives top's functions and counts (with -noinlines also where the
    leaf is inlined code, which plain -top shows as the inlined function), every location's
    lines are addr2line -f -i -C's, the period is there;
  - svg: well-formed XML, rendered by headless Chromium: not one colour, the hot function's name
    laid out inside its box, and drawing pixels there (the picture differs without it);
  - several profiles in one log sum, duplicate stack lines sum, console prefixes and CRLF read;
  - a moved image is named through its bias (module line, or ELF@ADDRESS);
  - every refusal by its exact message, exit status 1; usage errors exit 2.
With programs after WORKDIR, the end-to-end check too (e2e.py): tests/profile/program.c, linked with
the core built with CONFIG_SFU_PROFILE=y, samples its own stacks and prints a profile, read back here.
  usage: tests/profile/check.py SFU WORKDIR [PROGRAM PROGRAM_PIE]   ends "sfu-profile: N passed, M failed"
"""
import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import render  # noqa: E402  (tests/profile/render.py: Chromium and PNG pixels)

SFU, WORK = sys.argv[1], sys.argv[2]
E2E = sys.argv[3:]
HERE = os.path.dirname(os.path.abspath(__file__))
passed = failed = 0


def ok(name):
    global passed
    passed += 1
    print("PASS " + name)


def bad(name, detail):
    global failed
    failed += 1
    print("FAIL %s: %s" % (name, detail))


def check(name, got, want):
    if got == want:
        ok(name)
    else:
        bad(name, "want [%s], got [%s]" % (want, got))


def run(args, **kw):
    p = subprocess.run(args, capture_output=True, text=kw.pop("text", True), **kw)
    return p.returncode, p.stdout, p.stderr


def finish():
    print("sfu-profile: %d passed, %d failed" % (passed, failed))
    sys.exit(0 if failed == 0 else 1)


def seal(text):
    """A profile line as the device prints it: its text, a space and its CRC-32."""
    return text + " 0x%08x" % zlib.crc32(text.encode())


# ---- The program, and the addresses a device would sample in it --------------------------------

shutil.rmtree(WORK, ignore_errors=True)
os.makedirs(WORK)
ELF = os.path.join(WORK, "prog")
rc, out, err = run(["g++", "-g", "-O1", "-no-pie", "-Wl,--build-id", "-o", ELF, os.path.join(HERE, "prog.cpp")])
if rc != 0:
    bad("build the program", err.strip())
    finish()

nm = {}
for line in run(["nm", ELF])[1].splitlines():
    f = line.split()
    if len(f) == 3:
        nm[f[2]] = int(f[0], 16)
BUILD_ID = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", ELF])[1]).group(1)
# The module's text as a kernel registers it: the span of the executable sections.
spans = [(int(m.group(1), 16), int(m.group(2), 16))
         for m in re.finditer(r"\]\s+\S+\s+PROGBITS\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+AX",
                              run(["readelf", "-SW", ELF])[1])]
TEXT = (min(a for a, _ in spans), max(a + s for a, s in spans))
FIRST_LOAD = min(int(m.group(1), 16) for m in re.finditer(r"^\s+LOAD\s+\S+\s+(0x[0-9a-f]+)",
                                                          run(["readelf", "-lW", ELF])[1], re.M))


def instructions(symbol):
    """(address, text) of each instruction of a function, from objdump."""
    out = run(["objdump", "-d", "--no-show-raw-insn", ELF])[1]
    m = re.search(r"^[0-9a-f]+ <%s>:\n(.*?)\n\n" % re.escape(symbol), out, re.S | re.M)
    return [(int(a, 16), t) for a, t in re.findall(r"^\s*([0-9a-f]+):\s*(.*)$", m.group(1), re.M)]


def addr2line(addr):
    """addr2line -f -i -C's answer: [(function, file:line), ...], innermost first."""
    lines = run(["addr2line", "-f", "-i", "-C", "-e", ELF, hex(addr)])[1].splitlines()
    return [(lines[i], re.sub(r" \(discriminator \d+\)$", "", lines[i + 1])) for i in range(0, len(lines), 2)]


def after_call(caller, callee):
    """The lookup address of the return into `caller` from its call of `callee`: the return address
    less one, as the device prints it."""
    ins = instructions(caller)
    for i, (a, t) in enumerate(ins):
        if t.startswith("call") and "<%s>" % callee in t:
            return ins[i + 1][0] - 1
    raise SystemExit("no call of %s in %s" % (callee, caller))


HOT, COLD, WORK_FN, MAIN = "_ZN2ns3hotEi", "cold", "_Z4worki", "main"
hot_ins = [a for a, _ in instructions(HOT)]
HOT_INLINED = next(a for a in hot_ins if len(addr2line(a)) > 1)  # inside spin(), inlined
HOT_PLAIN = next(a for a in reversed(hot_ins) if len(addr2line(a)) == 1)
COLD_AT = nm[COLD] + 1
IN_WORK_HOT, IN_WORK_COLD = after_call(WORK_FN, HOT), after_call(WORK_FN, COLD)
IN_MAIN = after_call(MAIN, WORK_FN)
MAIN_AT = nm[MAIN]
UNKNOWN = 0x7fff0000f000  # in no module line's range


def profile(stacks, samples, lost=(), stopped=(), bias=0, text=None, build_id=BUILD_ID, period=1000000,
            unit="nanoseconds", abi=3, version="v1", extra=()):
    """The unsealed lines of one profile: stacks are (count, stop, [addresses]) at link addresses,
    moved by `bias` as the device would see them."""
    start, end = text or (TEXT[0] + bias, TEXT[1] + bias)
    lines = ["sfu-profile-begin %s %d period=%d unit=%s stacks=64 depth=16" % (version, abi, period, unit),
             "sfu-profile-module 0 prog 0x%016x-0x%016x %s" % (start, end,
                                                              "build-id " + build_id if build_id else "no build-id")]
    for count, stop, addrs in stacks:
        moved = [a if a == UNKNOWN else a + bias for a in addrs]
        lines.append("sfu-profile-stack %d %s%s" % (count, stop, "".join(" 0x%x" % a for a in moved)))
    lines += ["sfu-profile-lost %s %d" % r for r in lost]
    lines += ["sfu-profile-stopped %s %d" % r for r in stopped]
    lines += list(extra)
    counted = sum(c for c, _, _ in stacks)
    lines.append("sfu-profile-end samples=%d counted=%d lines=%d" % (samples, counted, len(lines) + 1))
    return lines


BASE_STACKS = [
    (5, "end-of-stack", [HOT_PLAIN, IN_WORK_HOT, IN_MAIN]),
    (3, "end-of-stack", [COLD_AT, IN_WORK_COLD, IN_MAIN]),
    (1, "end-of-stack", [HOT_PLAIN, IN_WORK_HOT, IN_MAIN]),  # the same stack again: summed
    (1, "end-of-stack", [MAIN_AT]),
    (1, "no-unwind-info", [UNKNOWN]),
]
BASE_LOST, BASE_STOPPED = [("table-full", 2)], [("end-of-stack", 10), ("no-unwind-info", 1)]


def base(**kw):
    return profile(BASE_STACKS, 13, BASE_LOST, BASE_STOPPED, **kw)


def write(name, lines, prefix="", ending="\n", sealed=True):
    path = os.path.join(WORK, name)
    with open(path, "w", newline="") as f:
        for line in lines:
            f.write(prefix + (seal(line) if sealed and "sfu-profile-" in line else line) + ending)
    return path


def sfu_profile(log, *args, images=(ELF,)):
    cmd = [SFU, "profile", log]
    for i in images:
        cmd += ["--image", i]
    return run(cmd + list(args))


# ---- top and folded: exact ---------------------------------------------------------------------

LOG = write("base.log", ["boot: hello"] + base() + ["boot: bye"])
TOP = """samples: 13 taken, 11 counted in 4 stacks (1 profile); period: 1000000 nanoseconds
lost: table-full 2
stopped: end-of-stack 10, no-unwind-info 1

 self    self%  total   total%  function
    6   54.55%      6   54.55%  ns::hot(int)
    3   27.27%      3   27.27%  cold
    1    9.09%     10   90.91%  main
    1    9.09%      1    9.09%  [unknown]
    0    0.00%      9   81.82%  work(int)
"""
FOLDED = """[unknown] 1
main 1
main;work(int);cold 3
main;work(int);ns::hot(int) 6
"""
check("top: the exact table", sfu_profile(LOG), (0, TOP, ""))
check("top is the default format", sfu_profile(LOG, "--format", "top"), (0, TOP, ""))
check("folded: the exact lines", sfu_profile(LOG, "--format", "folded"), (0, FOLDED, ""))
out_file = os.path.join(WORK, "folded.txt")
rc, out, err = sfu_profile(LOG, "--format", "folded", "-o", out_file)
check("-o writes the output to a file", (rc, out, open(out_file).read() if rc == 0 else err), (0, "", FOLDED))

# Every frame named as `sfu symbolize -C` names its address.
names = {}
for a in [HOT_PLAIN, HOT_INLINED, COLD_AT, IN_WORK_HOT, IN_WORK_COLD, IN_MAIN, MAIN_AT]:
    first = run([SFU, "symbolize", "-C", ELF, hex(a)])[1].splitlines()[0]
    names[a] = re.sub(r"\+0x[0-9a-f]+$", "", first.split(" ", 1)[1])
want = sorted({"%s;%s;%s" % (names[IN_MAIN], names[IN_WORK_HOT], names[HOT_PLAIN]),
               "%s;%s;%s" % (names[IN_MAIN], names[IN_WORK_COLD], names[COLD_AT]), names[MAIN_AT], "[unknown]"})
check("folded names are sfu symbolize's", sorted(l.rsplit(" ", 1)[0] for l in FOLDED.splitlines()), want)

# ---- Logs as consoles and devices write them ---------------------------------------------------

prefixed = write("prefixed.log", base(), prefix="[   12.345678] cpu1: ", ending="\r\n")
check("console prefixes and CRLF", sfu_profile(prefixed), (0, TOP, ""))
two = write("two.log", ["boot 1"] + base() + ["boot 2", "noise sfu-profile but not a line of it"] + base())
want_two = """samples: 26 taken, 22 counted in 4 stacks (2 profiles); period: 1000000 nanoseconds
lost: table-full 4
stopped: end-of-stack 20, no-unwind-info 2

 self    self%  total   total%  function
   12   54.55%     12   54.55%  ns::hot(int)
    6   27.27%      6   27.27%  cold
    2    9.09%     20   90.91%  main
    2    9.09%      2    9.09%  [unknown]
    0    0.00%     18   81.82%  work(int)
"""
check("several profiles in one log are summed", sfu_profile(two), (0, want_two, ""))
check("several profiles: folded counts summed", sfu_profile(two, "--format", "folded")[1],
      "".join("%s %d\n" % (l.rsplit(" ", 1)[0], 2 * int(l.rsplit(" ", 1)[1])) for l in FOLDED.splitlines()))
stop_codes = write("codes.log", profile([(2, "S1", [HOT_PLAIN, IN_WORK_HOT, IN_MAIN])], 2, stopped=[("S1", 2)]))
check("stop reasons as codes (a core built without names)", sfu_profile(stop_codes, "--format", "folded"),
      (0, "main;work(int);ns::hot(int) 2\n", ""))

# A stack the walk gave no frame for (bad-start), and an address in the module but in no function.
symbolized = run([SFU, "symbolize", ELF] + [hex(a) for a in range(TEXT[0], TEXT[1])])[1].splitlines()
NO_FUNCTION = next(int(l.split()[0], 16) for l in symbolized if not l.startswith(" ") and l.split()[1].startswith("0x"))
odd = write("odd.log", profile([(2, "bad-start", []), (1, "end-of-stack", [NO_FUNCTION, IN_MAIN])], 3))
check("a stack of no frames, and an address in no function (named by it, as sfu symbolize does)",
      sfu_profile(odd, "--format", "folded"), (0, "[no frames] 2\nmain;0x%x 1\n" % NO_FUNCTION, ""))

# Every sample dropped: nothing counted, said as such.
empty = write("empty.log", profile([], 5, lost=[("table-full", 5)]))
check("a profile with no stack counted", sfu_profile(empty), (0, "samples: 5 taken, 0 counted in 0 stacks (1 profile); "
      "period: 1000000 nanoseconds\nlost: table-full 5\n\n self    self%  total   total%  function\n", ""))
check("a profile with no stack counted: no folded line", sfu_profile(empty, "--format", "folded"), (0, "", ""))

# ---- A moved image -----------------------------------------------------------------------------

BIAS = 0x5550000000
moved = write("moved.log", base(bias=BIAS))
check("a moved image is named through the module line's bias", sfu_profile(moved), (0, TOP, ""))
# A module line whose range gives no bias: the image's address says where it ran.
unplaced = (TEXT[0] + BIAS, TEXT[1] + BIAS + 0x10)  # longer than the code: no bias from it
at_addr = write("at-address.log", base(bias=BIAS, text=unplaced))
check("ELF@ADDRESS places an image the module line cannot",
      sfu_profile(at_addr, images=["%s@0x%x" % (ELF, FIRST_LOAD + BIAS)]), (0, TOP, ""))

# ---- pprof -------------------------------------------------------------------------------------


def pprof(args, profile_file):
    rc, out, err = run(["go", "tool", "pprof"] + args + [profile_file], env=dict(os.environ, PPROF_TMPDIR=WORK))
    return rc, out, err


def pprof_top(args, profile_file):
    rc, out, err = pprof(["-top"] + args, profile_file)
    rows = {}
    for m in re.finditer(r"^\s*(\d+)\s+\S+%\s+\S+%\s+(\d+)\s+\S+%\s+(.*)$", out, re.M):
        rows[m.group(3)] = (int(m.group(1)), int(m.group(2)))
    return rows if rc == 0 else err


def top_rows(text):
    return {m.group(3): (int(m.group(1)), int(m.group(2)))
            for m in re.finditer(r"^\s*(\d+)\s+\S+%\s+(\d+)\s+\S+%\s+(.*)$", text, re.M)}


def pprof_file(log, name):
    path = os.path.join(WORK, name)
    rc, out, err = sfu_profile(log, "--format", "pprof", "-o", path)
    return path if rc == 0 else None


pb = pprof_file(LOG, "base.pb.gz")
check("pprof: a gzip stream", open(pb, "rb").read(2) if pb else None, b"\x1f\x8b")
check("go tool pprof -top: top's functions and counts", pprof_top([], pb), top_rows(TOP))
raw = pprof(["-raw"], pb)[1]
check("pprof: the sample period", re.findall(r"^(PeriodType: .*|Period: .*)$", raw, re.M),
      ["PeriodType: cpu nanoseconds", "Period: 1000000"])
check("pprof: samples and time per sample", re.search(r"^samples/count\[dflt\] cpu/nanoseconds$", raw, re.M) is not None,
      True)
check("pprof: what was lost, as comments", re.findall(r"^Comment: (.*)$", raw, re.M),
      ["sfu profile: 13 samples taken, 11 counted, from 1 profile(s)", "lost: table-full 2",
       "stopped: end-of-stack 10", "stopped: no-unwind-info 1"])

for unit, period, want in [("instructions", 1000, ["PeriodType: instructions count", "Period: 1000",
                                                   "samples/count[dflt] instructions/count"]),
                           ("nanoseconds", 0, ["PeriodType:  ", "Period: 0", "samples/count[dflt]"])]:  # none given
    other_pb = pprof_file(write("unit-%s-%d.log" % (unit, period), base(unit=unit, period=period)),
                          "unit-%s-%d.pb.gz" % (unit, period))
    check("pprof: period %d %s" % (period, unit),
          re.findall(r"^(samples/count.*|PeriodType: .*|Period: .*)$", pprof(["-raw"], other_pb)[1], re.M), want)

inline_log = write("inline.log", profile([(4, "end-of-stack", [HOT_INLINED, IN_WORK_HOT, IN_MAIN]),
                                          (2, "end-of-stack", [COLD_AT, IN_WORK_COLD, IN_MAIN])], 6))
inline_top = sfu_profile(inline_log)[1]
ipb = pprof_file(inline_log, "inline.pb.gz")
check("go tool pprof -top -noinlines: top's functions and counts, the leaf in inlined code", pprof_top(["-noinlines"], ipb),
      top_rows(inline_top))
want_inline = dict(top_rows(inline_top))
want_inline["ns::hot(int)"] = (0, 4)
want_inline["spin (inline)"] = (4, 4)
check("go tool pprof -top: the inlined function holds the leaf's samples", pprof_top([], ipb), want_inline)


def raw_locations(text):
    """-raw's Locations: address -> [(function, file:line), ...] innermost first."""
    locs, cur = {}, None
    section = text.split("\nLocations\n", 1)[1].split("\nMappings\n", 1)[0]
    for line in section.splitlines():
        m = re.match(r"^\s+\d+: (0x[0-9a-f]+) M=\d+ (.*) (\S+:\d+) s=\d+(?:\(\S+\))?$", line)
        if m:
            cur = locs.setdefault(int(m.group(1), 16), [])
            cur.append((m.group(2).removesuffix(" (inline)"), m.group(3)))
            continue
        m = re.match(r"^\s+(.*) (\S+:\d+) s=\d+(?:\(\S+\))?$", line)
        if m and cur is not None:
            cur.append((m.group(1).removesuffix(" (inline)"), m.group(2)))
    return locs


locs = raw_locations(pprof(["-raw"], ipb)[1])


def symbolize_lines(addr):
    """`sfu symbolize -C`'s source frames: [(function, file:line), ...], innermost first."""
    out = run([SFU, "symbolize", "-C", ELF, hex(addr)])[1].splitlines()[1:]
    return [re.match(r"^    (.*) at (\S+:\d+)( \(inlined\))?$", l).group(1, 2) for l in out]


at = [HOT_INLINED, IN_WORK_HOT, IN_MAIN, COLD_AT, IN_WORK_COLD]
check("pprof: every location's functions, files and lines are sfu symbolize's", locs, {a: symbolize_lines(a) for a in at})
check("pprof: every location's files and lines are addr2line -f -i's", {a: [l for _, l in v] for a, v in locs.items()},
      {a: [l for _, l in addr2line(a)] for a in at})
check("pprof: an inlined location has its callers", len(locs.get(HOT_INLINED, [])) > 1, True)
mpb = pprof_file(moved, "moved.pb.gz")
check("pprof of a moved image: the same functions and counts", pprof_top([], mpb), top_rows(TOP))

# ---- svg ---------------------------------------------------------------------------------------

svg_path = os.path.join(WORK, "flame.svg")
rc, out, err = sfu_profile(LOG, "--format", "svg", "-o", svg_path)
check("svg: written", (rc, err), (0, ""))
try:
    tree = ET.parse(svg_path)
    ok("svg: well-formed XML")
except ET.ParseError as e:
    bad("svg: well-formed XML", str(e))
    finish()
ns = {"s": "http://www.w3.org/2000/svg"}
frames = {}
for g in tree.getroot().iterfind("s:g", ns):
    title = g.find("s:title", ns).text
    text = g.find("s:text", ns)
    frames[title] = text.text if text is not None else None
check("svg: a box per frame, each with its name, samples and share", sorted(frames), sorted([
    "all (11 samples, 100.00%)", "main (10 samples, 90.91%)", "work(int) (9 samples, 81.82%)",
    "ns::hot(int) (6 samples, 54.55%)", "cold (3 samples, 27.27%)", "[unknown] (1 samples, 9.09%)"]))
check("svg: the hot function's label: its name and share", frames.get("ns::hot(int) (6 samples, 54.55%)"),
      "ns::hot(int) 54.55%")
shot = render.check_svg(svg_path, "ns::hot(int) 54.55%", WORK)
for name, problem in shot:
    if problem:
        bad("chromium: " + name, problem)
    else:
        ok("chromium: " + name)

rc, out, err = sfu_profile(LOG, "--format", "svg")
check("svg to stdout: the same picture", (rc, out), (0, open(svg_path).read()))

# Narrow boxes: a name cut with "..", one too narrow for any label; Chromium lays every label out
# inside its box.
narrow = write("narrow.log", profile([(180, "end-of-stack", [COLD_AT, IN_WORK_COLD, IN_MAIN]),
                                      (12, "end-of-stack", [HOT_PLAIN, IN_WORK_HOT, IN_MAIN]),
                                      (1, "no-unwind-info", [UNKNOWN])], 193))
narrow_svg = os.path.join(WORK, "narrow.svg")
rc, out, err = sfu_profile(narrow, "--format", "svg", "-o", narrow_svg)
labels = {g.find("s:title", ns).text: (g.find("s:text", ns).text if g.find("s:text", ns) is not None else None)
          for g in ET.parse(narrow_svg).getroot().iterfind("s:g", ns)}
check("svg: a narrow box's name cut with '..', the tooltip whole",
      labels.get("ns::hot(int) (12 samples, 6.22%)"), "ns::hot..")
check("svg: no label in a box too narrow for three characters", labels.get("[unknown] (1 samples, 0.52%)", "missing"), None)
n, over = render.labels_fit(narrow_svg, WORK)
check("chromium: every label inside its box (%d labels)" % n, (n >= 5, over), (True, []))

# A name with XML's special characters and blanks: escaped in the SVG, as it is in folded.
PICK = "_Z4pickIiET_S0_"
tmpl = write("template.log", profile([(1, "end-of-stack", [nm[PICK] + 1, IN_MAIN])], 1))
check("folded: a template's name with its blanks", sfu_profile(tmpl, "--format", "folded"),
      (0, "main;int pick<int>(int) 1\n", ""))
rc, out, err = sfu_profile(tmpl, "--format", "svg")
try:
    titles = [g.find("s:title", ns).text for g in ET.fromstring(out).iterfind("s:g", ns)]
    check("svg: a name with < and > stays well-formed, its text unchanged", "int pick<int>(int) (1 samples, 100.00%)" in
          titles, True)
except ET.ParseError as e:
    bad("svg: a name with < and > stays well-formed", str(e))

# ---- Refusals: one message each, exit 1 --------------------------------------------------------


def refused(name, lines, want, images=(ELF,), sealed=True, raw=None):
    log = write(name.replace(" ", "_").replace("/", "_") + ".log", lines, sealed=sealed) if raw is None else raw
    rc, out, err = sfu_profile(log, images=images)
    check("refused: " + name, (rc, out, err), (1, "", want.replace("LOG", log) + "\n"))


lines = [seal(l) for l in base()]
stack_line = lines[2]
damaged = stack_line.replace("sfu-profile-stack 5", "sfu-profile-stack 7")
covered = damaged.rsplit(" ", 1)[0]
refused("bad CRC", lines[:2] + [damaged] + lines[3:],
        "sfu profile: LOG: line 3: profile-bad-crc (the line says %s, its text gives 0x%08x)" %
        (stack_line.rsplit(" ", 1)[1], zlib.crc32(covered.encode())), sealed=False)
refused("a line cut short", lines[:2] + [stack_line[:30]] + lines[3:],
        "sfu profile: LOG: line 3: profile-bad-crc (the line does not end in its CRC (\" 0x\" and 8 hex digits))",
        sealed=False)
refused("cut: no end line", ["boot"] + base()[:-1],
        "sfu profile: LOG: line 2: profile-cut (the profile begun here has no end line (the log ends at line 11))")
refused("cut: a begin line before the end", base()[:-1] + base(),
        "sfu profile: LOG: line 1: profile-cut (the profile begun here has no end line before the next begin line "
        "(line 11))")
refused("cut: the log starts inside a profile", base()[2:],
        "sfu profile: LOG: line 1: profile-cut (a stack line outside any profile: its begin line is missing (the log "
        "starts inside it))")
refused("lines missing: a stack line", base()[:3] + base()[4:],
        "sfu profile: LOG: line 10: profile-lines-missing (the profile begun at line 1 printed 11 lines, 10 are here)")
refused("lines missing: counted is not the sum", base()[:-1] + ["sfu-profile-end samples=13 counted=12 lines=11"],
        "sfu profile: LOG: line 11: profile-lines-missing (counted=12 but the stack lines here add up to 11)")
refused("bad version", base(version="v2"),
        "sfu profile: LOG: line 1: profile-bad-version (version v2; this sfu reads v1)")
refused("bad line: a count of 0", base()[:2] + ["sfu-profile-stack 0 end-of-stack 0x10"] + base()[2:],
        "sfu profile: LOG: line 3: profile-bad-line (a stack line is \"sfu-profile-stack COUNT STOP ADDR...\", COUNT "
        "at least 1)")
refused("bad line: an address", base()[:2] + ["sfu-profile-stack 1 end-of-stack 0xZZ"] + base()[2:],
        "sfu profile: LOG: line 3: profile-bad-line (not a frame address: \"0xZZ\")")
refused("bad line: an unknown kind", base()[:2] + ["sfu-profile-sample 1"] + base()[2:],
        "sfu profile: LOG: line 3: profile-bad-line (no such line: \"sfu-profile-sample\")")
refused("bad line: a control character, quoted", base()[:2] + ["sfu-profile-stack 1 end-of-stack 0x1\x01"] + base()[2:],
        "sfu profile: LOG: line 3: profile-bad-line (not a frame address: \"0x1\\x01\")")
refused("bad line: a module line", base()[:1] + ["sfu-profile-module 0 prog 0x1000 build-id ab"] + base()[2:],
        "sfu profile: LOG: line 2: profile-bad-line (a module line is \"sfu-profile-module N NAME 0xSTART-0xEND "
        "build-id HEX\" (or \"no build-id\"))")
refused("bad line: a begin line", ["sfu-profile-begin v1 3 period=1"] + base()[1:],
        "sfu profile: LOG: line 1: profile-bad-line (a begin line is \"sfu-profile-begin v1 ABI period=P unit=UNIT "
        "stacks=S depth=D\")")
refused("no profile in the log", ["boot", "sfu-crash: not a profile"],
        "sfu profile: LOG: profile-none (the log holds no sfu-profile-begin line)")
other = os.path.join(WORK, "other")
run(["g++", "-O1", "-no-pie", "-Wl,--build-id", "-DOTHER", "-o", other, os.path.join(HERE, "prog.cpp")])
other_id = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", other])[1]).group(1)
refused("wrong image: no image has the module's build-id", base(), "sfu profile: LOG: line 1: profile-no-image (module 0 "
        "(prog) holds frames and no --image has its build-id %s)" % BUILD_ID, images=[other])
refused("wrong image: an image the profile does not name", base(),
        "sfu profile: %s: profile-wrong-image (its build-id %s is none of the profile's modules)" % (other, other_id),
        images=[ELF, other])
no_id = os.path.join(WORK, "no-build-id")
run(["g++", "-O1", "-no-pie", "-Wl,--build-id=none", "-o", no_id, os.path.join(HERE, "prog.cpp")])
refused("an image without a build-id", base(), "sfu profile: %s: no GNU build-id note (.note.gnu.build-id): link it "
        "with --build-id, so records can name it" % no_id, images=[no_id])
refused("a module printed without a build-id", base(build_id=None), "sfu profile: LOG: line 1: profile-no-image "
        "(module 0 (prog) holds frames but was printed without a build-id: no image can be matched to it)")
refused("an image of another ABI", base(abi=2), "sfu profile: LOG: line 1: profile-image-abi (%s has module 0 (prog)'s "
        "build-id but is built for x86_64, the profile for arm64)" % ELF)
rc, out, err = sfu_profile(at_addr)
check("refused: a module that cannot be placed", (rc, out, err.startswith(
    "sfu profile: %s: line 1: profile-unplaced (%s: cannot tell where module 0 (prog) ran: " % (at_addr, ELF))), (1, "", True))
refused("profiles sampled unlike", base() + base(period=2000000), "sfu profile: LOG: line 12: profile-mismatch (this "
        "profile is of ABI 3, period 2000000 nanoseconds; the one at line 1 of ABI 3, period 1000000 nanoseconds: only "
        "profiles of one image sampled alike add up)")

rc, out, err = sfu_profile(LOG, "--format", "png")
check("usage: an unknown format", (rc, err.splitlines()[0]), (2, "sfu profile: --format is top, folded, pprof or svg, not png"))
rc, out, err = sfu_profile(LOG, "--format", "pprof")
check("usage: pprof without -o", (rc, err.splitlines()[0]), (2, "sfu profile: --format pprof writes a file: give -o FILE"))
rc, out, err = sfu_profile(LOG, images=())
check("usage: no image", (rc, err.splitlines()[0]), (2, "sfu profile: give the image of each module with --image"))

if E2E:
    import e2e  # noqa: E402
    for name, problem in e2e.check(SFU, E2E, WORK, pprof_top, top_rows):
        if problem:
            bad("end to end: " + name, problem)
        else:
            ok("end to end: " + name)

finish()
