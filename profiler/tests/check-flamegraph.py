#!/usr/bin/env python3
"""Check a flame graph of perfsym --flamegraph, as tests/profiler-flamegraph.sh
asks: the SVG as an XML parser reads it, and the PNG headless Chromium made
of it as a person sees it.

SVG: a title; every frame a <g class="f"> with the data the script reads
(data-name, data-samples, data-offset: the samples left of it), a <title>
("LABEL (DSO)", then "KIND: N samples, P%"), an inner <svg> box holding a
<rect> and maybe a <text>, and the groups of its callees; widths and places
proportional to the samples, every frame on a frame of the row below that
spans it (the group it is in), callees no wider than their caller, colours
by kind (program red, libraries yellow, kernel blue, the rest grey), names
cut to their box; the script (tests/drive-flamegraph.py tries it).
With PROFILE (perfsym's flat profile of the same recording, whose samples
must be few enough for every frame to be drawn): the frames with the most
samples of their own (not in callees) are the profile's top functions, with
the same counts; without, the frames with the most samples of their own.
PNG: as large as the SVG says, not blank (many colours, not all white, the
bottom row across), the title drawn, and each of those hot frames drawn
where the SVG puts it, in its colour, as wide as it should be.

Usage: check-flamegraph.py SVG [--profile PROFILE] [--png PNG] [--top N]
Prints what it checked; exits 1 with the reasons if a check fails.
"""

import argparse
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"
# As in profiler/flamegraph.c.
ROW = 16
CHAR_WIDTH = 6.7

problems = []


def check(ok, what):
    if not ok:
        problems.append(what)
    return ok


def parse_svg(path):
    root = ET.parse(path).getroot()
    check(root.tag == NS + "svg", "the root element is not <svg>")
    title = root.find(NS + "title")
    check(title is not None and title.text, "no <title> of the picture")
    width = float(root.get("width"))
    height = float(root.get("height"))
    group = root.find(f"{NS}g[@id='frames']")
    check(group is not None, "no <g id=\"frames\">")
    script = root.find(NS + "script")
    check(script is not None and script.text
          and "const layout = {" in script.text,
          "no <script> with the layout of the frames")
    frames = []

    # The frames in G, callers before callees: each a <g class="f">
    # holding its <title>, its box and its callees' groups.
    def walk(g, caller):
        for child in g.findall(NS + "g"):
            f = parse_frame(child, caller)
            if f is not None:
                frames.append(f)
                walk(child, f)

    if group is not None:
        walk(group, None)
    return root, width, height, frames


def parse_frame(g, caller):
    t = g.find(NS + "title")
    box = g.find(NS + "svg")
    if not check(g.get("class") == "f" and t is not None
                 and box is not None,
                 "a frame without class f, <title> or box"):
        return None
    lines = t.text.split("\n")
    m = re.fullmatch(r"(\w[\w ]*): (\d+) samples, ([\d.]+)%", lines[-1])
    if not check(len(lines) == 2 and m, f"bad frame title {t.text!r}"):
        return None
    head = lines[0]
    dso = None
    m2 = re.fullmatch(r"(.*) \(([^()]*(?:\([^()]*\))?[^()]*)\)", head)
    if m2 and m.group(1) not in ("command", "every sample"):
        head, dso = m2.group(1), m2.group(2)
    check(g.get("data-name") == head
          and g.get("data-samples") == m.group(2),
          f"{head}: data-name {g.get('data-name')!r}, data-samples"
          f" {g.get('data-samples')} are not its title's")
    rect = box.find(NS + "rect")
    text = box.find(NS + "text")
    return {
        "label": head, "dso": dso, "kind": m.group(1),
        "samples": int(m.group(2)), "offset": int(g.get("data-offset", -1)),
        "caller": caller,
        "x": float(box.get("x")), "y": float(box.get("y")),
        "w": float(box.get("width")), "h": float(box.get("height")),
        "fill": rect.get("fill") if rect is not None else None,
        "text": text.text if text is not None else None,
    }


