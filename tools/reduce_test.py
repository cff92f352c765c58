#!/usr/bin/env python3
"""`gridcheck reduce --backend gpu` and `--interesting CMD` on real runs (docs/reduce.md), on lavapipe.

usage: reduce_test.py GRIDCHECK REPO_ROOT WORK_DIR TEST

gpu_only_divergence_shrinks            with the test fault (docs/reduce.md#test-fault), reduce --backend gpu
                                       shrinks tools/reduce_cases/gpu_only_xor_store.gc to a small case that
                                       still diverges on H-gpu only (diff --backend both), and not without it
gpu_twin_nothing_to_reduce             the twin without the xor store: exit 2, nothing to reduce
gpu_needs_the_fault                    the xor case without the fault: exit 2, nothing to reduce
interesting_script_shrinks             a sh script keeps the xor store: the result is that store alone and
                                       the script still exits 0 on it; the script's output is not shown
interesting_braces_and_output          CMD with {} and --interesting-output: the command's output on stderr
interesting_not_found                  a missing command: exit 2, status 127
interesting_original_not_interesting   CMD exits 1 on the original: exit 2 with the status
interesting_timeout                    CMD hangs: exit 2 after --interesting-timeout, well before the hang ends
interesting_timeout_during_reduction   CMD hangs on one candidate only (the grid halved): that candidate is
                                       killed at the timeout and counts as not interesting; reduction goes on
"""

import os
import re
import shutil
import subprocess
import sys
import time

GRIDCHECK, ROOT, WORK = [os.path.abspath(a) for a in sys.argv[1:4]]
TEST = sys.argv[4]
CASES = os.path.join(ROOT, "tools", "reduce_cases")
XOR_CASE = os.path.join(CASES, "gpu_only_xor_store.gc")
TWIN_CASE = os.path.join(CASES, "gpu_no_xor_store.gc")
FAULT = "store-xor-plus-one"
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def gridcheck(*args, fault=False, timeout=120):
    env = dict(os.environ)
    env.pop("GRIDCHECK_TEST_GPU_FAULT", None)
    if fault:
        env["GRIDCHECK_TEST_GPU_FAULT"] = FAULT
    start = time.monotonic()
    p = subprocess.run([GRIDCHECK, *args], capture_output=True, text=True, env=env, timeout=timeout)
    return p, time.monotonic() - start


def statements(reduced_path):
    """(before, after) from the header line reduce writes."""
    with open(reduced_path) as f:
        text = f.read()
    m = re.search(r"# reduced by gridcheck reduce from .* \((\d+) to (\d+) statements\)", text)
    if not m:
        failures.append(f"{reduced_path}: no 'reduced by' header:\n{text}")
        return 0, 0
    return int(m.group(1)), int(m.group(2))


def out_path(name):
    path = os.path.join(WORK, name)
    if os.path.exists(path):
        os.remove(path)
    return path


def report(p, label):
    return f"{label}: exit {p.returncode}\n--- stdout\n{p.stdout}\n--- stderr\n{p.stderr}"


def gpu_only_divergence_shrinks():
    small = out_path("gpu_small.gc")
    p, seconds = gridcheck("reduce", "--backend", "gpu", XOR_CASE, "-o", small, fault=True)
    check(p.returncode == 0, report(p, "reduce --backend gpu"))
    if p.returncode != 0:
        return
    check("keeping R:ok|H-cpu/sound:match:|H-gpu/sound:diverge:lowering/driver" in p.stderr, report(p, "signature"))
    check(re.search(r"H-gpu on .*shaders compiled", p.stderr) is not None, report(p, "cache summary"))
    before, after = statements(small)
    check(before >= 10 and after <= 3, f"expected at most 3 of {before} statements left, got {after}")
    check(" ^ " in open(small).read(), "the reduced case lost its xor store")
    both, _ = gridcheck("diff", "--backend", "both", small, fault=True)
    check(both.returncode == 1, report(both, "diff --backend both with the fault"))
    check(re.search(r"H-cpu +sound +match", both.stdout) is not None, report(both, "H-cpu matches"))
    check(re.search(r"H-gpu +sound +diverge +lowering/driver", both.stdout) is not None, report(both, "H-gpu diverges"))
    clean, _ = gridcheck("diff", "--backend", "both", small)
    check(clean.returncode == 0, report(clean, "diff --backend both without the fault"))
    print(f"reduce --backend gpu: {before} -> {after} statements in {seconds:.2f} s")
    print(p.stderr.splitlines()[-2] if len(p.stderr.splitlines()) >= 2 else p.stderr)


def nothing_to_reduce(case, fault):
    small = out_path("nothing.gc")
    p, _ = gridcheck("reduce", "--backend", "gpu", case, "-o", small, fault=fault)
    check(p.returncode == 2, report(p, "reduce --backend gpu"))
    check("nothing to reduce" in p.stderr and "H-gpu/sound:match" in p.stderr, report(p, "message"))
    check(not os.path.exists(small), "nothing to reduce but a file was written")


