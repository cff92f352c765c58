#!/bin/sh
# Installs every Debian 12 package gridcheck needs to build, test and run (idempotent; run as root
# or with sudo). chromium is the headless browser the diff --html tests load pages in
# (tools/html_test.py). `--bench` adds what the comparison benchmarks measure against (Oclgrind, networkx).
set -eu

packages="g++ cmake ninja-build pkgconf git ca-certificates
  libfmt-dev libgtest-dev librapidcheck-dev libz3-dev libcli11-dev nlohmann-json3-dev
  glslang-dev glslang-tools spirv-tools libvulkan-dev mesa-vulkan-drivers vulkan-tools
  vulkan-validationlayers libbenchmark-dev python3 python3-jsonschema clang libclang-rt-14-dev
  chromium"
if [ "${1:-}" = "--bench" ]; then
  packages="$packages oclgrind ocl-icd-opencl-dev python3-networkx"
fi

missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
  echo "setup: all packages already installed"
  exit 0
fi

run_as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}
echo "setup: installing$missing"
run_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
# shellcheck disable=SC2086
run_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
