#!/usr/bin/env bash
# Line and branch coverage of planner/ by one sound fuzz campaign (bench/README.md "Planner
# coverage of a fuzz campaign", docs/building.md §10).
#
#   bench/fuzz_coverage.sh [--seconds 60] [--seed 1] [--jobs 1] [--build DIR] [--no-build]
#                          [--uncovered] [-- extra gridcheck fuzz arguments]
#
# Configures DIR (default build-coverage/, or $GRIDCHECK_COVERAGE_BUILD) as a Debug tree with
# GRIDCHECK_COVERAGE=ON unless it already is one, builds the gridcheck target (nice; under flock
# on $GRIDCHECK_BUILD_LOCK when set), deletes the tree's old .gcda counts, runs
#   gridcheck fuzz --profile sound --features all --seconds N --seed S --jobs J --out <tmp>
# and reads the counts with `gcov --json-format`. It prints, per planner/ source file and in
# total, the lines and branches executed, then the totals of the sound profile's files and of the
# split machinery, and (--uncovered) the line ranges of those files that no case reached.
# Branches leave out gcov's exception edges (a call that may throw), as gcovr's
# --exclude-throw-branches does; lines are those gcov counts (code, not comments or braces alone).
# Exits with the campaign's status when it is 1 (a finding: the shrunk case is in the --out
# folder, printed) after printing the coverage, 2 on a usage or build error.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds=60 seed=1 jobs=1 build="${GRIDCHECK_COVERAGE_BUILD:-$root/build-coverage}" do_build=1 uncovered=0
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --build) build="$2"; shift 2 ;;
    --no-build) do_build=0; shift ;;
    --uncovered) uncovered=1; shift ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fuzz_coverage.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
command -v gcov >/dev/null || { echo "fuzz_coverage.sh: gcov not found (it comes with g++)" >&2; exit 2; }

if [[ $do_build -eq 1 ]]; then
  if ! grep -q '^GRIDCHECK_COVERAGE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DGRIDCHECK_COVERAGE=ON \
      -DGRIDCHECK_BUILD_TESTS=OFF -DGRIDCHECK_BUILD_BENCH=OFF >/dev/null || exit 2
  fi
  lock=()
  [[ -n "${GRIDCHECK_BUILD_LOCK:-}" ]] && lock=(flock "$GRIDCHECK_BUILD_LOCK")
  "${lock[@]}" nice -n 10 cmake --build "$build" --target gridcheck >/dev/null || {
    echo "fuzz_coverage.sh: building gridcheck in $build failed" >&2; exit 2; }
fi
gridcheck="$build/tools/gridcheck"
[[ -x "$gridcheck" ]] || { echo "fuzz_coverage.sh: no $gridcheck (drop --no-build)" >&2; exit 2; }
grep -q '^GRIDCHECK_COVERAGE:BOOL=ON' "$build/CMakeCache.txt" ||
  { echo "fuzz_coverage.sh: $build is not a GRIDCHECK_COVERAGE=ON tree" >&2; exit 2; }

find "$build" -name '*.gcda' -delete
out="$(mktemp -d "${TMPDIR:-/tmp}/gridcheck-coverage.XXXXXX")"
echo "campaign: gridcheck fuzz --profile sound --features all --seconds $seconds --seed $seed --jobs $jobs ${extra[*]:-}" >&2
status=0
"$gridcheck" fuzz --profile sound --features all --seconds "$seconds" --seed "$seed" --jobs "$jobs" \
  --out "$out/fuzz-out" "${extra[@]}" >"$out/fuzz.log" 2>&1 || status=$?
grep -E 'cases|finding|failure' "$out/fuzz.log" | tail -3 >&2 || true
if [[ $status -ne 0 && $status -ne 1 ]]; then
  cat "$out/fuzz.log" >&2
  echo "fuzz_coverage.sh: the campaign exited $status" >&2
  exit "$status"
fi
[[ $status -eq 1 ]] && echo "fuzz_coverage.sh: the campaign found something: $out/fuzz-out" >&2

find "$build" -name '*.gcda' -print0 | (cd "$out" && xargs -0 gcov --json-format --stdout --branch-probabilities 2>/dev/null) \
  >"$out/gcov.jsonl"
python3 - "$root" "$out/gcov.jsonl" "$uncovered" <<'PY'
import json, os, sys
root, data, show_uncovered = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
planner = os.path.join(root, "planner") + os.sep
lines = {}     # file -> {line: executed}
branches = {}  # file -> {(line, function, index): executed}
for text in open(data):
    text = text.strip()
    if not text:
        continue
    for f in json.loads(text)["files"]:
        path = os.path.normpath(f["file"] if os.path.isabs(f["file"]) else os.path.join(root, f["file"]))
        if not path.startswith(planner) or path.endswith("_test.cpp") or os.sep + "testing" + os.sep in path:
            continue
        name = os.path.relpath(path, root)
        ls, bs = lines.setdefault(name, {}), branches.setdefault(name, {})
        for l in f["lines"]:
            n = l["line_number"]
            ls[n] = ls.get(n, False) or l["count"] > 0
            for i, b in enumerate(l["branches"]):
                if b["throw"]:
                    continue
                key = (n, l.get("function_name", ""), i)
                bs[key] = bs.get(key, False) or b["count"] > 0

def counts(files):
    lh = sum(sum(lines[f].values()) for f in files); lt = sum(len(lines[f]) for f in files)
    bh = sum(sum(branches[f].values()) for f in files); bt = sum(len(branches[f]) for f in files)
    return lh, lt, bh, bt

def pct(h, t):
    return f"{100.0 * h / t:5.1f} %" if t else "    - "

def row(label, files):
    lh, lt, bh, bt = counts(files)
    print(f"| {label} | {lh}/{lt} | {pct(lh, lt)} | {bh}/{bt} | {pct(bh, bt)} |")

files = sorted(f for f in lines if lines[f])
base = lambda f: os.path.basename(f)
sound = [f for f in files if base(f).startswith("sound_") and f.endswith(".cpp") or base(f) in (
    "uniform_fence_lowering.cpp", "local_spill.cpp", "workgroup_spill.cpp", "return_guard.cpp",
    "spill_layout.cpp", "exact_convergence.cpp")]
split = [f for f in files if base(f) in ("segment_plan.cpp", "fence_split.cpp", "split_dispatch.cpp",
                                          "live_buffers.cpp", "role_rule.cpp", "buffer_scan.cpp")]
print("| file | lines | line % | branches | branch % |")
print("|---|---|---|---|---|")
for f in files:
    row(f, [f])
row("**planner/ total**", files)
row("**sound profile files**", sound)
row("**split machinery**", split)

def ranges(ns):
    out, start, prev = [], None, None
    for n in ns:
        if start is not None and n == prev + 1:
            prev = n
            continue
        if start is not None:
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
        start = prev = n
    if start is not None:
        out.append(f"{start}" if start == prev else f"{start}-{prev}")
    return out

if show_uncovered:
    print("\nuncovered lines (sound profile files, then the split machinery):")
    for f in sound + split:
        missed = sorted(n for n, hit in lines[f].items() if not hit)
        print(f"{f}: {', '.join(ranges(missed)) if missed else 'none'}")
PY
exit "$status"