def rgb(fill):
    return tuple(int(fill[i:i + 2], 16) for i in (1, 3, 5))


def kind_colour_ok(kind, c):
    r, g, b = c
    if kind == "program":
        return r > g > b
    if kind == "library":
        return r >= g > b and g - b > 60
    if kind == "kernel":
        return b > g > r
    return r == g == b


def check_frames(width, frames):
    check(frames and frames[0]["label"] == "all",
          "the first frame is not 'all'")
    if not frames:
        return {}
    total = frames[0]["samples"]
    scale = frames[0]["w"] / total
    check(abs(frames[0]["w"] - (width - 20)) < 0.01,
          "'all' is not as wide as the picture less its margins")
    by_row = {}
    for f in frames:
        by_row.setdefault(f["y"], []).append(f)
        check(abs(f["w"] - f["samples"] * scale) < 0.01,
              f"{f['label']}: width {f['w']} for {f['samples']} samples")
        check(abs(f["x"] - 10 - f["offset"] * scale) < 0.01,
              f"{f['label']}: at {f['x']}, {f['offset']} samples left of"
              " it")
        check(f["fill"] is not None
              and kind_colour_ok(f["kind"], rgb(f["fill"])),
              f"{f['label']}: colour {f['fill']} for a {f['kind']} frame")
        if f["text"] is not None:
            t = f["text"]
            check(t == f["label"] or (t.endswith("..")
                                      and f["label"].startswith(t[:-2])),
                  f"{f['label']}: text {t!r} is not its name")
            check(3 + len(t) * CHAR_WIDTH <= f["w"] + 0.01,
                  f"{f['label']}: text {t!r} wider than its box")
    # Each frame stands on its caller, which spans it; callees are no
    # wider than their caller together.
    self_samples = {}
    for f in frames[1:]:
        below = [p for p in by_row.get(f["y"] + ROW, [])
                 if p["x"] - 0.02 <= f["x"]
                 and f["x"] + f["w"] <= p["x"] + p["w"] + 0.02]
        if check(len(below) == 1, f"{f['label']}: no caller under it"):
            below[0].setdefault("callees", []).append(f)
            check(f["caller"] is below[0],
                  f"{f['label']}: not in the group of its caller")
    for f in frames:
        callees = sum(c["samples"] for c in f.get("callees", []))
        check(callees <= f["samples"],
              f"{f['label']}: its callees have more samples than it")
        f["self"] = f["samples"] - callees
        if f["kind"] not in ("command", "every sample"):
            self_samples[f["label"]] = (self_samples.get(f["label"], 0)
                                        + f["self"])
    print(f"svg: {len(frames)} frames in {len(by_row)} rows, {total} samples")
    return self_samples


def read_profile(path):
    """Samples by symbol in perfsym's flat profile."""
    counts = {}
    for line in open(path):
        m = re.match(r"\s*[\d.]+%\s+(\d+)\s+.*\s\[[.k]\] (.*)$", line)
        if m:
            counts[m.group(2)] = counts.get(m.group(2), 0) + int(m.group(1))
    return counts


