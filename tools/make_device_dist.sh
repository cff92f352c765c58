#!/bin/sh
# Builds a Release tree and assembles dist/ for running gridcheck on a foreign GPU host that has a
# Vulkan driver but none of the build dependencies (docs/building.md §8): stripped binaries in
# dist/bin, the shared libraries they need beyond glibc/libstdc++ in dist/lib (libz3, libfmt,
# libbenchmark), and dist/run.sh that sets LD_LIBRARY_PATH. Static glslang/SPIRV-Tools/gtest/
# rapidcheck are linked in already. The Vulkan loader is the host's (or carried separately).
set -eu
cd "$(dirname "$0")/.."
build=${GRIDCHECK_DIST_BUILD:-build-dist}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
targets="gridcheck gpu_tests props_tests planner_tests interp_tests"
for t in gpu_split_bench pipeline_create_bench interp_run planner_bench megakernel_plan; do
  if cmake --build "$build" --target help | grep -q "^$t:"; then targets="$targets $t"; fi
done
# shellcheck disable=SC2086
cmake --build "$build" --target $targets
rm -rf dist && mkdir -p dist/bin dist/lib
for t in $targets; do
  f=$(find "$build" -type f -name "$t" -perm -u+x | head -1)
  [ -n "$f" ] && strip --strip-unneeded -o "dist/bin/$t" "$f"
done
for lib in libz3.so.4 libfmt.so.9 libbenchmark.so.1debian; do
  p=$(ldconfig -p | awk -v l="$lib" '$1 == l && /x86-64/ {print $NF; exit}')
  [ -n "$p" ] && cp -L "$p" dist/lib/
done
cat > dist/run.sh <<'SH'
#!/bin/sh
# dist/run.sh PROGRAM ARGS...: runs dist/bin/PROGRAM with the carried libraries.
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
prog=$1; shift
exec "$here/bin/$prog" "$@"
SH
chmod +x dist/run.sh
du -sh dist
