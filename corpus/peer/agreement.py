#!/usr/bin/env python3
"""Peer agreement: the peer tool's verdict against R's, for every peer case (docs/peer-suite.md).

Every case under corpus/peer/ records the peer's expected verdict in a `meta peer_expect
"<verdict> <error count>"` line. This script runs R on each case as `gridcheck replay` does
(`gridcheck diff --json`: the race detector, then a second run under the reversed schedule) and
prints, per case, the peer's verdict, R's verdict now, R's race detector alone (the races
`gridcheck run --json` lists, in-order schedule) and whether the peer and R agree, then the agreement count. When R's
verdict differs from the case's recorded `expect R:` line, the row says so: R changed since the
case was recorded (re-record it with `gridcheck replay --update FILE`).

    python3 corpus/peer/agreement.py                    # every case under corpus/peer/
    python3 corpus/peer/agreement.py corpus/peer/oclgrind --gridcheck build/tools/gridcheck
    python3 corpus/peer/agreement.py --recorded         # the recorded `expect R:` lines, no runs
    python3 corpus/peer/agreement.py --json             # one JSON object

Exit 0 after a measurement (whatever the agreement), 2 on bad usage or an unreadable case.
"""

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Which R verdicts (verdict and detail, as in an `expect R:` line) agree with each peer verdict.
AGREES = {
    "ok": lambda v, d: v == "ok",
    "race": lambda v, d: v == "invalid" and d == "race",
    # A run-time divergence, or the validator's refusal of a barrier under divergent control.
    "barrier_divergence": lambda v, d: v == "invalid" and d in ("divergence", "V010", "G003"),
    # A store into a read-only buffer (V063); a load from a write_only buffer is defined in R.
    "access_mode": lambda v, d: v == "invalid" and d in ("V063",),
    "out_of_bounds": lambda v, d: v == "invalid" and d == "oob",
    "uninitialized": lambda v, d: v == "invalid" and d == "uninit",
}

PEER_EXPECT = re.compile(r'^meta\s+peer_expect\s+"?([A-Za-z_]+)\s+(\d+)"?\s*$')
EXPECT_R = re.compile(r"^expect\s+R\s*:\s*(\S+)(?:\s+(.*?))?\s*$")


def case_files(paths):
    files = []
    for path in paths:
        if os.path.isdir(path):
            for dirpath, _, names in os.walk(path):
                files += [os.path.join(dirpath, n) for n in names if n.endswith(".gc")]
        elif path.endswith(".gc"):
            files.append(path)
        else:
            sys.exit(f"agreement.py: {path} is neither a directory nor a .gc file")
    return sorted(files)


def read_case(path):
    peer = recorded = None
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = PEER_EXPECT.match(line.strip())
            if m:
                peer = (m.group(1), int(m.group(2)))
            m = EXPECT_R.match(line.strip())
            if m:
                recorded = (m.group(1), m.group(2) or "")
    return peer, recorded


def run_json(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    try:
        return json.loads(p.stdout)
    except json.JSONDecodeError:
        sys.exit(f"agreement.py: `{' '.join(cmd)}` printed no JSON (exit {p.returncode}):\n{p.stderr}")


def r_now(gridcheck, path):
    """R's verdict as `gridcheck replay` judges it, and the race detector's alone.

    `gridcheck run` gives the same verdict as `diff` (both run the detector and a second schedule);
    a difference is an error of gridcheck's. The detector alone is read from run's `races` list.
    """
    ref = run_json([gridcheck, "diff", "--json", path])["reference"]
    run = run_json([gridcheck, "run", "--json", path])
    now = (ref["verdict"], ref.get("detail", ""))
    if (run["verdict"], run.get("detail", "")) != now:
        sys.exit(f"agreement.py: {path}: `gridcheck run` says {run['verdict']} {run.get('detail', '')}, "
                 f"`gridcheck diff` says {now[0]} {now[1]}: every command must give one verdict")
    if run.get("races"):
        detector = ("invalid", "race")
    elif run.get("detail") in ("race", "nondeterministic"):
        detector = ("ok", "")  # only the second schedule saw it
    else:
        detector = now
    return now, detector


def words(verdict):
    return " ".join(w for w in verdict if w) if verdict else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*", default=[HERE], help="case files or directories (default: corpus/peer/)")
    ap.add_argument("--gridcheck", default=os.environ.get("GRIDCHECK", os.path.join(ROOT, "build", "tools", "gridcheck")),
                    help="the gridcheck binary (default: $GRIDCHECK, else build/tools/gridcheck)")
    ap.add_argument("--recorded", action="store_true", help="use the recorded `expect R:` lines instead of running R")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    if not args.recorded and not os.access(args.gridcheck, os.X_OK):
        sys.exit(f"agreement.py: no gridcheck binary at {args.gridcheck} (build it, or pass --gridcheck or --recorded)")

    rows = []
    for path in case_files(args.paths):
        peer, recorded = read_case(path)
        if peer is None:
            continue  # not a peer case
        if peer[0] not in AGREES:
            sys.exit(f"agreement.py: {path}: unknown peer verdict '{peer[0]}' (known: {', '.join(AGREES)})")
        if args.recorded:
            if recorded is None:
                sys.exit(f"agreement.py: {path}: no `expect R:` line")
            now, detector = recorded, None
        else:
            now, detector = r_now(args.gridcheck, path)
        rows.append({
            "file": os.path.relpath(path, ROOT),
            "case": os.path.splitext(os.path.basename(path))[0],
            "peer": peer[0],
            "peer_errors": peer[1],
            "r": words(now),
            "r_detector": words(detector) if detector else None,
            "r_recorded": words(recorded),
            "changed": recorded is not None and tuple(recorded) != tuple(now),
            "agree": AGREES[peer[0]](now[0], now[1]),
            "agree_detector": AGREES[peer[0]](detector[0], detector[1]) if detector else None,
        })

    agree = sum(r["agree"] for r in rows)
    agree_detector = None if args.recorded else sum(bool(r["agree_detector"]) for r in rows)
    if args.json:
        print(json.dumps({"cases": rows, "agree": agree, "agree_detector": agree_detector, "total": len(rows)},
                         indent=2))
        return 0
    width = max([len(r["case"]) for r in rows] + [4])
    head = f"{'case':<{width}}  {'peer (errors)':<24}  {'R now':<24}"
    if not args.recorded:
        head += f"  {'R detector alone':<16}"
    print(head + "  agree")
    for r in rows:
        line = f"{r['case']:<{width}}  {r['peer'] + ' (' + str(r['peer_errors']) + ')':<24}  {r['r']:<24}"
        if not args.recorded:
            line += f"  {r['r_detector']:<16}"
        line += "  " + ("yes" if r["agree"] else "no")
        if r["changed"]:
            line += f"  (recorded: {r['r_recorded']}; R changed since, re-record with gridcheck replay --update)"
        print(line)
    print(f"agreement: {agree} of {len(rows)} cases")
    if agree_detector is not None:
        print(f"agreement of the race detector alone (no second schedule): {agree_detector} of {len(rows)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
