#!/bin/sh
# The main job: build gridcheck, replay the regression corpus against its recorded verdicts (R, H-cpu
# and, on the default Vulkan device, H-gpu in host and resident mode), then a short differential fuzz
# campaign of the default planner profile, `sound`, with every generator feature in any combination,
# R vs H-cpu vs H-gpu on the same device (the first discrete GPU, else lavapipe), one worker per core
# feeding it (docs/campaigns.md, "Several jobs"). The sound profile must equal R (or refuse) on every generated case, so
# any finding fails the job (exit 1); failures are saved under fuzz-out/. Each run of the job is a
# fresh campaign: the previous run's fuzz-out/ (and its resume state, docs/campaigns.md) is removed
# first, so a finding of an earlier run can never be skipped as already seen.
set -eu
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null
cmake --build --preset default
build/tools/gridcheck replay -q corpus
rm -rf fuzz-out fuzz-out-vyre
build/tools/gridcheck fuzz --seconds "${GRIDCHECK_FUZZ_SECONDS:-30}" --seed "${GRIDCHECK_FUZZ_SEED:-1}" \
  --profile sound --features all --backend both --jobs 0 --out fuzz-out
# vyre-0.7.2 is the system under test: its docs/vyre-0.7.2.md §10 divergences are expected findings, so this optional
# campaign (GRIDCHECK_VYRE_SECONDS=60) reports them (exit 1 means "divergences found") without failing.
if [ "${GRIDCHECK_VYRE_SECONDS:-0}" -gt 0 ]; then
  status=0
  build/tools/gridcheck fuzz --seconds "$GRIDCHECK_VYRE_SECONDS" --seed "${GRIDCHECK_FUZZ_SEED:-1}" \
    --profile vyre-0.7.2 --out fuzz-out-vyre || status=$?
  [ "$status" -le 1 ] || exit "$status"
fi
