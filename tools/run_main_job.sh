#!/bin/sh
# The main job: build gridcheck, replay the regression corpus against its recorded verdicts, then a
# short differential fuzz campaign. Failures found by the campaign are saved under fuzz-out/.
set -eu
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null
cmake --build --preset default
build/tools/gridcheck replay -q corpus
# vyre-0.7.2 is the system under test: its spec §10 divergences are expected findings, so this
# campaign reports them (exit 1 means "divergences found") without failing the job.
status=0
build/tools/gridcheck fuzz --seconds "${GRIDCHECK_FUZZ_SECONDS:-30}" --seed "${GRIDCHECK_FUZZ_SEED:-1}" \
  --profile vyre-0.7.2 --out fuzz-out || status=$?
[ "$status" -le 1 ] || exit "$status"