def check_hot(self_samples, profile, top):
    hot = sorted(profile.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    drawn = sorted(self_samples.items(), key=lambda kv: (-kv[1], kv[0]))
    widest = [name for name, _ in drawn[:top]]
    for name, count in hot:
        check(name in widest and self_samples[name] == count,
              f"hot function {name} ({count} samples in the profile) is not"
              f" among the {top} frames widest on their own: {drawn[:top]}")
    print("hot functions, widest on their own: "
          + ", ".join(f"{n} {self_samples.get(n)}" for n, _ in hot))
    return [name for name, _ in hot]


def read_png(path):
    """Width, height and rows of (r, g, b) of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    if not check(data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"):
        return 0, 0, []
    pos = 8
    idat = b""
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB",
                                                                body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    if not check(depth == 8 and ctype in (2, 6) and interlace == 0,
                 f"PNG of depth {depth}, colour type {ctype}: not read here"):
        return 0, 0, []
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows = []
    prev = bytearray(stride)
    for y in range(h):
        filt = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if filt == 1:
                line[i] = (line[i] + a) & 0xff
            elif filt == 2:
                line[i] = (line[i] + b) & 0xff
            elif filt == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif filt == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xff
        rows.append([tuple(line[x * bpp:x * bpp + 3]) for x in range(w)])
        prev = line
    return w, h, rows


def near(c, d, tolerance=12):
    return all(abs(a - b) <= tolerance for a, b in zip(c, d))


def check_png(path, width, height, frames, hot):
    w, h, rows = read_png(path)
    if not rows:
        return
    check((w, h) == (int(width), int(height)),
          f"PNG of {w}x{h}, the SVG is {width}x{height}")
    pixels = [p for row in rows for p in row]
    white = sum(1 for p in pixels if p == (255, 255, 255))
    colours = len(set(pixels))
    check(colours >= 20, f"only {colours} colours: a blank picture?")
    # A deep stack makes a tall picture, mostly white: the frames are
    # looked for below.
    check(white < 0.99 * len(pixels),
          f"{100 * white / len(pixels):.0f}% white: a blank picture?")
    # The bottom row, every sample, spans the picture.
    bottom = frames[0] if frames else None
    if bottom is not None:
        row = rows[int(bottom["y"]) + 2]
        fill = rgb(bottom["fill"])
        spanned = sum(1 for p in row if near(p, fill))
        check(spanned >= bottom["w"] - 3,
              f"the bottom row is drawn {spanned} pixels wide, not"
              f" {bottom['w']:.0f}")
    title = [p for row in rows[8:28] for p in row[w // 3:2 * w // 3]
             if sum(p) < 200]
    check(len(title) > 50, "no title drawn")
    print(f"png: {w}x{h}, {colours} colours,"
          f" {100 - 100 * white / len(pixels):.0f}% not white")
    for name in hot:
        f = max((f for f in frames if f["label"] == name),
                key=lambda f: f["w"])
        fill = rgb(f["fill"])
        y = int(f["y"]) + 2
        # The middle of the rectangle, which leaves a pixel free on the
        # right of a box wider than 2: in a box of a few pixels, the
        # middle of the box can be a pixel the rectangle half covers.
        cx = int(f["x"] + (f["w"] - 1 if f["w"] > 2 else f["w"]) / 2)
        row = rows[y]
        if not check(near(row[cx], fill),
                     f"{name}: the PNG has {row[cx]} at ({cx}, {y}),"
                     f" not its colour {fill}"):
            continue
        left = cx
        while left > 0 and near(row[left - 1], fill):
            left -= 1
        right = cx
        while right + 1 < w and near(row[right + 1], fill):
            right += 1
        drawn = right - left + 1
        # The rectangle leaves a pixel free on the right.
        check(abs(drawn - (f["w"] - 1)) <= 2,
              f"{name}: drawn {drawn} pixels wide, the SVG says {f['w']:.1f}")
        print(f"png: {name} drawn at x {left}..{right} ({drawn} px,"
              f" SVG {f['w']:.1f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("svg")
    ap.add_argument("--profile")
    ap.add_argument("--png")
    ap.add_argument("--top", type=int, default=3)
    args = ap.parse_args()
    try:
        _, width, height, frames = parse_svg(args.svg)
    except ET.ParseError as e:
        print(f"check-flamegraph: {args.svg}: not XML: {e}", file=sys.stderr)
        return 1
    self_samples = check_frames(width, frames)
    if args.profile:
        hot = check_hot(self_samples, read_profile(args.profile), args.top)
    else:
        hot = [name for name, _ in sorted(self_samples.items(),
                                          key=lambda kv: (-kv[1], kv[0]))]
        hot = hot[:args.top]
    if args.png:
        check_png(args.png, width, height, frames, hot)
    for p in problems[:20]:
        print(f"check-flamegraph: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
