#!/bin/bash
# Cold `--backend both --features all` campaigns of several gridcheck binaries, alternated, so that
# their rates compare on one machine: every run starts from a fresh XDG_CACHE_HOME with
# `--pipeline-cache off` and the drivers' disk caches off (NVIDIA's __GL_SHADER_DISK_CACHE=0, Mesa's
# MESA_SHADER_CACHE_DISABLE=true), so every shader is new to gridcheck and to the driver.
#
#   bench/gpu_cold_ab.sh [--cases N] [--seed S] [--jobs J] [--rounds R] GRIDCHECK... [-- FUZZ_ARGS...]
#
# Each round runs every GRIDCHECK once, in the order given: `fuzz --backend both --profile sound
# --features all --json --max-cases N --seconds 0 --seed S --no-shrink -j J` plus FUZZ_ARGS (for
# example `--inputs-per-program 2`). Defaults: 2000 cases, seed 88101, the machine's cores, 2 rounds.
# One line per run: cases, seconds, cases/s, verdicts, failures, the phases' worker seconds; the JSON
# files stay in $OUT when it is set.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
cases=2000
seed=88101
jobs=$(nproc)
rounds=2
binaries=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cases) cases=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    -*) echo "gpu_cold_ab.sh: unknown option $1" >&2; exit 2 ;;
    *) binaries+=("$1"); shift ;;
  esac
done
[ ${#binaries[@]} -gt 0 ] || { sed -n '2,13p' "$0"; exit 2; }
out=${OUT:-$(mktemp -d)}
export __GL_SHADER_DISK_CACHE=0 MESA_SHADER_CACHE_DISABLE=true
. "$here/device_lines.sh"
n=0
for ((r = 1; r <= rounds; r++)); do
  for g in "${binaries[@]}"; do
    n=$((n + 1))
    XDG_CACHE_HOME=$(mktemp -d) "$g" fuzz --backend both --profile sound --features all --json --max-cases "$cases" \
      --seconds 0 --seed "$seed" --no-shrink -j "$jobs" --pipeline-cache off --out "$(mktemp -d)" "$@" \
      > "$out/run$n.json" 2> "$out/run$n.err"
    rc=$?  # 1 when the campaign found divergences: its JSON still counts them
    [ $rc -le 1 ] && [ -s "$out/run$n.json" ] || { echo "round $r $g: exit $rc, no report (see $out/run$n.err)"; continue; }
    campaign_rate "$out/run$n.json" "round $r $(basename "$g") -j$jobs $*"
  done
done
