#!/bin/bash
# Issue 18's figures on a GPU host in one go (the H200 host's call of session 29): the CPU lines of
# fuzz_throughput.sh base/new alternated, a --backend both --features all -j16 campaign cold then warm
# per binary (each in its own cache directory, NVIDIA's disk cache off), cold 15 s campaigns with
# --pipeline-cache off, the pipeline cache file at a 32 MiB cap twice in one directory, new pipelines
# per second by pipeline_create_bench, gpu_split_bench, and megakernel_vs_networkx.py three times.
#
#   bench/issue18_device.sh DIST BASE [SHADERS_DIR]
#
# DIST is a tools/make_device_dist.sh tree (DIST/bin/gridcheck is "new", DIST/lib its libraries);
# BASE another gridcheck binary to compare with; SHADERS_DIR the *.comp files for pipeline_create_bench
# (e.g. `gridcheck gen --seed 4242917 --count 100 --features all`, then `gridcheck export CASE --profile
# sound --bundle DIR` per case). Files of the campaigns go to $OUT when set, else to a fresh directory.
set -u
[ $# -ge 2 ] || { sed -n '2,14p' "$0"; exit 2; }
dist=$1; B=$2; shaders=${3:-}
N=$dist/bin/gridcheck
out=${OUT:-$(mktemp -d)}
export LD_LIBRARY_PATH=$dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} PYTHONUNBUFFERED=1
here="$(cd "$(dirname "$0")" && pwd)"
. "$here/device_lines.sh"
uptime; nproc; $N devices 2>&1 | head -2
cpu_lines "$B" "$N"
echo "== --backend both -j16, seed 88101, 2000 cases cold then warm, own cache dir per binary $(date +%T)"
export __GL_SHADER_DISK_CACHE=0
for g in $B $N; do
  b=$(basename "$g"); d=$(mktemp -d)
  for i in 1 2; do
    XDG_CACHE_HOME=$d timeout 90 "$g" fuzz --backend both --profile sound --features all --max-cases 2000 --seconds 0 \
      --seed 88101 --no-shrink -j16 --json --out "$(mktemp -d)" > "$out/w-$b-$i.json" 2> "$out/w-$b-$i.err"
    campaign_rate "$out/w-$b-$i.json" "$b run $i"
  done
done
echo "== cold 15 s, --pipeline-cache off, new seeds (base, new, base, new) $(date +%T)"
for g in $B $N $B $N; do
  s=$((88003 + RANDOM % 1000))
  timeout 40 "$g" fuzz --backend both --profile sound --features all --seconds 15 --seed $s --no-shrink -j16 \
    --pipeline-cache off --json --out "$(mktemp -d)" > "$out/c.json" 2> /dev/null
  campaign_rate "$out/c.json" "$(basename "$g") seed $s cold"
done
echo "== pipeline cache file at a 32 MiB cap, twice in one dir $(date +%T)"
d=$(mktemp -d)
for i in 1 2; do
  XDG_CACHE_HOME=$d timeout 90 "$N" fuzz --backend both --profile sound --features all --max-cases 1500 --seconds 0 \
    --seed 88002 --no-shrink -j16 --cache-max-mib 32 --json --out "$(mktemp -d)" > "$out/cap$i.json" 2> "$out/cap$i.err"
  grep -E "note|warning" "$out/cap$i.err" | head -3
  campaign_rate "$out/cap$i.json" "cap run $i"; ls -l "$d/gridcheck"
done
if [ -n "$shaders" ]; then
  echo "== pipeline creation $(date +%T)"
  timeout 150 "$dist/bin/pipeline_create_bench" --threads 1,16 "$shaders"/*.comp 2>&1 | tail -16
fi
echo "== split against a raw dispatch loop $(date +%T)"
timeout 90 "$dist/bin/gpu_split_bench" --segments 2,16,128 --bytes 4096 > "$out/split.txt" 2>&1; head -30 "$out/split.txt"
megakernel_lines "$dist/bin/megakernel_plan"
uptime; date +%T