def gpu_twin_nothing_to_reduce():
    nothing_to_reduce(TWIN_CASE, fault=True)


def gpu_needs_the_fault():
    nothing_to_reduce(XOR_CASE, fault=False)


def write_script(name, body):
    path = os.path.join(WORK, name)
    with open(path, "w") as f:
        f.write(body)
    return path


def interesting_script_shrinks():
    script = write_script("has_xor.sh", "#!/bin/sh\necho looking at \"$1\"\necho complaining >&2\ngrep -q ' \\^ ' \"$1\"\n")
    small = out_path("script_small.gc")
    p, seconds = gridcheck("reduce", "--interesting", f"sh {script}", XOR_CASE, "-o", small)
    check(p.returncode == 0, report(p, "reduce --interesting"))
    if p.returncode != 0:
        return
    check("looking at" not in p.stdout + p.stderr and "complaining" not in p.stderr, report(p, "script output leaked"))
    before, after = statements(small)
    check(after == 2, f"expected the root block and the xor store (2 statements) of {before}, got {after}")
    check(re.search(r"^  \w+\[[^\]]+\] = .* \^ .*$", open(small).read(), re.M) is not None,
          "the reduced case has no xor store:\n" + open(small).read())
    again = subprocess.run(["sh", script, small], capture_output=True)
    check(again.returncode == 0, "the script does not find the xor in the result")
    m = re.search(r"(\d+) calls of the command", p.stderr)
    check(m is not None and int(m.group(1)) > 1, report(p, "calls"))
    print(f"reduce --interesting: {before} -> {after} statements in {seconds:.2f} s; {m.group(0) if m else ''}")


def interesting_braces_and_output():
    small = out_path("braces_small.gc")
    p, _ = gridcheck("reduce", "--interesting", "echo checking >&2; grep -q ' ^ ' {} && echo found",
                     "--interesting-output", "--max-attempts", "3", XOR_CASE, "-o", small)
    check(p.returncode == 0, report(p, "reduce --interesting with {}"))
    check("checking" in p.stderr and "found" in p.stderr, report(p, "command output on stderr"))
    check("found" not in p.stdout, report(p, "command output on stdout"))


def interesting_not_found():
    p, _ = gridcheck("reduce", "--interesting", "/nonexistent/gridcheck-interesting-test", XOR_CASE)
    check(p.returncode == 2, report(p, "missing command"))
    check("not interesting" in p.stderr and "status 127 (/bin/sh: command not found)" in p.stderr, report(p, "message"))
    check(p.stdout == "", report(p, "nothing on stdout"))


def interesting_original_not_interesting():
    p, _ = gridcheck("reduce", "--interesting", "grep -q no-such-text", XOR_CASE)
    check(p.returncode == 2, report(p, "uninteresting original"))
    check("the original case is not interesting: `grep -q no-such-text` exited with status 1" in p.stderr,
          report(p, "message"))


def interesting_timeout():
    p, seconds = gridcheck("reduce", "--interesting", "sleep 30; true", "--interesting-timeout", "1", XOR_CASE)
    check(p.returncode == 2, report(p, "hanging command"))
    check("timed out after 1 s" in p.stderr, report(p, "message"))
    check(seconds < 10, f"the timeout of 1 s took {seconds:.1f} s")


def interesting_timeout_during_reduction():
    # The first candidate halves the grid (2 -> 1); the command hangs on it and on nothing else.
    script = write_script("hangs_on_grid_1.sh", "#!/bin/sh\nif grep -q '^grid 1 1 1' \"$1\"; then sleep 30; fi\nexit 0\n")
    small = out_path("timeout_small.gc")
    p, seconds = gridcheck("reduce", "--interesting", f"sh {script}", "--interesting-timeout", "0.5",
                           "--max-attempts", "3", XOR_CASE, "-o", small)
    check(p.returncode == 0, report(p, "reduce with a hanging candidate"))
    if p.returncode != 0:
        return
    text = open(small).read()
    check(re.search(r"^grid 2 1 1$", text, re.M) is not None, "the candidate that timed out was kept:\n" + text)
    check(re.search(r"^workgroup_size [12] 1 1$", text, re.M) is not None, "reduction stopped at the timeout:\n" + text)
    check(0.5 <= seconds < 10, f"one timeout of 0.5 s, took {seconds:.1f} s")


def main():
    os.makedirs(WORK, exist_ok=True)
    tests = {f.__name__: f for f in [gpu_only_divergence_shrinks, gpu_twin_nothing_to_reduce, gpu_needs_the_fault,
                                     interesting_script_shrinks, interesting_braces_and_output, interesting_not_found,
                                     interesting_original_not_interesting, interesting_timeout,
                                     interesting_timeout_during_reduction]}
    if TEST not in tests:
        print(f"unknown test {TEST}; one of {', '.join(tests)}")
        return 2
    tests[TEST]()
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
