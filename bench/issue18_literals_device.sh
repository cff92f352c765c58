#!/bin/bash
# Issue 18 on a GPU host, the call after session 29: `--gpu-literals visible` against hidden and
# all-hidden (session 31: hidden shows the literals that only steer; all-hidden is the rule before it)
# (the rate of a --backend both --features all campaign, cold and warm), a long cold campaign with literals
# visible and shrinking on (every divergence it finds is the driver's constant folding or ours: a
# finding either way, saved under OUT/literals-campaign), then the lines that move with the host's
# loan (the CPU lines of fuzz_throughput.sh base/new alternated, megakernel_vs_networkx.py three times).
#
#   bench/issue18_literals_device.sh DIST BASE [LONG_SECONDS [CASES]]
#
# DIST is a tools/make_device_dist.sh tree (DIST/bin/gridcheck is "new", DIST/lib its libraries,
# DIST/bin/megakernel_plan for the planner line); BASE another gridcheck binary for the CPU lines;
# LONG_SECONDS the long campaign's length (default 120), CASES the fixed-seed campaigns' (default
# 2000). -j is the host's core count. Files go to $OUT when set, else to a fresh directory; the
# summary is on stdout. The drivers' own disk caches are off (NVIDIA's __GL_SHADER_DISK_CACHE=0,
# Mesa's MESA_SHADER_CACHE_DISABLE=true), so "cold" means every shader new to the driver, even when
# the script runs again with the same seeds.
set -u
[ $# -ge 2 ] || { sed -n '2,16p' "$0"; exit 2; }
dist=$1; B=$2; long=${3:-120}; cases=${4:-2000}
N=$dist/bin/gridcheck
out=${OUT:-$(mktemp -d)}
jobs=$(nproc)
here="$(cd "$(dirname "$0")" && pwd)"
export LD_LIBRARY_PATH=$dist/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} PYTHONUNBUFFERED=1 __GL_SHADER_DISK_CACHE=0 \
  MESA_SHADER_CACHE_DISABLE=true
. "$here/device_lines.sh"
F=(fuzz --backend both --profile sound --features all --json)
uptime; echo "$jobs cores"; "$N" --version; "$N" devices | tail -2
echo "== seed 88101, $cases cases: visible cold, visible warm, hidden cold, all-hidden cold (a fresh XDG_CACHE_HOME each) $(date +%T)"
d=$(mktemp -d)
for i in 1 2; do
  XDG_CACHE_HOME=$d timeout 120 "$N" "${F[@]}" --max-cases "$cases" --seconds 0 --seed 88101 --no-shrink -j "$jobs" \
    --gpu-literals visible --out "$(mktemp -d)" > "$out/visible$i.json" 2> "$out/visible$i.err"
  campaign_rate "$out/visible$i.json" "visible run $i"
done
grep -m1 "H-gpu on" "$out/visible1.err" | cut -c1-160
XDG_CACHE_HOME=$(mktemp -d) timeout 120 "$N" "${F[@]}" --max-cases "$cases" --seconds 0 --seed 88101 --no-shrink -j "$jobs" \
  --gpu-literals hidden --out "$(mktemp -d)" > "$out/hidden1.json" 2> /dev/null
campaign_rate "$out/hidden1.json" "hidden run 1"
XDG_CACHE_HOME=$(mktemp -d) timeout 120 "$N" "${F[@]}" --max-cases "$cases" --seconds 0 --seed 88101 --no-shrink -j "$jobs" \
  --gpu-literals all-hidden --out "$(mktemp -d)" > "$out/allhidden1.json" 2> /dev/null
campaign_rate "$out/allhidden1.json" "all-hidden run 1"
echo "== $long s cold campaign, literals visible, shrinking on, seed 99001 $(date +%T)"
timeout -s INT $((long + 60)) "$N" "${F[@]}" --seconds "$long" --seed 99001 -j "$jobs" --pipeline-cache off \
  --gpu-literals visible --out "$out/literals-campaign" > "$out/long.json" 2> "$out/long.err"
echo "exit $?"; campaign_rate "$out/long.json" "visible $long s"
python3 -c "
import json, sys
for f in json.load(open(sys.argv[1])).get('failures', [])[:10]: print('  finding:', json.dumps(f)[:300])" "$out/long.json"
echo "== cold 15 s campaigns, --pipeline-cache off, new seeds: visible, hidden, all-hidden, twice $(date +%T)"
for m in visible hidden all-hidden visible hidden all-hidden; do
  s=$((89003 + RANDOM % 1000))
  timeout 60 "$N" "${F[@]}" --seconds 15 --seed $s --no-shrink -j "$jobs" --pipeline-cache off --gpu-literals $m \
    --out "$(mktemp -d)" > "$out/c.json" 2> /dev/null
  campaign_rate "$out/c.json" "$m seed $s"
done
echo "== vyre-0.7.2 benign on H-gpu, literals visible, 15 s $(date +%T)"
timeout 60 "$N" fuzz --backend gpu --profile vyre-0.7.2 --features benign --seconds 15 --seed 99002 -j "$jobs" \
  --pipeline-cache off --no-shrink --gpu-literals visible --json --out "$(mktemp -d)" > "$out/vyre.json" 2> /dev/null
campaign_rate "$out/vyre.json" "vyre-0.7.2 benign visible"
cpu_lines "$B" "$N"
[ -x "$dist/bin/megakernel_plan" ] && megakernel_lines "$dist/bin/megakernel_plan"
uptime; date +%T
