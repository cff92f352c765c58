#!/usr/bin/env bash
# Validator time against program size (issue 20, item 3): `gridcheck validate` on generated kernels
# of 50k, 100k, 200k and 400k statements.
#
#   bench/validator_scaling.sh [--gridcheck PATH] [--shape lets|mixed] [--runs N] [SIZE...]
#
# Shapes: `lets` (default) is one long chain `let v[i] = v[i-1] + v[i/2]`, every use reaching back
# into a scope of i locals; `mixed` repeats groups of 11 statements (lets, an assignment, a store,
# an if with its own let, a loop with a barrier and a uniform early return). Each file is written
# once to a temporary folder; the time printed is the best of --runs (default 3) wall-clock runs of
# the whole command (reading, parsing and validating), with the file's size and the validate exit
# status (0: valid). The CLI must be built (cmake --build build --target gridcheck); exit 2 when it
# is missing or on a usage error.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
gridcheck="$root/build/tools/gridcheck" shape=lets runs=3
sizes=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --gridcheck) gridcheck="$2"; shift 2 ;;
    --shape) shape="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    -h|--help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "validator_scaling.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    *) sizes+=("$1"); shift ;;
  esac
done
[[ ${#sizes[@]} -gt 0 ]] || sizes=(50000 100000 200000 400000)
[[ -x "$gridcheck" ]] || { echo "validator_scaling.sh: $gridcheck not found; build the gridcheck target" >&2; exit 2; }
[[ "$shape" == lets || "$shape" == mixed ]] || { echo "validator_scaling.sh: unknown shape '$shape'" >&2; exit 2; }
command -v python3 >/dev/null || { echo "validator_scaling.sh: python3 not found" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# generate N SHAPE FILE: a case file whose kernel has about N statements.
generate() {
  python3 - "$1" "$2" "$3" <<'EOF'
import sys
n, shape, path = int(sys.argv[1]), sys.argv[2], sys.argv[3]
out = ['case validator_scaling "generated for bench/validator_scaling.sh"', '', 'workgroup_size 64 1 1',
       'grid 1 1 1', '', 'buffer out: u32[64] read_write binding 0', 'buffer inp: u32[64] read binding 1', '',
       'kernel {']
if shape == 'lets':
    out.append('  let v0 = gid.x')
    out += [f'  let v{i} = v{i - 1} + v{i // 2}' for i in range(1, n - 1)]
    out.append(f'  out[0] = v{n - 2}')
else:
    out += ['  let c = 5', '  let a0 = gid.x']
    i = 1
    while 11 * i < n:
        out += [f'  let a{i} = a{i - 1} + c', f'  a{i} = a{i} + a0', f'  out[a{i} % 64] = a{i}',
                f'  if a{i} > 3 {{ let t{i} = a{i} + inp[0]; out[0] = t{i} }}',
                f'  loop j{i} in 0..4 {{ barrier; let u{i} = j{i} + c; if c > 1 {{ return }} }}']
        i += 1
out.append('}')
with open(path, 'w') as f:
    f.write('\n'.join(out) + '\n')
EOF
}

# validate_once FILE: runs the CLI once, leaving its exit status in $work/status.
validate_once() {
  local status=0
  "$gridcheck" validate "$1" >/dev/null 2>&1 || status=$?
  echo "$status" >"$work/status"
}

TIMEFORMAT=%R
printf '%-10s %-6s %10s %9s %s\n' statements shape bytes seconds status
for n in "${sizes[@]}"; do
  file="$work/$shape-$n.gc"
  generate "$n" "$shape" "$file"
  best=""
  for ((r = 0; r < runs; ++r)); do
    t=$( { time validate_once "$file"; } 2>&1 )
    best=$(awk -v t="$t" -v b="$best" 'BEGIN { print (b == "" || t < b) ? t : b }')
  done
  printf '%-10s %-6s %10s %9s %s\n' "$n" "$shape" "$(stat -c %s "$file")" "$best" "$(cat "$work/status")"
done
