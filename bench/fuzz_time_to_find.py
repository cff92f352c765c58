#!/usr/bin/env python3
"""Time for `gridcheck fuzz` to find each docs/vyre-0.7.2.md §10 divergence class of a profile, over several seeds.

For each seed runs one campaign (`gridcheck fuzz --json --seconds S --seed N --profile P`), takes the
first failure of every class (the class is the middle part of the failure signature; multi-class
signatures such as "A+A5" count for each class they name), and prints per class the median and worst
time to find it, how many seeds found it, and the median size of its shrunk case. Also prints the
programs per second of each campaign.

usage: bench/fuzz_time_to_find.py [--gridcheck build/tools/gridcheck] [--seeds 10] [--seconds 60]
                                  [--profile vyre-0.7.2] [--jobs 1] [--parallel 1]

--parallel P runs P campaigns (seeds) at once, each as its own process; give each one core
(P x jobs <= cores) or the per-seed times measure contention, not the fuzzer.
"""

import argparse
import concurrent.futures
import json
import statistics
import subprocess
import sys
import tempfile

CLASSES = ["A", "A4", "A5", "B1", "C1", "D", "F1", "G1", "G2", "G3", "G5"]


def run_campaign(args, seed):
    with tempfile.TemporaryDirectory() as out:
        cmd = [args.gridcheck, "fuzz", "--json", "--seconds", str(args.seconds), "--seed", str(seed),
               "--profile", args.profile, "--jobs", str(args.jobs), "--out", out]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode not in (0, 1):
            sys.exit(f"{' '.join(cmd)} exited {proc.returncode}:\n{proc.stderr}")
        return json.loads(proc.stdout)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gridcheck", default="build/tools/gridcheck")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--profile", default="vyre-0.7.2")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--parallel", type=int, default=1, help="campaigns run at once")
    args = parser.parse_args()

    found = {c: [] for c in CLASSES}  # class -> [(seconds, statements)]
    rates = []
    seeds = range(args.first_seed, args.first_seed + args.seeds)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.parallel)) as pool:
        reports = pool.map(lambda seed: (seed, run_campaign(args, seed)), seeds)
        for seed, report in reports:
            summarise(report, seed, found, rates)
    print_table(args, found, rates)


def summarise(report, seed, found, rates):
    """Adds one campaign's rate and first hit per class; prints its line."""
    rates.append(report["cases"] / max(report["seconds"], 1e-9))
    first = {}
    for f in report["failures"]:
        for c in f["class"].split("+"):
            if c in found and (c not in first or f["found_after_seconds"] < first[c][0]):
                first[c] = (f["found_after_seconds"], f["statements_after"])
    for c, hit in first.items():
        found[c].append(hit)
    print(f"seed {seed}: {report['cases']} cases in {report['seconds']:.1f} s "
          f"({rates[-1]:.0f}/s), classes {' '.join(sorted(first))}", flush=True)


def print_table(args, found, rates):
    print(f"\nprofile {args.profile}, {args.seeds} seeds x {args.seconds:g} s, jobs {args.jobs}; "
          f"parallel {args.parallel}; median {statistics.median(rates):.0f} cases/s")
    print(f"{'class':<6} {'found':>7} {'median s':>9} {'worst s':>8} {'median stmts':>13} {'max stmts':>10}")
    for c in CLASSES:
        hits = found[c]
        if not hits:
            print(f"{c:<6} {'0/' + str(args.seeds):>7} {'-':>9} {'-':>8} {'-':>13} {'-':>10}")
            continue
        times = [t for t, _ in hits]
        sizes = [s for _, s in hits]
        print(f"{c:<6} {f'{len(hits)}/{args.seeds}':>7} {statistics.median(times):>9.1f} {max(times):>8.1f} "
              f"{statistics.median(sizes):>13.0f} {max(sizes):>10}")


if __name__ == "__main__":
    main()
