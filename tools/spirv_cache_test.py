#!/usr/bin/env python3
"""The SPIR-V cache file through the CLI (docs/gpu.md, "SPIR-V cache file"): `gridcheck fuzz --backend both`
keeps the SPIR-V it compiled in --pipeline-cache DIR, and the same campaign run again compiles nothing.

usage: spirv_cache_test.py GRIDCHECK WORK_DIR TEST

reused     the second run of a fixed-seed campaign uses every shader of the file, compiles none, and
           reports the same verdicts as the first
damaged    the twin: a damaged file is ignored, so the second run compiles as many shaders as the first
           (with the same verdicts), and its save leaves a file the third run uses again
off        --pipeline-cache off writes neither file anywhere (not in $XDG_CACHE_HOME/gridcheck either)
"""

import os
import re
import shutil
import subprocess
import sys

GRIDCHECK, WORK = [os.path.abspath(a) for a in sys.argv[1:3]]
TEST = sys.argv[3]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def campaign(name, cache):
    """(compiles, SPIR-V cache file state, verdict summary) of one fixed-seed campaign."""
    out = os.path.join(WORK, name)
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = os.path.join(WORK, "xdg")
    p = subprocess.run([GRIDCHECK, "fuzz", "--backend", "both", "--profile", "sound", "--features", "all", "--seed", "5",
                        "--max-cases", "6", "--seconds", "0", "--no-shrink", "--pipeline-cache", cache, "--out", out],
                       capture_output=True, text=True, env=env, timeout=300)
    check(p.returncode == 0, f"{name}: exit {p.returncode}\n{p.stderr}")
    stats = re.search(r"H-gpu: (\d+) compiles .*SPIR-V cache file (.*)$", p.stderr, re.M)
    done = re.search(r"^done after [0-9.]+ s: (\d+) cases \([0-9]+/s\):(.*)$", p.stderr, re.M)
    if not stats or not done:
        failures.append(f"{name}: no stats or summary line:\n{p.stderr}")
        return 0, "", ""
    return int(stats.group(1)), stats.group(2), done.group(1) + done.group(2)


os.makedirs(WORK, exist_ok=True)
cache = os.path.join(WORK, "cache")
shutil.rmtree(cache, ignore_errors=True)
shutil.rmtree(os.path.join(WORK, "xdg"), ignore_errors=True)
if TEST == "reused":
    compiles, state, verdicts = campaign("first", cache)
    check(compiles > 0 and state == "new", f"the first run: {compiles} compiles, file {state!r}")
    again, state2, verdicts2 = campaign("second", cache)
    check(again == 0, f"the second run compiled {again} shaders")
    check(state2 == f"{compiles} of {compiles} shaders used", f"the second run's file: {state2!r} ({compiles} compiled first)")
    check(verdicts == verdicts2, f"verdicts differ: {verdicts!r} then {verdicts2!r}")
elif TEST == "damaged":
    compiles, _, verdicts = campaign("first", cache)
    path = os.path.join(cache, "spirv.bin")
    data = bytearray(open(path, "rb").read())
    data[len(data) // 2] ^= 0x20
    open(path, "wb").write(bytes(data))
    again, state, verdicts2 = campaign("second", cache)
    check(again == compiles and compiles > 0, f"a damaged file: {again} compiles against {compiles} the first time")
    check(state.startswith("ignored"), f"a damaged file was not ignored: {state!r}")
    check(verdicts == verdicts2, f"verdicts differ: {verdicts!r} then {verdicts2!r}")
    third, _, _ = campaign("third", cache)
    check(third == 0, f"the file the second run saved was not used: {third} compiles")
elif TEST == "off":
    compiles, state, _ = campaign("off", "off")
    check(compiles > 0 and state == "off", f"--pipeline-cache off: {compiles} compiles, file {state!r}")
    ours = os.path.join(WORK, "xdg", "gridcheck")  # the driver may keep its own cache next to it (Mesa does)
    written = [os.path.join(d, f) for d, _, fs in os.walk(ours) for f in fs]
    check(not written, f"--pipeline-cache off wrote {written}")
    check(not os.path.exists(cache), f"--pipeline-cache off made {cache}")
else:
    failures.append(f"unknown test {TEST}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
