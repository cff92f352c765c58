#!/bin/bash
# What R's race detector costs: bench/interp_run's two kernels (lcg: one store per work-item to its
# own element; reduce: a workgroup-memory tree with 7 barriers per workgroup of 64) at several sizes,
# with and without race detection, each mode in its own process. Prints per kernel and size the
# best-of-REPEAT CPU time and the peak resident set of each mode, and their ratios (races / plain).
# The target (issue 16) is at most 1.5x in both.
#
#   bench/race_overhead.sh [BUILD_DIR] [SIZES...]   (BUILD_DIR defaults to ./build; sizes to
#                                                    65536 262144 1048576)
#   INTERP_RUN=/path/to/interp_run bench/race_overhead.sh   (measure another build, e.g. an older one)
#   REPEAT=N (default 5): repetitions inside each process; TRIALS=N (default 3): processes per
#   mode, the best time and the smallest peak RSS are kept (the machine is shared).
#
# Needs BUILD_DIR/bench/interp_run (cmake --build BUILD_DIR --target interp_run). Times are thread
# CPU seconds measured by interp_run; memory is interp_run's getrusage peak, taken after the
# interpreter runs and before its check against the native loop.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
shift || true
sizes=("$@")
if [ ${#sizes[@]} -eq 0 ]; then sizes=(65536 262144 1048576); fi
run="${INTERP_RUN:-$build/bench/interp_run}"
repeat="${REPEAT:-5}"
trials="${TRIALS:-3}"
[ -x "$run" ] || { echo "missing $run: cmake --build $build --target interp_run" >&2; exit 2; }

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# best KERNEL N MODE: "seconds max_rss_kb", best of TRIALS processes
best() {
  local t="" m="" line s r
  for _ in $(seq "$trials"); do
    line=$("$run" "$1" "$2" "$3" "$repeat")
    s=$(field seconds "$line")
    r=$(field max_rss_kb "$line")
    if [ -z "$t" ] || awk "BEGIN{exit !($s < $t)}"; then t=$s; fi
    if [ -z "$m" ] || [ "$r" -lt "$m" ]; then m=$r; fi
  done
  echo "$t $m"
}

printf "%-7s %9s | %10s %10s %7s | %10s %10s %7s\n" kernel n "plain s" "races s" "time x" "plain KB" "races KB" "mem x"
for kernel in lcg reduce; do
  for n in "${sizes[@]}"; do
    read -r pt pm < <(best "$kernel" "$n" interp)
    read -r rt rm < <(best "$kernel" "$n" interp-races)
    awk -v k="$kernel" -v n="$n" -v pt="$pt" -v rt="$rt" -v pm="$pm" -v rm="$rm" \
      'BEGIN { printf "%-7s %9d | %10.4f %10.4f %6.2fx | %10d %10d %6.2fx\n", k, n, pt, rt, rt / pt, pm, rm, rm / pm }'
  done
done
