#!/usr/bin/env python3
"""diff --html pages (docs/reports.md "HTML page") loaded in a real headless browser (Debian's chromium).

usage: html_test.py GRIDCHECK REPO_ROOT WORK_DIR {divergent,sound,screenshot,million,million_random,gpu}

divergent:  corpus/s10_a1_rw_written_not_read.gc under vyre-0.7.2: after the page's scripts ran, the
            DOM marks #divergent-element at the element, launch and buffer `diff --json` reports as the
            first divergence, and #divergent-statement on the store before the fence; the page is
            self-contained (no script, style, image or link it would fetch); markup in a case's comment,
            title and file name stays text.
sound:      the same case under the default (sound) profile: #no-divergence, and neither
            #divergent-element nor #divergent-statement.
screenshot: chromium --screenshot of the divergent page is a PNG of the window's size, not empty.
million:    tools/html_cases/a1_1m.gc (a buffer of 2^20 elements): the page renders in the browser
            and marks the element `diff --json` reports (1024) with its values (the images embedded
            as word runs).
million_random: the same with random caller bytes (a1_1m_random.gc: base64 images, a 11 MB page).
gpu:        diff --backend gpu (lavapipe in CI): the page reports H-gpu's divergence in
            #first-divergence at H-gpu's first differing element, never #no-divergence.

chromium is found as $GRIDCHECK_CHROMIUM, else `chromium` on PATH; without it the test fails (tools/setup.sh
installs it), it never passes by skipping.
"""

import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from html.parser import HTMLParser

GRIDCHECK, ROOT, WORK, PART = [os.path.abspath(a) for a in sys.argv[1:4]] + [sys.argv[4]]
A1 = os.path.join(ROOT, "corpus", "s10_a1_rw_written_not_read.gc")  # vyre-0.7.2 diverges, sound matches
MILLION = os.path.join(ROOT, "tools", "html_cases", "a1_1m.gc")
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL " + what)


def chromium():
    path = os.environ.get("GRIDCHECK_CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")
    if not path:
        print("FAIL chromium not found: install it (tools/setup.sh installs Debian's chromium) or set GRIDCHECK_CHROMIUM")
        sys.exit(1)
    return path


def browser(page, *extra):
    """Runs headless chromium on `page` with no network and a throw-away profile; returns stdout."""
    profile = tempfile.mkdtemp(prefix="chromium-", dir=WORK)
    try:
        p = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                            "--disable-background-networking", "--disable-component-update", "--disable-sync",
                            f"--user-data-dir={profile}", "--virtual-time-budget=5000", *extra,
                            "file://" + os.path.abspath(page)], capture_output=True, timeout=120, cwd=WORK)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    check(p.returncode == 0, f"chromium {' '.join(extra)} {page}: exit {p.returncode}\n" + p.stderr.decode(errors="replace")[-2000:])
    return p.stdout.decode(errors="replace")


class Elements(HTMLParser):
    """Every start tag's attributes, and those with an id by id."""

    def __init__(self):
        super().__init__()
        self.tags = []
        self.by_id = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags.append((tag, a))
        if "id" in a:
            check(a["id"] not in self.by_id, f"the id {a['id']} occurs twice")
            self.by_id[a["id"]] = (tag, a)


def parse(dom):
    e = Elements()
    e.feed(dom)
    return e


def gridcheck(*args, rcs):
    p = subprocess.run([GRIDCHECK, *args], capture_output=True, cwd=WORK)
    check(p.returncode in rcs, f"gridcheck {' '.join(args)}: exit {p.returncode}, expected {rcs}\n"
          + p.stderr.decode(errors="replace")[-2000:])
    return p


def page_of(case, profile, name, rc):
    """Writes `case`'s page under `profile` (None: the default); returns its path and diff --json's split."""
    page = os.path.join(WORK, name + ".html")
    if os.path.exists(page):
        os.remove(page)
    extra = ["--profile", profile] if profile else []
    gridcheck("diff", case, *extra, "--html", page, rcs=(rc,))
    document = json.loads(gridcheck("diff", case, *extra, "--json", rcs=(rc,)).stdout)
    return page, document["splits"][0]


def store_line(case):
    """The 1-based line of the case's first store (`buf[...] = ...`) inside the kernel."""
    with open(case) as f:
        lines = f.read().split("\n")
    inside = False
    for n, text in enumerate(lines, 1):
        inside = inside or text.startswith("kernel {")
        if inside and re.match(r"^\s*buf\[[^\]]*\]\s*=", text):
            return n
    raise SystemExit(f"no store in {case}")


def check_divergent(page, split, case):
    expected = split["first_divergence"]["segment"]
    dom = browser(page, "--dump-dom")
    e = parse(dom)
    check(any(t == "body" and a.get("data-rendered") == "true" for t, a in e.tags), f"{page}: the page's script did not finish")
    mark = e.by_id.get("divergent-element")
    check(mark is not None, f"{page}: no #divergent-element after the scripts ran")
    if mark:
        a = mark[1]
        check(a.get("data-element") == str(expected["diff"]["element"]),
              f"{page}: #divergent-element marks element {a.get('data-element')}, diff --json says {expected['diff']['element']}")
        check(a.get("data-buffer") == expected["diff"]["buffer"], f"{page}: #divergent-element names buffer {a.get('data-buffer')}")
        check(expected["pass"] != 0 or a.get("data-launch") == str(expected["index"]),
              f"{page}: #divergent-element is on launch {a.get('data-launch')}, diff --json says segment {expected['index']} of pass 0")
        check(a.get("data-split-value") == str(expected["diff"]["actual"]) and
              a.get("data-reference-value") == str(expected["diff"]["expected"]),
              f"{page}: #divergent-element's values {a.get('data-split-value')} / {a.get('data-reference-value')}")
        check("data-last-written-launch" in a, f"{page}: #divergent-element does not say which launch wrote it last")
    statement = e.by_id.get("divergent-statement")
    check(statement is not None and statement[1].get("data-line") == str(store_line(case)),
          f"{page}: #divergent-statement is {statement and statement[1].get('data-line')}, expected line {store_line(case)}")
    check("no-divergence" not in e.by_id, f"{page}: a divergent page shows #no-divergence")
    return e


