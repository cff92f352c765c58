#!/usr/bin/python3
"""Times gridcheck's megakernel barrier planner against networkx.topological_generations.

Both get the same DAGs: `waves` waves, each wave w > 0 depending on `--per-wave` random earlier
waves drawn from the `--window` waves before it (seeded). What is timed on each side:
  - ours (bench/megakernel_plan, C++): plan_megakernel_barriers_with_scratch on the edge list in
    memory, so it includes validating the edges and building its CSR adjacency and in-degrees;
    parsing the file and sorting the groups for the comparison are outside the timing; min of
    max(--repeat, 3) runs with reused scratch (the first run sizes it);
  - networkx: list(topological_generations(g)) on a prebuilt DiGraph, which includes its in-degree
    map; building the DiGraph is reported separately and sorting the layers for the comparison is
    outside the timing; min of --repeat runs.
The layers are checked to be the same sets before the ratio is printed.

  /usr/bin/python3 bench/megakernel_vs_networkx.py --binary build-planner/bench/megakernel_plan
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

import networkx as nx


def make_dag(waves, per_wave, window, seed):
    rng = random.Random(seed)
    edges = []
    for w in range(1, waves):
        lo = max(0, w - window)
        for _ in range(per_wave):
            edges.append((rng.randrange(lo, w), w))
    return edges


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_binary = os.path.join(os.path.dirname(here), "build-planner", "bench", "megakernel_plan")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=default_binary)
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    ap.add_argument("--per-wave", type=int, default=4)
    ap.add_argument("--window", type=int, default=1024)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=20260812)
    args = ap.parse_args()
    if not os.path.exists(args.binary):
        sys.exit(f"missing {args.binary}: build the megakernel_plan target first")

    print(f"seed {args.seed}; replay: /usr/bin/python3 {' '.join(sys.argv)}")
    print(f"{'waves':>9} {'edges':>9} {'layers':>7} {'ours ms':>9} {'networkx ms':>12} {'nx build ms':>12} {'ratio':>8}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for waves in args.sizes:
            edges = make_dag(waves, args.per_wave, args.window, args.seed + waves)
            edge_path = os.path.join(tmp, f"dag{waves}.txt")
            groups_path = os.path.join(tmp, f"groups{waves}.txt")
            with open(edge_path, "w") as f:
                f.write(f"{waves} {len(edges)}\n")
                f.write("".join(f"{a} {b}\n" for a, b in edges))
            out = subprocess.run([args.binary, edge_path, "--repeat", str(max(args.repeat, 3)), "--groups", groups_path],
                                 check=True, capture_output=True, text=True).stdout
            ours = json.loads(out)

            t0 = time.perf_counter()
            g = nx.DiGraph()
            g.add_nodes_from(range(waves))
            g.add_edges_from(edges)
            build_ms = (time.perf_counter() - t0) * 1e3
            best = None
            generations = None
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                generations = list(nx.topological_generations(g))
                ms = (time.perf_counter() - t0) * 1e3
                best = ms if best is None else min(best, ms)
            # Sorted outside the timing, as the C++ side sorts its groups after planning.
            generations = [sorted(layer) for layer in generations]

            with open(groups_path) as f:
                our_groups = [[int(x) for x in line.split()] for line in f if line.strip()]
            if our_groups != generations:
                sys.exit(f"layers differ at {waves} waves")
            ratio = best / ours["plan_ms_min"]
            rows.append((waves, len(edges), len(generations), ours["plan_ms_min"], best, build_ms, ratio))
            print(f"{waves:>9} {len(edges):>9} {len(generations):>7} {ours['plan_ms_min']:>9.2f} {best:>12.1f} "
                  f"{build_ms:>12.1f} {ratio:>7.0f}x", flush=True)
            del g, generations, edges
    print("layers identical in every run; ratio = networkx topological_generations / our planner (min of runs)")


if __name__ == "__main__":
    main()
