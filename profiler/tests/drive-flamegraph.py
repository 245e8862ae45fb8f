#!/usr/bin/python3
"""Drive a flame graph of perfsym --flamegraph in headless Chromium, as
tests/profiler-flamegraph.sh asks: through Chromium's DevTools protocol
(over python3-websocket), with the mouse and the keyboard as a person
would, checking what the page then holds against perfsym --folded of the
same recording (FOLDED), never against pixels.

- Loaded: the script ran without error and made its controls; every
  frame has the samples its stack has in FOLDED and the width they give
  it; the frames left out (narrower than a tenth of a pixel) are the
  samples the script was told of.
- Zoom: a click on a frame with callees makes it span the width, each
  frame above it as wide and as far right as its samples relative to it
  say, its callers span the width below it, dimmed, and every other
  frame is hidden; a click on its caller zooms out to that; a click on
  "Reset zoom" puts every frame back where it was.
- Search: each TERM typed in the search box (text, or /regex/flags)
  highlights the frames whose names match, and no other, and prints the
  share of the samples whose stacks have a match, each counted once:
  what FOLDED says (exactly, unless frames were left out: then less by
  at most their samples); Escape clears it.
- Tooltip: the mouse over a frame too narrow to be labelled shows its
  name, samples and share, inside the picture; off the frames, nothing.

Screenshots of the zoom, of each search and of the tooltip go to OUTDIR.
Usage: drive-flamegraph.py SVG FOLDED OUTDIR [--search TERM]...
Prints what it checked; exits 1 with the reasons if a check fails.
"""

import argparse
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
import xml.etree.ElementTree as ET

import websocket

# As in profiler/flamegraph.c.
WIDTH = 1200
MARGIN = 10
FULL = WIDTH - 2 * MARGIN
CHAR_WIDTH = 6.7
MIN_WIDTH = 0.1
HIGHLIGHT = "#e040c0"

problems = []


def check(ok, what):
    if not ok:
        problems.append(what)
    return ok


