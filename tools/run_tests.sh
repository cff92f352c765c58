#!/bin/sh
# Configures, builds and runs every test (the CI job). Uses lavapipe when there is no GPU.
set -eu
cd "$(dirname "$0")/.."
cmake --preset default
cmake --build --preset default
ctest --preset default
# The libFuzzer targets (docs/fuzzing.md) where clang is installed: only what they link is built, then
# a short run of each (label libfuzzer).
if command -v clang++ >/dev/null 2>&1; then
  cmake --preset libfuzzer
  cmake --build --preset libfuzzer
  ctest --preset libfuzzer
fi
