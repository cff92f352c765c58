#!/bin/sh
# The main job: builds gridcheck, then checks every corpus case (validate + canonical print).
# Later issues grow this into the differential run of the corpus plus a short fuzz campaign.
set -eu
cd "$(dirname "$0")/.."
cmake --preset default >/dev/null
cmake --build --preset default
status=0
for f in corpus/*.gc; do
  build/tools/gridcheck fmt "$f" >/dev/null || status=1
done
build/tools/gridcheck validate corpus/*.gc || true
exit $status
