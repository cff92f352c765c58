# Shared by the GPU host scripts (issue18_device.sh, issue18_literals_device.sh, gpu_cold_ab.sh);
# source it, with $here the bench directory.
#
#   campaign_rate JSON LABEL   one line of a `fuzz --json` file: cases, seconds, cases/s, verdicts,
#                              failures, the phases over half a worker second
#   cpu_lines BASE NEW         fuzz_throughput.sh's cpu and dag lines, base/new alternated twice
#   megakernel_lines BINARY    megakernel_vs_networkx.py three times (10k, 100k, 1M rows)
campaign_rate() {
  python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(sys.argv[2], d['cases'], 'cases in', round(d['seconds'], 1), 's:', round(d['cases'] / d['seconds'], 1), 'cases/s',
      d['verdicts'], len(d.get('failures', [])), 'failures',
      {k: round(v, 1) for k, v in d['phases'].items() if v > 0.5})" "$1" "$2"
}

cpu_lines() {
  echo "== CPU lines (base, new, base, new) $(date +%T)"
  for g in "$1" "$2" "$1" "$2"; do
    echo "-- $g"
    timeout 60 bash "$here/fuzz_throughput.sh" --gridcheck "$g" --runs 3 --only cpu 2>&1 | grep -v "^#" | tail -2
    timeout 30 bash "$here/fuzz_throughput.sh" --gridcheck "$g" --runs 3 --only dag 2>&1 | grep -v "^#" | tail -1
  done
}

megakernel_lines() {
  echo "== megakernel planner against networkx, three times $(date +%T)"
  for i in 1 2 3; do
    timeout 100 python3 "$here/megakernel_vs_networkx.py" --binary "$1" --repeat 10 2>&1 | tail -4
  done
}
