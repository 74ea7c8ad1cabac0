#!/usr/bin/env python3
"""The row cache's hit rate against its size, replayed on the host: the cache's set function and
fill policy (src/unwind/row_cache.h and .cpp: min(8, entries) ways, an empty way or the PC's own,
else the way after the one filled last) run over the lookup PCs of real walks, in their order:

  qemu ARCH LOG   the sampling scenario of a QEMU test kernel's log (tests/qemu/*/sampling.c: 10,000
                  timer interrupts, each walked from the interrupted registers): every frame's PC,
                  the first as is, the others less 1 (return addresses), from a cold cache
  spread F FILE   bench_spread --pcs: one walk's lookups, repeated; the share served once warm

The real cache counts its hits with CONFIG_SFU_ROW_CACHE_STATS: on the spread walks this replay
gives the counts the counting core gives (checked at 256 and 64 entries, and with two ways).
  usage: row_cache_sizes.py [--markdown] (qemu ARCH LOG | spread F FILE)...
"""
import re
import sys

SIZES = [0, 32, 64, 128, 256, 512]
LINE = 64




class Cache:
    def __init__(self, entries, ways=None):
        self.entries = entries
        self.ways = ways or (min(8, entries) if entries else 0)
        self.sets = [[None] * self.ways for _ in range(entries // self.ways)] if entries else []
        self.last = [0] * len(self.sets)
        self.hits = self.misses = 0

    def look(self, pc):
        if not self.entries:
            self.misses += 1
            return
        s = set_of_ways(pc, self.entries, self.ways)
        ways = self.sets[s]
        if pc in ways:
            self.hits += 1
            return
        self.misses += 1
        way = (self.last[s] + 1) % self.ways
        for w in range(self.ways):
            if ways[w] is None:
                way = w
                break
        self.last[s] = way
        ways[way] = pc


def set_of_ways(lookup, entries, ways):
    sets = entries // ways
    shift = (ways * LINE).bit_length() - 1
    a = lookup + 1
    return (((a << (shift - 2)) ^ (a >> (9 - shift))) & ((sets - 1) << shift)) >> shift


def qemu_walks(path):
    """Each sampling trace's lookup PCs: frames in a module, the first as is, then return
    addresses less 1; a frame the walk stopped on by the frame cap was never stepped from."""
    walks, cur = [], None
    frame = re.compile(r"^ #(\d+)\s+0x([0-9a-f]+)\s+sp \S+\s+\S+\s+\[(\w+)\]\s+(\S+)")
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("sfu-trace 2-sampling/"):
                cur = []
            elif cur is not None and line.startswith("sfu-end"):
                walks.append([pc for pc, _ in cur])
                cur = None
            elif cur is not None and line.startswith("stop: frame-cap"):
                cur = cur[:-1]
            elif cur is not None:
                m = frame.match(line)
                if m and m.group(4) == "image":
                    k, pc, source = int(m.group(1)), int(m.group(2), 16), m.group(3)
                    exact = k == 0 or source == "trap"
                    cur.append((pc if exact else pc - 1, source))
    return walks


def replay(walks, entries, ways=None, warm=0, repeat=1):
    """The share of lookups served, in percent, over `repeat` passes after `warm` uncounted ones."""
    c = Cache(entries, ways)
    for _ in range(warm):
        for w in walks:
            for pc in w:
                c.look(pc)
    c.hits = c.misses = 0
    for _ in range(repeat):
        for w in walks:
            for pc in w:
                c.look(pc)
    return 100.0 * c.hits / max(1, c.hits + c.misses)


def main(argv):
    markdown = "--markdown" in argv
    argv = [a for a in argv if a != "--markdown"]
    rows = []
    i = 0
    while i < len(argv):
        if argv[i] == "qemu" and i + 2 < len(argv):
            walks = qemu_walks(argv[i + 2])
            lookups = sum(len(w) for w in walks)
            distinct = len({pc for w in walks for pc in w})
            name = "QEMU %s sampling, %d walks, %d lookups, %d distinct PCs" % (argv[i + 1], len(walks), lookups, distinct)
            rows.append((name, [replay(walks, e) for e in SIZES], replay(walks, 256, ways=2)))
            i += 3
        elif argv[i] == "spread" and i + 2 < len(argv):
            with open(argv[i + 2]) as f:
                walk = [int(l, 16) for l in f if l.strip()]
            name = "spread stack, %s functions, %d lookups a walk, warm" % (argv[i + 1], len(walk))
            rows.append((name, [replay([walk], e, warm=100, repeat=1000) for e in SIZES],
                         replay([walk], 256, ways=2, warm=100, repeat=1000)))
            i += 3
        else:
            sys.exit(__doc__)
    if markdown:
        print("## Row cache hit rate against its size\n")
        print("bench/row_cache_sizes.py: the row cache's set function and fill policy (eight ways, or as many as "
              "there are entries; an empty way, else the way after the one filled last) replayed over the lookup "
              "PCs of real walks, in their order. QEMU: the sampling scenario of each architecture's gen-v2 test "
              "kernel (tests/qemu/*/sampling.c, `make qemu-test`'s logs), every frame's PC, the first as is and "
              "the return addresses less 1, from a cold cache. Spread: bench_spread's walk (`--pcs`), 100 walks to "
              "warm, then 1,000 counted. The last column is the cache before issue 24 (two ways of 128 sets, the way "
              "not filled last). On the spread walks the replay gives exactly what the counting core "
              "(CONFIG_SFU_ROW_CACHE_STATS) counts, checked at 256 and 64 entries and with two ways.\n")
        print("| walks | " + " | ".join("%d entries" % e for e in SIZES) + " | 256 entries, 2 ways (before) |")
        print("| --- |" + " ---: |" * (len(SIZES) + 1))
        for name, rates, two in rows:
            print("| %s | " % name + " | ".join("%.1f%%" % r for r in rates) + " | %.1f%% |" % two)
        print("\n```")
    for name, rates, two in rows:
        print("row-cache-hits: %s: " % name + ", ".join("%d %.1f%%" % (e, r) for e, r in zip(SIZES, rates)) +
              "; 256 with 2 ways %.1f%%" % two)
    if markdown:
        print("```")

if __name__ == "__main__":
    main(sys.argv[1:])
