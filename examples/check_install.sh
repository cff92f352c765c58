#!/bin/sh
# The install check (CTest test install.custom_planner_example, examples/CMakeLists.txt): installs an
# already-built gridcheck tree into a fresh temporary prefix, configures and builds
# examples/custom_planner against that prefix alone, and runs its test binary. Any failure fails.
#
#   examples/check_install.sh BUILD_DIR [CXX_COMPILER [C_COMPILER]]
#
# GRIDCHECK_INSTALL_CHECK_LOCK=FILE wraps the example's build in `flock FILE` (shared machines: take the
# same lock as other builds; leave it unset when the caller already holds that lock).
# GRIDCHECK_INSTALL_CHECK_KEEP=1 keeps the temporary directory and prints it.
set -eu
build=$(cd "$1" && pwd)
cxx=${2:-}
cc=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/gridcheck-install-check.XXXXXX")
cleanup() {
  if [ "${GRIDCHECK_INSTALL_CHECK_KEEP:-0}" = 1 ]; then echo "kept $tmp"; else rm -rf "$tmp"; fi
}
trap cleanup EXIT INT TERM

prefix="$tmp/prefix"
start=$(date +%s)
cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" || { cat "$tmp/install.log"; exit 1; }
echo "installed into $prefix ($(grep -c '^-- Installing' "$tmp/install.log") files)"

set -- -S "$here/custom_planner" -B "$tmp/example" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
if command -v ninja >/dev/null 2>&1; then set -- "$@" -G Ninja; fi
if [ -n "$cxx" ]; then set -- "$@" -DCMAKE_CXX_COMPILER="$cxx"; fi
if [ -n "$cc" ]; then set -- "$@" -DCMAKE_C_COMPILER="$cc"; fi
cmake "$@" >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
echo "example configured: $(grep '^gridcheck_DIR:' "$tmp/example/CMakeCache.txt")"
if grep -q "$build" "$tmp/example/CMakeCache.txt"; then
  echo "error: the example's configuration names the build tree $build, not only the prefix" >&2
  grep -n "$build" "$tmp/example/CMakeCache.txt" >&2
  exit 1
fi

if [ -n "${GRIDCHECK_INSTALL_CHECK_LOCK:-}" ]; then
  flock "$GRIDCHECK_INSTALL_CHECK_LOCK" cmake --build "$tmp/example"
else
  cmake --build "$tmp/example"
fi
built=$(date +%s)

"$tmp/example/custom_planner_tests"
echo "install + example: $(( $(date +%s) - start )) s (install and build $(( built - start )) s)"
