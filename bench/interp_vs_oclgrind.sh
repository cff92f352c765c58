#!/bin/bash
# Compares the reference interpreter with Oclgrind (single-threaded) and with a native C++ loop on the
# two kernels of bench/README.md: `lcg` (8 LCG steps, 2 loads, 1 store per work-item) and `reduce`
# (local-memory tree reduction, 7 barriers per work-group of 64), at 65,536 / 262,144 / 1,048,576
# work-items, with and without race detection.
#
#   bench/interp_vs_oclgrind.sh [BUILD_DIR] [SIZES...]     (BUILD_DIR defaults to ./build)
#
# Needs BUILD_DIR/bench/interp_run (cmake --build BUILD_DIR --target interp_run) and oclgrind-kernel.
# Times are CPU seconds (user + sys): the machine is shared, so wall time would measure the
# neighbours. Oclgrind times are the best of 3 runs (seconds each), net of its start-up (the same
# kernel over 64 work-items); the interpreter's the best of the repetitions in one process that fill
# about a second (2^24 / n of them, at least 10: one takes milliseconds, so a burst of the neighbours
# could cover a few). Memory is
# the peak resident set of each process. Ratios: "x ocl" = interpreter speed / Oclgrind speed,
# "/ native" = interpreter time / native time (native: the same loop as C++, -O3, vectorised and
# not), "races t" and "races m" = time and memory with race detection / without.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
build="${1:-$here/../build}"
shift || true
sizes=("$@")
if [ ${#sizes[@]} -eq 0 ]; then sizes=(65536 262144 1048576); fi
run="$build/bench/interp_run"
[ -x "$run" ] || { echo "missing $run: cmake --build $build --target interp_run" >&2; exit 2; }
command -v oclgrind-kernel >/dev/null || { echo "oclgrind-kernel is not installed" >&2; exit 2; }

# field NAME LINE: the value of NAME=... in an interp_run line
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# ocl_run KERNEL N [--data-races]: prints "cpu_seconds max_rss_kb" for one oclgrind-kernel run
ocl_run() {
  local kernel=$1 n=$2 extra=${3:-}
  local out
  out=$(cd "$here/oclgrind" && { /usr/bin/time -f "%U %S %M" oclgrind-kernel --num-threads 1 $extra "${kernel}_${n}.sim" >/dev/null; } 2>&1 | tail -1)
  awk '{printf "%.4f %d\n", $1 + $2, $3}' <<<"$out"
}

ocl_best() {  # best of 3 CPU times, with the peak RSS of the last run
  local best="" rss=0 t
  for _ in 1 2 3; do
    read -r t rss < <(ocl_run "$@")
    if [ -z "$best" ] || awk "BEGIN{exit !($t < $best)}"; then best=$t; fi
  done
  echo "$best $rss"
}

printf "%-7s %9s | %11s %11s %11s %11s | %8s %8s %8s | %7s %7s | %7s %7s | %9s %9s\n" \
  kernel n "ocl WI/s" "native WI/s" "scalar WI/s" "interp WI/s" "x ocl" "/native" "/scalar" \
  "races t" "races m" "ocl r.t" "ocl r.m" "interp MB" "races MB"
for kernel in lcg reduce; do
  read -r ocl_start _ < <(ocl_best "$kernel" 64)
  read -r ocl_start_races _ < <(ocl_best "$kernel" 64 --data-races)
  for n in "${sizes[@]}"; do
    read -r ocl_t ocl_rss < <(ocl_best "$kernel" "$n")
    read -r ocl_rt ocl_rrss < <(ocl_best "$kernel" "$n" --data-races)
    native=$("$run" "$kernel" "$n" native 5)
    if [ "$kernel" = lcg ]; then scalar=$("$run" "$kernel" "$n" native-scalar 5); else scalar=$native; fi
    reps=$((16777216 / n)); [ "$reps" -ge 10 ] || reps=10  # about a second of repetitions
    interp=$("$run" "$kernel" "$n" interp "$reps")
    races=$("$run" "$kernel" "$n" interp-races "$reps")
    awk -v k="$kernel" -v n="$n" \
        -v ot="$ocl_t" -v os="$ocl_start" -v ort="$ocl_rt" -v ors="$ocl_start_races" \
        -v orss="$ocl_rss" -v orrss="$ocl_rrss" \
        -v nt="$(field seconds "$native")" -v st="$(field seconds "$scalar")" \
        -v it="$(field seconds "$interp")" -v rt="$(field seconds "$races")" \
        -v im="$(field max_rss_kb "$interp")" -v rm="$(field max_rss_kb "$races")" '
      BEGIN {
        oc = ot - os; if (oc <= 0) oc = ot
        orc = ort - ors; if (orc <= 0) orc = ort
        printf "%-7s %9d | %11.3g %11.3g %11.3g %11.3g | %7.0fx %7.1fx %7.1fx | %6.2fx %6.2fx | %6.2fx %6.2fx | %9.1f %9.1f\n",
          k, n, n / oc, n / nt, n / st, n / it, oc / it, it / nt, it / st, rt / it, rm / im, orc / oc, orrss / orss,
          im / 1024, rm / 1024
      }'
  done
done