def divergent_part():
    page, split = page_of(A1, "vyre-0.7.2", "a1-vyre", 1)
    e = check_divergent(page, split, A1)
    # Self-contained: nothing the browser would fetch.
    for tag, a in e.tags:
        check(not (tag in ("script", "img", "iframe", "link", "object", "embed") and ("src" in a or "href" in a)),
              f"{page}: <{tag}> fetches {a.get('src') or a.get('href')}")
    with open(page) as f:
        text = f.read()
    check(not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//|url\(\s*["']?(https?:)?//|@import""", text),
          f"{page}: the page refers to an external resource")
    print(f"ok divergent: {os.path.getsize(page)} bytes")
    # Text from the case (comments, the file name) is escaped: markup in it neither ends the page's
    # data block nor runs.
    hostile = os.path.join(WORK, "a1 <b>&'quote\".gc")
    with open(A1) as f:
        text = f.read()
    payload = "</script><script>document.body.setAttribute('data-injected', '1')</script><!--"
    with open(hostile, "w") as f:
        f.write(f"# {payload}\n" + text.replace("case s10_a1_rw_written_not_read \"", f"case s10_a1_rw_written_not_read \"{payload} "))
    page, split = page_of(hostile, "vyre-0.7.2", "a1-hostile", 1)
    e = check_divergent(page, split, hostile)
    check(not any("data-injected" in a for _, a in e.tags), f"{page}: markup from the case ran")
    print("ok divergent: markup in the case's text and file name stays text")


def sound_part():
    page, split = page_of(A1, None, "a1-sound", 0)
    check(split["verdict"] == "match", f"the twin's split is {split['verdict']}, not match")
    e = parse(browser(page, "--dump-dom"))
    check(any(t == "body" and a.get("data-rendered") == "true" for t, a in e.tags), f"{page}: the page's script did not finish")
    check("no-divergence" in e.by_id, f"{page}: a sound page without #no-divergence")
    check("divergent-element" not in e.by_id and "divergent-statement" not in e.by_id, f"{page}: a sound page marks a divergence")
    check(not any("divergent-element" in a.get("class", "").split() for _, a in e.tags), f"{page}: a sound page has a .divergent-element")
    print("ok sound: #no-divergence and no mark")


def screenshot_part():
    page, _ = page_of(A1, "vyre-0.7.2", "a1-shot", 1)
    png = os.path.join(WORK, "a1-shot.png")
    if os.path.exists(png):
        os.remove(png)
    width, height = 1024, 768
    browser(page, f"--window-size={width},{height}", f"--screenshot={png}")
    check(os.path.isfile(png), f"chromium wrote no screenshot {png}")
    if not os.path.isfile(png):
        return
    with open(png, "rb") as f:
        data = f.read()
    check(data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR", f"{png} is not a PNG")
    w, h = struct.unpack(">II", data[16:24])
    check((w, h) == (width, height), f"{png} is {w}x{h}, not {width}x{height}")
    check(len(data) > 10000, f"{png} is {len(data)} bytes: an empty page?")
    print(f"ok screenshot: {w}x{h}, {len(data)} bytes")


def million_part(case=MILLION, name="a1-1m"):
    page, split = page_of(case, "vyre-0.7.2", name, 1)
    check(split["first_divergence"]["segment"]["diff"]["element"] == 1024, f"{case} no longer first diverges at element 1024")
    check_divergent(page, split, case)
    print(f"ok million: {os.path.basename(case)}, {os.path.getsize(page)} bytes")


def million_random_part():
    million_part(os.path.join(ROOT, "tools", "html_cases", "a1_1m_random.gc"), "a1-1m-random")


def gpu_part():
    """--backend gpu: the verdicts are H-gpu's, the grids H-cpu's; a planner divergence is still marked."""
    page = os.path.join(WORK, "a1-gpu.html")
    if os.path.exists(page):
        os.remove(page)
    gridcheck("diff", A1, "--profile", "vyre-0.7.2", "--backend", "gpu", "--html", page, rcs=(1,))
    split = json.loads(gridcheck("diff", A1, "--profile", "vyre-0.7.2", "--backend", "gpu", "--json", rcs=(1,)).stdout)["splits"][0]
    check(split["oracle"] == "H-gpu" and split["verdict"] == "diverge", f"diff --backend gpu: {split['oracle']} {split['verdict']}")
    with open(page) as f:
        e = parse(f.read())  # the table is written by gridcheck, no script needed
    check("no-divergence" not in e.by_id, f"{page}: an H-gpu divergence reported as none")
    first = e.by_id.get("first-divergence")
    check(first is not None and first[1].get("data-element") == str(split["first_divergence"]["final"]["element"]),
          f"{page}: #first-divergence is {first and first[1].get('data-element')}, H-gpu's first difference is "
          f"{split['first_divergence']['final']['element']}")
    print("ok gpu: H-gpu's divergence marked on the H-cpu grids")


os.makedirs(WORK, exist_ok=True)
{"divergent": divergent_part, "sound": sound_part, "screenshot": screenshot_part, "million": million_part,
 "million_random": million_random_part, "gpu": gpu_part}[PART]()
if failures:
    print(f"{len(failures)} failure(s)")
    sys.exit(1)
