#!/bin/sh
# Configures, builds and runs every test (the CI job). Uses lavapipe when there is no GPU.
set -eu
cd "$(dirname "$0")/.."
cmake --preset default
cmake --build --preset default
ctest --preset default