class Chromium:
    """Headless Chromium with a fresh profile, and one page of it spoken
    to over the DevTools protocol."""

    def __init__(self, log):
        self.profile = tempfile.mkdtemp(prefix="drive-flamegraph-")
        # As root, Chromium runs only without its sandbox.
        self.proc = subprocess.Popen(
            ["chromium", "--headless", "--no-sandbox", "--disable-gpu",
             "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update",
             "--disable-sync", "--hide-scrollbars",
             "--force-device-scale-factor=1", "--remote-debugging-port=0",
             "--user-data-dir=" + self.profile, "about:blank"],
            stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        port = None
        active = os.path.join(self.profile, "DevToolsActivePort")
        for _ in range(300):
            if self.proc.poll() is not None:
                raise RuntimeError("chromium exited with status %d"
                                   % self.proc.returncode)
            if os.path.exists(active):
                lines = open(active).read().split("\n")
                if lines[0].isdigit():
                    port = int(lines[0])
                    break
            time.sleep(0.1)
        if port is None:
            raise RuntimeError("chromium did not open its DevTools port")
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list",
                                    timeout=30) as r:
            targets = json.load(r)
        page = [t for t in targets if t.get("type") == "page"][0]
        self.ws = websocket.create_connection(page["webSocketDebuggerUrl"],
                                              timeout=60, suppress_origin=True)
        self.next_id = 0
        self.events = []

    def close(self):
        try:
            self.ws.close()
        finally:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
            shutil.rmtree(self.profile, ignore_errors=True)

    def call(self, method, **params):
        """The result of METHOD; events met meanwhile are kept."""
        self.next_id += 1
        self.ws.send(json.dumps({"id": self.next_id, "method": method,
                                 "params": params}))
        while True:
            message = json.loads(self.ws.recv())
            if message.get("id") == self.next_id:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            if "method" in message:
                self.events.append(message)

    def wait_event(self, method, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            for i, e in enumerate(self.events):
                if e["method"] == method:
                    return self.events.pop(i)
            self.events.append(json.loads(self.ws.recv()))
        raise RuntimeError(f"no {method} event in {timeout} s")

    def errors(self):
        """Exceptions thrown and errors logged in the page so far."""
        found = []
        for e in self.events:
            p = e.get("params", {})
            if e["method"] == "Runtime.exceptionThrown":
                d = p["exceptionDetails"]
                found.append(d.get("exception", {}).get("description")
                             or d.get("text"))
            elif (e["method"] == "Runtime.consoleAPICalled"
                  and p.get("type") == "error"):
                found.append(" ".join(str(a.get("value"))
                                      for a in p.get("args", [])))
            elif (e["method"] == "Log.entryAdded"
                  and p["entry"]["level"] == "error"):
                found.append(p["entry"]["text"])
        return found

    def evaluate(self, expression):
        r = self.call("Runtime.evaluate", expression=expression,
                      returnByValue=True)
        if "exceptionDetails" in r:
            raise RuntimeError(f"{expression[:60]}...: "
                               f"{r['exceptionDetails']}")
        return r["result"].get("value")

    def mouse(self, kind, x, y, **more):
        self.call("Input.dispatchMouseEvent", type=kind, x=x, y=y, **more)

    def click(self, x, y):
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, button="left", clickCount=1)
        self.mouse("mouseReleased", x, y, button="left", clickCount=1)

    def key(self, key, code, keycode):
        for kind in ("rawKeyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", type=kind, key=key,
                      code=code, windowsVirtualKeyCode=keycode)

    def screenshot(self, path):
        data = self.call("Page.captureScreenshot", format="png")["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(data))


# What the page holds: each frame's path of names from the bottom row,
# samples, offset, its box as the attributes have it, its rectangle as
# drawn (CSS pixels, the picture being at its own size), its label,
# fill, whether it is shown and dimmed; the controls' state.
STATE = """(() => {
  const frames = [];
  for (const g of document.querySelectorAll('g.f')) {
    const path = [];
    for (let p = g; p.classList && p.classList.contains('f');
         p = p.parentNode)
      path.unshift(p.getAttribute('data-name'));
    const box = g.querySelector(':scope > svg');
    const rect = box.querySelector('rect');
    const text = box.querySelector('text');
    const r = rect.getBoundingClientRect();
    frames.push({
      path: path,
      samples: Number(g.getAttribute('data-samples')),
      offset: Number(g.getAttribute('data-offset')),
      x: Number(box.getAttribute('x')),
      width: Number(box.getAttribute('width')),
      drawn: { x: r.x, y: r.y, width: r.width, height: r.height },
      shown: box.getAttribute('display') !== 'none' && r.width > 0,
      text: text ? text.textContent : '',
      fill: rect.getAttribute('fill'),
      caller: g.classList.contains('caller'),
      match: g.classList.contains('match'),
      titles: g.querySelectorAll(':scope > title').length,
    });
  }
  const bbox = (id) => {
    const e = document.getElementById(id);
    if (!e) return null;
    const r = e.getBoundingClientRect();
    return { x: r.x, y: r.y, width: r.width, height: r.height,
             text: e.textContent,
             visible: e.getAttribute('visibility') !== 'hidden',
             off: e.classList.contains('off') };
  };
  return { frames: frames, layout: typeof layout === 'undefined' ? null
           : layout, reset: bbox('reset'), search: bbox('search'),
           matched: bbox('matched'), tooltip: bbox('tooltip'),
           width: document.documentElement.width.baseVal.value,
           height: document.documentElement.height.baseVal.value };
})()"""


def read_folded(path):
    """{(COMM, FRAME...): samples} of perfsym --folded."""
    stacks = {}
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if not line:
            continue
        stack, count = line.rsplit(" ", 1)
        key = tuple(stack.split(";"))
        stacks[key] = stacks.get(key, 0) + int(count)
    return stacks


class Tree:
    """The samples of every path of frames (from the commands up), and
    the callees of each, from the folded stacks."""

    def __init__(self, stacks):
        self.total = sum(stacks.values())
        self.samples = {(): self.total}
        self.callees = {(): set()}
        for stack, count in stacks.items():
            for i in range(1, len(stack) + 1):
                p = stack[:i]
                self.samples[p] = self.samples.get(p, 0) + count
                self.callees.setdefault(p[:-1], set()).add(p[-1])
                self.callees.setdefault(p, set())

    def left(self, base, path):
        """The samples left of PATH within BASE (a prefix of it): those
        of the siblings before it, in byte order, at each level."""
        n = 0
        for i in range(len(base), len(path)):
            key = path[i].encode()
            n += sum(self.samples[path[:i] + (s,)]
                     for s in self.callees[path[:i]] if s.encode() < key)
        return n


def near(a, b, tolerance=0.02):
    return abs(a - b) <= tolerance


def label_ok(f):
    t, name = f["text"], f["path"][-1]
    if t == "":
        return True
    return ((t == name or (t.endswith("..") and name.startswith(t[:-2])))
            and 3 + len(t) * CHAR_WIDTH <= f["width"] + 0.01)


def check_loaded(state, tree):
    frames = state["frames"]
    check(state["layout"] is not None, "no layout: the script is missing")
    check(state["reset"] is not None and state["search"] is not None
          and state["matched"] is not None and state["tooltip"] is not None,
          "the script did not make its controls")
    check(all(f["titles"] == 0 for f in frames),
          "the browser's tooltips (<title>) are still there")
    check(frames and frames[0]["path"] == ["all"],
          "the first frame is not 'all'")
    drawn = set()
    for f in frames:
        path = tuple(f["path"][1:])
        drawn.add(path)
        want = tree.samples.get(path)
        if not check(want == f["samples"],
                     f"{'/'.join(path)}: {f['samples']} samples, the folded"
                     f" stacks say {want}"):
            continue
        check(near(f["width"], f["samples"] * FULL / tree.total)
              and near(f["x"], MARGIN + tree.left((), path) * FULL
                       / tree.total),
              f"{'/'.join(path)}: at {f['x']}, {f['width']} wide")
        check(f["shown"], f"{'/'.join(path)}: not shown")
    # The frames left out: the widest of those not drawn, whose caller
    # was drawn.
    omitted = sum(n for p, n in tree.samples.items()
                  if p and p not in drawn and p[:-1] in drawn)
    narrow = [p for p in drawn if tree.samples[p] * FULL / tree.total
              < MIN_WIDTH]
    check(not narrow, f"{len(narrow)} frames narrower than {MIN_WIDTH} px"
          " drawn")
    if state["layout"] is not None:
        check(state["layout"]["omitted"] == omitted,
              f"the script was told of {state['layout']['omitted']} samples"
              f" in frames left out, they are {omitted}")
    print(f"loaded: {len(frames)} frames, {tree.total} samples,"
          f" {omitted} in frames left out; each as the folded stacks say")
    return omitted


def zoom_target(state, tree):
    """The frame to click: not the bottom row nor a command, with at
    least two callees drawn, wide enough to click; the one with most
    callees, then the widest."""
    frames = state["frames"]
    callees = {}
    for f in frames:
        if len(f["path"]) > 2:
            parent = tuple(f["path"][:-1])
            callees[parent] = callees.get(parent, 0) + 1
    best = None
    for f in frames:
        n = callees.get(tuple(f["path"]), 0)
        if len(f["path"]) < 3 or n < 2 or f["width"] < 20:
            continue
        if f["samples"] == tree.total:
            continue
        key = (n, f["width"])
        if best is None or key > best[0]:
            best = (key, f)
    return best[1] if best else None


def centre(f):
    d = f["drawn"]
    return d["x"] + d["width"] / 2, d["y"] + d["height"] / 2


def check_zoomed(state, tree, target, what):
    """The frames after zooming into TARGET (a path with "all")."""
    base = tuple(target[1:])
    base_samples = tree.samples[base]
    shown = 0
    for f in state["frames"]:
        path = tuple(f["path"][1:])
        name = "/".join(f["path"])
        if path == base[:len(path)]:
            # TARGET and its callers: the full width, callers dimmed.
            check(f["shown"] and near(f["x"], MARGIN)
                  and near(f["width"], FULL)
                  and near(f["drawn"]["x"], MARGIN, 0.5)
                  and near(f["drawn"]["width"], FULL - 1, 0.5),
                  f"{what}: {name} does not span the width")
            check(f["caller"] == (path != base),
                  f"{what}: {name} is{'' if f['caller'] else ' not'}"
                  " dimmed")
            shown += 1
        elif path[:len(base)] == base:
            width = tree.samples[path] * FULL / base_samples
            x = MARGIN + tree.left(base, path) * FULL / base_samples
            if width < MIN_WIDTH:
                check(not f["shown"], f"{what}: {name} shown, {width} wide")
                continue
            check(f["shown"] and near(f["x"], x) and near(f["width"], width)
                  and near(f["drawn"]["x"], x, 0.5)
                  and near(f["drawn"]["width"],
                           width - 1 if width > 2 else width, 0.5),
                  f"{what}: {name} at {f['x']} ({f['drawn']['x']:.2f}"
                  f" drawn), {f['width']} wide ({f['drawn']['width']:.2f}"
                  f" drawn), not at {x:.2f}, {width:.2f} wide")
            check(not f["caller"], f"{what}: callee {name} dimmed")
            check(label_ok(f), f"{what}: {name} labelled {f['text']!r}")
            shown += 1
        else:
            check(not f["shown"], f"{what}: {name} is shown")
    print(f"{what}: {'/'.join(target)} spans the width, {shown} frames"
          " shown as their samples relative to it say")


def parse_term(term):
    """A test of names for TERM as the script reads it."""
    slash = term.rfind("/")
    if not term.startswith("/") or slash == 0:
        return lambda name: term in name
    flags = 0
    for c in term[slash + 1:]:
        flags |= {"i": re.I, "m": re.M, "s": re.S}.get(c, 0)
    pattern = re.compile(term[1:slash], flags)
    return lambda name: pattern.search(name) is not None


def check_search(browser, state, tree, stacks, omitted, term, outdir, n):
    search = state["search"]
    browser.click(search["x"] + search["width"] / 2,
                  search["y"] + search["height"] / 2)
    browser.key("Escape", "Escape", 27)
    browser.call("Input.insertText", text=term)
    after = browser.evaluate(STATE)
    browser.screenshot(os.path.join(outdir, f"search-{n}.png"))
    test = parse_term(term)
    want = sum(count for stack, count in stacks.items()
               if any(test(name) for name in stack))
    text = after["matched"]["text"]
    m = re.fullmatch(r"Matched: ([\d.]+)% \((\d+) of (\d+) samples\)", text)
    if not check(m, f"search {term!r}: the page says {text!r}"):
        return
    got = int(m.group(2))
    check(int(m.group(3)) == tree.total and m.group(1)
          == f"{100 * got / tree.total:.2f}",
          f"search {term!r}: {text!r} is not {got} of {tree.total}")
    if omitted == 0:
        check(got == want, f"search {term!r}: {got} samples matched, the"
              f" folded stacks have {want}")
    else:
        check(want - omitted <= got <= want,
              f"search {term!r}: {got} samples matched, the folded stacks"
              f" have {want}, {omitted} in frames left out")
    check(want > 0, f"search {term!r}: matches nothing; a test of nothing")
    wrong = [f for f in after["frames"]
             if (len(f["path"]) > 1 and test(f["path"][-1]))
             != (f["match"] and f["fill"] == HIGHLIGHT)]
    check(not wrong, f"search {term!r}: {len(wrong)} frames highlighted"
          f" wrongly, e.g. {'/'.join(wrong[0]['path']) if wrong else ''}")
    highlighted = sum(1 for f in after["frames"] if f["match"])
    print(f"search {term!r}: {text} (folded stacks: {want}),"
          f" {highlighted} frames highlighted")


def check_clear(browser, state):
    browser.key("Escape", "Escape", 27)
    after = browser.evaluate(STATE)
    check(after["matched"]["text"] == "", "Escape leaves the search's"
          f" result: {after['matched']['text']!r}")
    before = {tuple(f["path"]): f["fill"] for f in state["frames"]}
    check(all(not f["match"] and f["fill"] == before[tuple(f["path"])]
              for f in after["frames"]),
          "Escape leaves frames highlighted")
    bad = browser.evaluate("(() => { const s = document.getElementById"
                           "('search'); s.value = '/(/'; s.dispatchEvent("
                           "new Event('input')); return document."
                           "getElementById('matched').textContent; })()")
    check(bad == "Not a regular expression", f"search '/(/' says {bad!r}")
    browser.key("Escape", "Escape", 27)
    print("search: Escape clears it; '/(/' is not a regular expression")


def check_tooltip(browser, state, tree, outdir):
    """Hover the narrowest frame too narrow to label (at least a pixel
    wide), then the frame of the longest name, then nothing."""
    narrow = [f for f in state["frames"]
              if f["shown"] and f["text"] == "" and f["width"] >= 1]
    if not check(narrow, "no frame too narrow to label, at least a pixel"
                 " wide, to hover"):
        return
    hovered = [min(narrow, key=lambda f: (f["width"], f["path"])),
               max(state["frames"], key=lambda f: len(f["path"][-1]))]
    for n, f in enumerate(hovered):
        browser.mouse("mouseMoved", *centre(f))
        after = browser.evaluate(STATE)
        if n == 0:
            browser.screenshot(os.path.join(outdir, "tooltip.png"))
        tip = after["tooltip"]
        name = f["path"][-1]
        share = f"{100 * f['samples'] / tree.total:.2f}%"
        check(tip["visible"], f"no tooltip over {'/'.join(f['path'])}")
        # The name may be in lines, each ending with a blank or not.
        check(name in tip["text"]
              and f"{f['samples']} samples" in tip["text"]
              and share in tip["text"],
              f"tooltip over {name}: {tip['text']!r} lacks its name, samples"
              f" or share {share}")
        check(tip["x"] >= 0 and tip["y"] >= 0
              and tip["x"] + tip["width"] <= after["width"]
              and tip["y"] + tip["height"] <= after["height"],
              f"the tooltip over {name} is out of the picture: {tip}")
        print(f"tooltip over {name[:70]} ({f['width']:.2f} px,"
              f" {'un' if f['text'] == '' else ''}labelled):"
              f" {tip['text'][:150]!r}, {tip['width']:.0f} px wide")
    browser.mouse("mouseMoved", WIDTH / 2, 30)
    check(not browser.evaluate(STATE)["tooltip"]["visible"],
          "the tooltip stays off the frames")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("svg")
    ap.add_argument("folded")
    ap.add_argument("outdir")
    ap.add_argument("--search", action="append", default=[])
    args = ap.parse_args()
    stacks = read_folded(args.folded)
    tree = Tree(stacks)
    os.makedirs(args.outdir, exist_ok=True)
    with open(os.path.join(args.outdir, "chromium.log"), "w") as log:
        browser = Chromium(log)
        try:
            drive(browser, os.path.abspath(args.svg), stacks, tree,
                  args.search, args.outdir)
        finally:
            browser.close()
    for p in problems[:20]:
        print(f"drive-flamegraph: {p}", file=sys.stderr)
    return 1 if problems else 0


def drive(browser, svg, stacks, tree, terms, outdir):
    browser.call("Page.enable")
    browser.call("Runtime.enable")
    browser.call("Log.enable")
    root = ET.parse(svg).getroot()
    width, height = int(root.get("width")), int(root.get("height"))
    browser.call("Emulation.setDeviceMetricsOverride", width=width,
                 height=height, deviceScaleFactor=1, mobile=False)
    browser.call("Page.navigate", url="file://" + svg)
    browser.wait_event("Page.loadEventFired")
    state = browser.evaluate(STATE)
    omitted = check_loaded(state, tree)
    if problems:
        return

    target = zoom_target(state, tree)
    if check(target is not None, "no frame with callees to zoom into"):
        browser.click(*centre(target))
        check_zoomed(browser.evaluate(STATE), tree, target["path"], "zoom")
        browser.screenshot(os.path.join(outdir, "zoom.png"))
        # Its caller, dimmed below it, zooms out to that.
        zoomed = browser.evaluate(STATE)
        caller = [f for f in zoomed["frames"]
                  if f["path"] == target["path"][:-1]][0]
        browser.click(*centre(caller))
        check_zoomed(browser.evaluate(STATE), tree, caller["path"],
                     "zoom out")
        reset = browser.evaluate(STATE)["reset"]
        check(not reset["off"], "Reset zoom is off while zoomed")
        browser.click(reset["x"] + reset["width"] / 2,
                      reset["y"] + reset["height"] / 2)
        after = browser.evaluate(STATE)
        moved = [f for f, g in zip(state["frames"], after["frames"])
                 if (f["x"], f["width"], f["text"], f["shown"])
                 != (g["x"], g["width"], g["text"], g["shown"])
                 or g["caller"]]
        check(not moved and after["reset"]["off"],
              f"Reset zoom: {len(moved)} frames not as they were, e.g."
              f" {'/'.join(moved[0]['path']) if moved else ''}")
        print(f"reset: every frame back where it was")

    for n, term in enumerate(terms, 1):
        check_search(browser, state, tree, stacks, omitted, term, outdir, n)
    check_clear(browser, state)
    check_tooltip(browser, state, tree, outdir)
    errors = browser.errors()
    check(not errors, f"the page had errors: {errors[:3]}")


if __name__ == "__main__":
    sys.exit(main())
