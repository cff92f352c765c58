#!/usr/bin/env python3
"""`gridcheck fuzz -j N --backend both`: N workers feeding one Vulkan device (lavapipe in CI) find what
one worker finds (docs/campaigns.md, "Several jobs").

usage: fuzz_jobs_test.py GRIDCHECK REPO_ROOT WORK_DIR TEST

same_findings_j1_j2   with the test fault (docs/reduce.md#test-fault) H-gpu diverges; a fixed-seed
                      --max-cases campaign without shrinking reports the same cases, verdict counts and
                      finding signatures with -j1 and -j2, and the -j2 run used two workers
other_seed_differs    the twin: the same comparison between two seeds tells them apart (the comparison
                      can fail)
"""

import json
import os
import shutil
import subprocess
import sys

GRIDCHECK, ROOT, WORK = [os.path.abspath(a) for a in sys.argv[1:4]]
TEST = sys.argv[4]
FAULT = "store-xor-plus-one"
CASES = "16"
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


def campaign(name, seed, jobs):
    """The --json document of one campaign and its stderr."""
    out = os.path.join(WORK, name)
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ)
    env["GRIDCHECK_TEST_GPU_FAULT"] = FAULT
    p = subprocess.run([GRIDCHECK, "fuzz", "--json", "--backend", "both", "--profile", "sound", "--features", "all",
                        "--seed", str(seed), "--max-cases", CASES, "--seconds", "0", "--no-shrink", "-j", str(jobs),
                        "--pipeline-cache", "off", "--out", out],
                       capture_output=True, text=True, env=env, timeout=300)
    check(p.returncode in (0, 1), f"{name}: exit {p.returncode}\n{p.stderr}")
    try:
        return json.loads(p.stdout), p.stderr
    except json.JSONDecodeError:
        failures.append(f"{name}: no JSON document:\n{p.stdout}\n{p.stderr}")
        return {}, p.stderr


def outcome(doc):
    """What must not depend on the number of workers: the cases, the verdict counts, the signatures."""
    return (doc.get("cases"), doc.get("verdicts"), sorted(f["signature"] for f in doc.get("failures", [])))


os.makedirs(WORK, exist_ok=True)
if TEST == "same_findings_j1_j2":
    one, _ = campaign("j1", 11, 1)
    two, stderr = campaign("j2", 11, 2)
    check(one.get("failures"), f"no finding with the fault, nothing compared: {one}")
    check(outcome(one) == outcome(two), f"-j1 and -j2 differ:\n-j1 {outcome(one)}\n-j2 {outcome(two)}")
    check(", 2 jobs," in stderr, f"the -j2 run did not run two jobs:\n{stderr}")
elif TEST == "other_seed_differs":
    a, _ = campaign("seed11", 11, 1)
    b, _ = campaign("seed12", 12, 1)
    check(outcome(a) != outcome(b), f"seeds 11 and 12 report the same outcome, the comparison proves nothing: {outcome(a)}")
else:
    failures.append(f"unknown test {TEST}")

for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
