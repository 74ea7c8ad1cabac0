#!/usr/bin/env python3
"""The documentation's examples, built the way the documentation says, so that a wrong symbol
name, a wrong flag order or a quoted piece of code that drifted fails `make check`.

usage: check.py BUILD_DIR        (run from the top of the tree; ends "docs: N passed, M failed")

For each fenced block of README.md, linker/README.md and docs/*.md:
  - a block right after `<!-- from PATH: NAME -->` must equal the lines of PATH between the
    comment lines `porting.md: NAME begin` and `porting.md: NAME end` (the file compiles and runs
    in a suite of its own: the guide quotes code that works);
  - ```c: compiled for x86_64 as a -nostdinc kernel would (tests/docs/kernel.h before it stands
    for the kernel around the snippet; a snippet of statements is put in a function), then linked
    with tests/docs/kernel.c, the freestanding libsfu.a and a linker script from the same
    document (the nearest one above it, else linker/README.md's fullest), by ld with the options
    in the documented order: every symbol the example names must exist;
  - an untagged block that starts with SECTIONS or PHDRS is a linker script (lines that are only
    "..." are the text's elisions and are dropped);
  - ```make: run with make in a scratch directory, `path/to/sfunwind` meaning this tree, sfu on
    the PATH, OBJS a small program with CFI, kernel.ld the script of the document's "Use"
    section with the fragment its text names; the image must then pass `sfu verify`, and each
    reservation be the size `--print-defsym` asked for.
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.getcwd()
CFLAGS = ["-std=gnu11", "-O2", "-ffreestanding", "-nostdinc", "-fno-pic", "-fno-pie",
          "-mno-red-zone", "-Wall", "-Wextra", "-Werror",
          # a snippet shows a call; what it does with the result is the reader's
          "-Wno-unused-parameter", "-Wno-unused-variable", "-Wno-unused-but-set-variable",
          "-Iinclude", "-Itests/docs"]

passed = 0
failed = 0


def result(ok, what, detail=""):
    global passed, failed
    if ok:
        passed += 1
        print("PASS " + what)
    else:
        failed += 1
        print("FAIL " + what)
        for line in detail.strip().splitlines()[:30]:
            print("    " + line)


class Block:
    def __init__(self, path, line, lang, body, source):
        self.path, self.line, self.lang, self.body, self.source = path, line, lang, body, source

    def where(self):
        return "%s:%d" % (self.path, self.line)

    def is_script(self):
        first = self.body.lstrip().split(None, 1)
        return self.lang == "" and first and first[0] in ("SECTIONS", "PHDRS")


def blocks_of(path):
    text = open(path).read()
    out = []
    for m in re.finditer(r"^```(\w*)\n(.*?)^```", text, re.M | re.S):
        line = text.count("\n", 0, m.start()) + 1
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        src = re.fullmatch(r"<!-- from (\S+): (\S+) -->", before.strip())
        out.append(Block(path, line, m.group(1), m.group(2),
                         (src.group(1), src.group(2)) if src else None))
    return out


def run(cmd, cwd=None, env=None):
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    return p.returncode, p.stdout


def marked_piece(path, name):
    lines = open(path).read().split("\n")
    begin = [i for i, l in enumerate(lines) if re.search(r"porting\.md: %s begin\b" % re.escape(name), l)]
    end = [i for i, l in enumerate(lines) if re.search(r"porting\.md: %s end\b" % re.escape(name), l)]
    if len(begin) != 1 or len(end) != 1 or end[0] <= begin[0]:
        return None
    return "\n".join(lines[begin[0] + 1:end[0]]) + "\n"


def check_quote(b):
    path, name = b.source
    if not os.path.exists(path):
        result(False, "%s quotes %s: no such file" % (b.where(), path))
        return
    piece = marked_piece(path, name)
    if piece is None:
        result(False, "%s quotes %s: %s: no single 'porting.md: %s begin/end' pair"
               % (b.where(), path, name, name))
    else:
        result(piece == b.body, "%s is %s's piece %s, verbatim" % (b.where(), path, name),
               "the file now says:\n" + piece)


def script_text(b, fragment=None):
    lines = [l for l in b.body.split("\n") if l.strip() != "..."]
    text = "\n".join(lines)
    if fragment:
        text = text.replace("INCLUDE sfunwind.ld", "INCLUDE " + fragment)
    return text


def c_source(b, wrapped):
    body = b.body
    head = '#include "kernel.h"\n'
    if not wrapped:
        return head + '#line %d "%s"\n' % (b.line + 1, b.path) + body
    includes = [l for l in body.split("\n") if l.startswith("#include")]
    rest = "\n".join("" if l.startswith("#include") else l for l in body.split("\n"))
    return (head + "\n".join(includes) + "\nvoid docs_example(void)\n{\n"
            + '#line %d "%s"\n' % (b.line + 1, b.path) + rest + "\n}\n")


def check_c(b, script, work, lib, kernel_o):
    obj = os.path.join(work, "example.o")
    errors = ""
    for wrapped in (False, True):
        src = os.path.join(work, "example.c")
        open(src, "w").write(c_source(b, wrapped))
        rc, out = run(["gcc"] + CFLAGS + ["-c", src, "-o", obj])
        if rc == 0:
            break
        errors = ("as a function body:\n" if wrapped else "as a file:\n") + out + errors
    else:
        result(False, "%s compiles (C, -nostdinc)" % b.where(), errors)
        return
    lds = os.path.join(work, "kernel.ld")
    open(lds, "w").write(script_text(script))
    rc, out = run(["ld", "-L", os.path.join(TOP, "linker"), "-T", lds, "-e", "_start",
                   "-o", os.path.join(work, "example.elf"), obj, kernel_o, lib])
    result(rc == 0, "%s compiles and links with %s's script" % (b.where(), script.where()), out)


def check_make(b, use_script, fragment, work, tools):
    d = tempfile.mkdtemp(dir=work)
    rc, out = run(["gcc", "-O2", "-ffreestanding", "-nostdinc", "-fno-pic", "-fno-pie",
                   "-fasynchronous-unwind-tables", "-Iinclude", "-Itests/docs", "-c",
                   "tests/docs/kernel.c", "-o", os.path.join(d, "kernel.o")])
    if rc:
        result(False, "%s: the test program does not compile" % b.where(), out)
        return
    open(os.path.join(d, "kernel.ld"), "w").write(script_text(use_script, fragment))
    recipe = b.body.replace("path/to/sfunwind", TOP)
    open(os.path.join(d, "Makefile"), "w").write("LD := ld\nOBJS := kernel.o\n" + recipe)
    env = dict(os.environ, PATH=tools + os.pathsep + os.environ["PATH"])
    env.pop("MAKEFLAGS", None)
    env.pop("MFLAGS", None)
    target = recipe.split(":", 1)[0].strip()
    rc, out = run(["make", "--no-print-directory", target], cwd=d, env=env)
    if rc:
        result(False, "%s: the recipe runs (%s, %s)" % (b.where(), use_script.where(), fragment), out)
        return
    image = os.path.join(d, target)
    rc, verify = run([os.path.join(tools, "sfu"), "verify", image])
    # What the first link's image asked for, against the sections of the final one.
    rc2, defsym = run([os.path.join(tools, "sfu"), "gen", image + ".tmp", "--print-defsym"])
    asked = dict(re.findall(r"--defsym=(\w+)=(\d+)", defsym))
    rc3, heads = run(["objdump", "-h", image])
    sizes = {m.group(1): int(m.group(2), 16)
             for m in re.finditer(r"^\s*\d+\s+(\S+)\s+([0-9a-f]+)\s", heads, re.M)}
    want = {"SFU_SFRAME_RESERVE": ".sframe", "SFU_SYMBOLS_RESERVE": ".sfu_symbols"}
    wrong = ["%s %d, section %s %s" % (k, int(v), want[k], sizes.get(want[k]))
             for k, v in asked.items() if sizes.get(want.get(k, "?")) != int(v)]
    ok = rc == 0 and rc2 == 0 and asked and not wrong
    result(ok, "%s: the recipe links, sizes the reservations (%s) and the image verifies"
           % (b.where(), ", ".join("%s=%s" % kv for kv in sorted(asked.items()))),
           verify + defsym + "\n".join(wrong))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    lib = os.path.join(build, "x86_64", "libsfu.a")
    tools = os.path.abspath(os.path.join(build, "tools"))
    docs = ["README.md", "linker/README.md"] + sorted(glob.glob("docs/*.md"))
    work = tempfile.mkdtemp(prefix="sfu-docs-")
    try:
        kernel_o = os.path.join(work, "kernel.o")
        rc, out = run(["gcc"] + CFLAGS + ["-c", "tests/docs/kernel.c", "-o", kernel_o])
        if rc:
            result(False, "tests/docs/kernel.c compiles", out)
            return
        all_blocks = {d: blocks_of(d) for d in docs}
        scripts = [b for d in docs for b in all_blocks[d] if b.is_script()]
        # The fullest script (sframe, build-id and the crash area) for documents without one.
        fullest = [s for s in scripts if "sfunwind-crash.ld" in s.body]
        counted = 0
        for d in docs:
            last_script = None
            for b in all_blocks[d]:
                if b.source:
                    check_quote(b)
                    counted += 1
                elif b.is_script():
                    last_script = b
                elif b.lang == "c":
                    check_c(b, last_script or fullest[0], work, lib, kernel_o)
                    counted += 1
                elif b.lang == "make":
                    use = [s for s in all_blocks[d] if s.is_script() and "INCLUDE sfunwind.ld" in s.body]
                    # The recipe's section: which fragment its text says to link.
                    text = open(d).read()
                    start = text.rfind("\n#", 0, text.find(b.body))
                    fragment = "sfunwind-reserve.ld" if "sfunwind-reserve.ld" in text[start:text.find(b.body)] else None
                    check_make(b, use[0], fragment, work, tools)
                    counted += 1
        result(counted >= 6, "the documents hold the examples this test expects (%d checked)" % counted)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
    print("docs: %d passed, %d failed" % (passed, failed))
    sys.exit(1 if failed else 0)
