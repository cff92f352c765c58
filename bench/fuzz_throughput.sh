#!/bin/bash
# Fuzzing throughput (issue 18, item 4): cases per second of one `gridcheck fuzz` worker per target
# and backend (of --gpu-jobs workers feeding the one device on the gpu and both lines), each a
# fixed-seed, fixed-count campaign without shrinking, with the time by phase from `fuzz --json`
# "phases" (docs/campaigns.md, "Where the time goes") so the next bottleneck is visible. One line
# per campaign:
#
#   cpu sound          --profile sound --features all                    (H-cpu)
#   cpu vyre-0.7.2     --profile vyre-0.7.2 --features benign            (H-cpu)
#   dag                --target dag                                      (R, H-cpu, R-waves)
#   gpu vyre-0.7.2     --backend gpu --profile vyre-0.7.2 --features benign   } only when `gridcheck
#   both sound         --backend both --profile sound --features all          } devices` finds Vulkan
#
# Each line: cases, the median cases/s over RUNS processes (and the range), then microseconds per
# case of every phase that takes at least 1 % (from the median run; worker time, so with --gpu-jobs
# N > 1 it is summed over the N workers). Phases that are not timed (the campaign's bookkeeping) are
# `other`.
#
#   bench/fuzz_throughput.sh [--gridcheck PATH] [--cases N] [--gpu-cases N] [--gpu-jobs J] [--runs R] [--seed S]
#                            [--only NAME] [--cold]
#
# Defaults: build/tools/gridcheck, 3000 cases (300 with a GPU), 1 GPU job (`fuzz -j J` on the gpu
# and both lines, named `… -jJ` when J > 1; e.g. --gpu-jobs 16 on a 16-core GPU host), 3 runs,
# seed 5. --only runs the lines whose name contains NAME ("cpu", "dag", "gpu", "both", "sound"). The
# machine load (uptime) is printed first: on a shared machine the rates are only comparable at the
# same load; for a repeatable cost, count instructions with `valgrind --tool=callgrind` on the same
# command.
#
# Warm or cold: by default every run uses the same seed and the default cache directory, so on the gpu
# and both lines the runs after the first find their shaders in the SPIR-V cache file, the pipeline
# cache file and the driver's own cache (warm: what a repeated campaign, replay or reduction costs).
# --cold gives run r the seed S + 1000 r and --pipeline-cache off on those lines, so every shader is
# new to gridcheck and to the driver (what fuzzing new programs costs).
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
gridcheck="$here/../build/tools/gridcheck"
cases=3000
gpu_cases=300
gpu_jobs=1
runs=3
seed=5
only=""
cold=""
while [ $# -gt 0 ]; do
  case "$1" in
    --gridcheck) gridcheck="$2"; shift 2 ;;
    --cases) cases="$2"; shift 2 ;;
    --gpu-cases) gpu_cases="$2"; shift 2 ;;
    --gpu-jobs) gpu_jobs="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --cold) cold=1; shift ;;
    -h|--help) sed -n '2,33p' "$0"; exit 0 ;;
    *) echo "fuzz_throughput.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[[ "$gpu_jobs" =~ ^[1-9][0-9]*$ ]] || { echo "fuzz_throughput.sh: --gpu-jobs must be a positive count" >&2; exit 2; }
[ -x "$gridcheck" ] || { echo "missing $gridcheck: cmake --build build --target gridcheck" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

lines=(
  "cpu sound|$cases|1|--profile sound --features all"
  "cpu vyre-0.7.2|$cases|1|--profile vyre-0.7.2 --features benign"
  "dag|$cases|1|--target dag"
)
gpu_suffix=""
[ "$gpu_jobs" -gt 1 ] && gpu_suffix=" -j$gpu_jobs"
if "$gridcheck" devices --json >/dev/null 2>&1; then
  cache_flags=""
  [ -n "$cold" ] && cache_flags=" --pipeline-cache off" && gpu_suffix="$gpu_suffix cold"
  lines+=("gpu vyre-0.7.2$gpu_suffix|$gpu_cases|$gpu_jobs|--backend gpu --profile vyre-0.7.2 --features benign$cache_flags")
  lines+=("both sound$gpu_suffix|$gpu_cases|$gpu_jobs|--backend both --profile sound --features all$cache_flags")
else
  echo "# no Vulkan device (gridcheck devices): the gpu and both lines are left out"
fi

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load:$(uptime | sed 's/.*load average://'), seed $seed, $runs runs each"
for line in "${lines[@]}"; do
  IFS='|' read -r name count jobs flags <<<"$line"
  if [ -n "$only" ] && [[ "$name" != *"$only"* ]]; then continue; fi
  for ((r = 0; r < runs; ++r)); do
    out="$work/out-$r"
    rm -rf "$out"
    # Exit 1 (a finding) is a normal outcome of a campaign; anything else is not.
    # shellcheck disable=SC2086
    run_seed="$seed"
    [ -n "$cold" ] && [[ "$name" == gpu* || "$name" == both* ]] && run_seed=$((seed + 1000 * r))
    "$gridcheck" fuzz --json --no-shrink --seconds 0 --max-cases "$count" --seed "$run_seed" --jobs "$jobs" \
      --out "$out" $flags >"$work/run-$r.json" 2>"$work/run-$r.err" || {
      rc=$?
      if [ "$rc" -ne 1 ]; then
        echo "$name: gridcheck fuzz exited $rc" >&2
        cat "$work/run-$r.err" >&2
        exit 1
      fi
    }
  done
  python3 - "$name" "$work" "$runs" <<'EOF'
import json, statistics, sys
name, work, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
docs = [json.load(open(f"{work}/run-{r}.json")) for r in range(runs)]
rates = [d["cases"] / d["seconds"] if d["seconds"] > 0 else 0.0 for d in docs]
median = statistics.median(rates)
doc = min(docs, key=lambda d: abs((d["cases"] / d["seconds"] if d["seconds"] > 0 else 0.0) - median))
cases = max(doc["cases"], 1)
phases = doc.get("phases", {})  # absent before the phase timers
total = sum(phases.values()) or doc["seconds"] or 1.0
parts = [f"{k} {v / cases * 1e6:.0f}" for k, v in sorted(phases.items(), key=lambda kv: -kv[1]) if v / total >= 0.01]
findings = sum(v for k, v in doc["verdicts"].items() if k not in ("match",))
print(f"{name:<16} {doc['cases']:>6} cases  {median:>7.0f} cases/s ({min(rates):.0f}-{max(rates):.0f})  "
      f"{total / cases * 1e6:>6.0f} us/case: {', '.join(parts) or 'no phase times'}"
      + (f"  [not match: {findings}]" if findings else ""))
EOF
done
