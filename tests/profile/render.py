"""Renders an SVG flame graph in headless Chromium and checks what a person would see
(tests/profile/check.py):
  - the screenshot is not one colour;
  - a label (the hot function's name and share) draws pixels, and only inside its own box: the
    screenshot of the same SVG without that <text> differs from the first inside the box and
    nowhere else;
  - the browser lays the label out inside its box: an HTML page holding the SVG measures the text's
    bounding box (getBBox) against its rect, and --dump-dom returns the numbers; labels_fit does
    so for every label of a graph (names cut with ".." in narrow boxes included).
PNGs are decoded here (8-bit RGB or RGBA, the filters of RFC 2083): no imaging library needed.
"""
import json
import os
import re
import struct
import subprocess
import zlib


def chromium(args):
    cmd = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
           "--force-device-scale-factor=1"] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def read_png(path):
    """(width, height, rows): rows of (r, g, b) tuples."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    at, idat, width = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, "an 8-bit RGB(A) PNG"
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        at += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, pos = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[pos], bytearray(raw[pos + 1:pos + 1 + stride])
        pos += 1 + stride
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def screenshot(svg, png, size):
    r = chromium(["--window-size=%d,%d" % size, "--screenshot=" + png, "file://" + os.path.abspath(svg)])
    if not os.path.exists(png):
        raise RuntimeError("chromium wrote no screenshot: " + r.stderr.strip()[-300:])
    return read_png(png)


def check_svg(svg_path, label, work):
    """[(check, problem or None)] for the SVG at svg_path and the label expected in it."""
    results = []
    text = open(svg_path).read()
    size = tuple(int(float(v)) for v in re.search(r'<svg [^>]*width="([\d.]+)" height="([\d.]+)"', text).groups())
    # The label's element and its box (the <rect> in the same <g>).
    m = re.search(r'<rect x="([\d.]+)" y="([\d.]+)" width="([\d.]+)" height="([\d.]+)"[^>]*/><text [^>]*>%s</text>'
                  % re.escape(label), text)
    if not m:
        return [("the label is in the SVG", "no <text> holding %r" % label)]
    box = [float(v) for v in m.groups()]
    try:
        w, h, full = screenshot(svg_path, os.path.join(work, "flame.png"), size)
        colours = {p for row in full for p in row}
        results.append(("the picture is not one colour", None if len(colours) > 2 else "colours: %s" % colours))
        without = os.path.join(work, "flame-without-label.svg")
        with open(without, "w") as f:
            f.write(text.replace(m.group(0), m.group(0)[:m.group(0).index("<text")]))
        _, _, bare = screenshot(without, os.path.join(work, "flame-without-label.png"), size)
        inside = outside = 0
        x0, y0, x1, y1 = box[0], box[1], box[0] + box[2], box[1] + box[3]
        for y in range(h):
            for x in range(w):
                if full[y][x] != bare[y][x]:
                    if x0 - 1 <= x <= x1 + 1 and y0 - 1 <= y <= y1 + 1:
                        inside += 1
                    else:
                        outside += 1
        results.append(("the hot function's name draws pixels in its box (%d)" % inside,
                        None if inside > 20 else "only %d pixels differ without the label" % inside))
        results.append(("the name draws nothing outside its box",
                        None if outside == 0 else "%d pixels outside the box differ" % outside))
    except (RuntimeError, AssertionError, subprocess.TimeoutExpired) as e:
        results.append(("screenshot", str(e)))
    # The browser's own layout of the label.
    page = os.path.join(work, "measure.html")
    with open(page, "w") as f:
        f.write("<!DOCTYPE html><html><body style='margin:0'>" + text.split("?>", 1)[1] + """
<pre id="result"></pre><script>
const want = %s;
const hit = [...document.querySelectorAll('text')].find(t => t.textContent === want);
let out = {found: false};
if (hit) {
  const b = hit.getBBox(), r = hit.parentNode.querySelector('rect');
  out = {found: true, x: b.x, y: b.y, width: b.width, height: b.height,
         box: ['x', 'y', 'width', 'height'].map(k => r[k].baseVal.value)};
}
document.getElementById('result').textContent = 'MEASURED ' + JSON.stringify(out) + ' END';
</script></body></html>""" % json.dumps(label))
    r = chromium(["--dump-dom", "file://" + os.path.abspath(page)])
    got = re.search(r"MEASURED (.*?) END", r.stdout)
    if not got:
        results.append(("the browser lays the name out", "no measurement in --dump-dom: " + r.stderr.strip()[-300:]))
        return results
    mm = json.loads(got.group(1))
    if not mm["found"]:
        results.append(("the browser lays the name out", "no <text> with %r in the DOM" % label))
        return results
    bx, by, bw, bh = mm["box"]
    fits = mm["width"] > 0 and mm["x"] >= bx and mm["x"] + mm["width"] <= bx + bw and mm["y"] >= by - 1 and \
        mm["y"] + mm["height"] <= by + bh + 1
    results.append(("the browser lays the name out inside its box (%.1f of %.1f px)" % (mm["width"], bw),
                    None if fits else "text %s, box %s" % (mm, mm["box"])))
    return results


def labels_fit(svg_path, work):
    """(labels, [label that overflows its box, ...]) as Chromium lays out every <text> of a box."""
    text = open(svg_path).read()
    page = os.path.join(work, "labels.html")
    with open(page, "w") as f:
        f.write("<!DOCTYPE html><html><body style='margin:0'>" + text.split("?>", 1)[1] + """
<pre id="result"></pre><script>
const over = [];
let n = 0;
for (const g of document.querySelectorAll('g')) {
  const t = g.querySelector('text'), r = g.querySelector('rect');
  if (!t || !r) continue;
  n++;
  const b = t.getBBox();
  if (b.width <= 0 || b.x < r.x.baseVal.value || b.x + b.width > r.x.baseVal.value + r.width.baseVal.value)
    over.push(t.textContent);
}
document.getElementById('result').textContent = 'MEASURED ' + JSON.stringify({n: n, over: over}) + ' END';
</script></body></html>""")
    r = chromium(["--dump-dom", "file://" + os.path.abspath(page)])
    got = re.search(r"MEASURED (.*?) END", r.stdout)
    if not got:
        return 0, ["no measurement in --dump-dom: " + r.stderr.strip()[-300:]]
    m = json.loads(got.group(1))
    return m["n"], m["over"]
