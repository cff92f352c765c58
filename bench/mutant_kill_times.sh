#!/usr/bin/env bash
# Time to kill of the shape mutants by the fuzz oracle alone (docs/mutants.md, "Shape mutants"):
# for each mutant, R random seeds (printed) of a 60 s `gridcheck mutants --oracles fuzz` campaign,
# with every feature, then the same seeds with the mutant's shape feature removed
# (`--features all,-FEATURE`), which shows the shape is what kills it.
#
#   bench/mutant_kill_times.sh [--seconds 60] [--runs 3] [--gridcheck PATH] [--only NAME]...
#
# One line per mutant: the seeds, the time to kill per seed (or "-" for a survivor of the whole
# budget), the median, and the same with the feature removed. Exit 1 when a mutant survives a
# campaign with every feature, 2 on a usage error.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds=60 runs=3 gridcheck="$root/build/tools/gridcheck"
only=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --gridcheck) gridcheck="$2"; shift 2 ;;
    --only) only+=("$2"); shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "mutant_kill_times.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ -x "$gridcheck" ]] || { echo "mutant_kill_times.sh: no gridcheck at $gridcheck (build it, or --gridcheck PATH)" >&2; exit 2; }

# mutant:feature (the feature whose shape exposes it; "-" for a DAG mutant, whose shape is the
# campaign's reused scratch rather than a program feature).
table="grid-x-extent-only:multi_dim_grid scratch-sized-by-x:multi_dim_grid workgroup-copy-no-tail:workgroup_tail
fenced-loop-from-zero:loop_start fenced-if-else-dropped:fenced_else fenced-else-first-piece-only:fenced_else
fixpoint-capped-at-3:long_fixpoint convergence-period-two:long_fixpoint mk-scratch-edge-capacity:-"

kill_time() {  # mutant seed features -> seconds or "-"
  local features=()
  [[ -n "$3" ]] && features=(--features "$3")
  local json  # exit 1 is a survivor, which is an answer here
  json="$("$gridcheck" mutants --only "$1" --oracles fuzz --seconds-per-mutant "$seconds" --seed "$2" "${features[@]}" \
    --json 2>/dev/null)" || [[ $? -eq 1 ]] || { echo "mutant_kill_times.sh: gridcheck mutants failed on $1" >&2; exit 2; }
  python3 -c '
import json, sys
m = json.load(sys.stdin)["mutants"][0]
print("%.3f" % m["time_to_kill"] if m["killed"] else "-")' <<<"$json"
}

median() { python3 -c '
import statistics, sys
v = [float(x) for x in sys.argv[1:] if x != "-"]
print("%.3f" % statistics.median(v) if len(v) == len(sys.argv) - 1 else "survived %d of %d" % (len(sys.argv) - 1 - len(v), len(sys.argv) - 1))' "$@"; }

status=0
printf '%-30s %-15s %-34s %-12s %s\n' mutant feature "seconds to kill (seeds)" median "without the feature"
for entry in $table; do
  mutant="${entry%%:*}" feature="${entry#*:}"
  if [[ ${#only[@]} -gt 0 && ! " ${only[*]} " == *" $mutant "* ]]; then continue; fi
  seeds=() times=() ablated=()
  for ((r = 0; r < runs; r++)); do
    seeds+=("$(( (RANDOM << 16) ^ (RANDOM << 1) ^ RANDOM ))")
  done
  for s in "${seeds[@]}"; do times+=("$(kill_time "$mutant" "$s" "")"); done
  if [[ "$feature" != "-" ]]; then
    for s in "${seeds[@]}"; do ablated+=("$(kill_time "$mutant" "$s" "all,-$feature")"); done
  fi
  m="$(median "${times[@]}")"
  [[ "$m" == survived* ]] && status=1
  printf '%-30s %-15s %-34s %-12s %s\n' "$mutant" "$feature" "${times[*]} (${seeds[*]})" "$m" \
    "$([[ "$feature" == "-" ]] && echo "n/a" || echo "${ablated[*]}")"
done
exit $status
