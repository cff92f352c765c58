#!/usr/bin/env bash
# What each --gpu-literals policy costs the driver's compiler (docs/gpu.md#literals), in instructions, so
# that the figure does not move with the machine's load: the segment shaders of N generated `--features all`
# cases are exported as reproducer bundles under each policy (all-hidden, hidden, visible), and each bundle's
# runner (which creates every pipeline and dispatches it, where lavapipe compiles) runs under callgrind. A
# fourth set, the same shaders with empty bodies (only a barrier behind a condition the driver cannot
# know), is the floor: the instance, the device, the runner and a pipeline's fixed cost.
#
# usage: bench/literal_compile_cost.sh [--gridcheck PATH] [--cases N] [--seed S] [--jobs J]
# needs valgrind, glslangValidator (glslang-tools), cmake, libvulkan-dev and nlohmann-json3-dev; runs on
# the default Vulkan device (meant for lavapipe: on a GPU the compile happens in the driver's own threads).
set -euo pipefail

gridcheck=build/tools/gridcheck
cases=10
seed=777001
jobs=$(nproc)
while [ $# -gt 0 ]; do
  case "$1" in
    --gridcheck) gridcheck=$2; shift 2 ;;
    --cases) cases=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "literal_compile_cost.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
for tool in valgrind glslangValidator cmake; do
  command -v "$tool" >/dev/null || { echo "literal_compile_cost.sh: $tool is not installed" >&2; exit 2; }
done
gridcheck=$(realpath "$gridcheck")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export MESA_SHADER_CACHE_DISABLE=true  # every run compiles from scratch

"$gridcheck" gen --seed "$seed" --count "$cases" --features all --out "$work/gen" >/dev/null
for policy in all-hidden hidden visible; do
  mkdir -p "$work/$policy"
  for f in "$work"/gen/*.gc; do
    "$gridcheck" export --profile sound --gpu-literals "$policy" --bundle "$work/$policy/$(basename "$f" .gc)" "$f" >/dev/null
  done
done
# The floor: the hidden shaders with their bodies replaced.
cp -r "$work/hidden" "$work/empty"
for c in "$work"/empty/*/*.comp; do
  sed -i '/^void main() {$/,$d' "$c"
  printf 'void main() {\n  if (gl_GlobalInvocationID.x == 12345u && gc.zero == 7u) barrier();\n}\n' >>"$c"
  glslangValidator -V --target-env vulkan1.2 -o "${c%.comp}.spv" "$c" >/dev/null
done

first=$(ls -d "$work"/hidden/*/ | head -1)
cmake -S "$first" -B "$work/runner" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/runner" >/dev/null
runner="$work/runner/runner"

instructions() {  # total callgrind instructions of the runner over every bundle of $1, $jobs at a time
  local dir=$1 i=0
  for b in "$dir"/*/; do
    valgrind --tool=callgrind --smc-check=all-non-file --callgrind-out-file=/dev/null "$runner" "$b" \
      >"$b/run.out" 2>"$b/callgrind.log" &
    i=$((i + 1))
    if [ $((i % jobs)) = 0 ]; then wait; fi
  done
  wait
  cat "$dir"/*/callgrind.log | grep -o "Collected : [0-9]*" | awk '{s += $3} END {printf "%.0f\n", s}'  # %d stops at 2^31 in mawk
}

pipelines=$(ls "$work"/hidden/*/*.spv | wc -l)
floor=$(instructions "$work/empty")
printf '%d cases (seed %d), %d segment shaders; instructions of the runner over all bundles, and above the floor\n' \
  "$cases" "$seed" "$pipelines"
printf '%-12s %14s %14s %10s\n' policy "total (M)" "compile (M)" "vs all-hidden"
printf '%-12s %14.1f %14s %10s\n' "empty bodies" "$(echo "$floor / 1000000" | bc -l)" - -
base=""
for policy in all-hidden hidden visible; do
  total=$(instructions "$work/$policy")
  failed=$(grep -L "^PASS" "$work"/$policy/*/run.out | wc -l)
  above=$((total - floor))
  [ -n "$base" ] || base=$above
  printf '%-12s %14.1f %14.1f %9.2fx%s\n' "$policy" "$(echo "$total / 1000000" | bc -l)" \
    "$(echo "$above / 1000000" | bc -l)" "$(echo "$above / $base" | bc -l)" \
    "$([ "$failed" = 0 ] || echo "  ($failed bundles did not pass)")"
done
