#!/bin/bash -eu
# OSS-Fuzz build script (https://google.github.io/oss-fuzz/getting-started/new-project-guide/): builds
# both libFuzzer targets of fuzzers/ with the environment's compilers, flags and fuzzing engine, and
# puts into $OUT each target, its seed corpus as <target>_seed_corpus.zip, and the .gc dictionary as
# fuzz_parse_validate.dict. Outside OSS-Fuzz, set what it would (docs/fuzzing.md):
#
#   CC=clang CXX=clang++ CFLAGS="-fsanitize=address,fuzzer-no-link" CXXFLAGS="$CFLAGS" \
#     LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT=/tmp/oss-fuzz-out fuzzers/build.sh
#
# GRIDCHECK_FUZZ_BUILD_DIR (default $WORK/gridcheck-fuzz, or build-oss-fuzz in the source tree) is the
# CMake build directory; a second run reuses it.
SRC_DIR="$(cd "$(dirname "$0")/.." && pwd)"
if [ -n "${WORK:-}" ]; then default_build_dir="$WORK/gridcheck-fuzz"; else default_build_dir="$SRC_DIR/build-oss-fuzz"; fi
BUILD_DIR="${GRIDCHECK_FUZZ_BUILD_DIR:-$default_build_dir}"

cmake -S "$SRC_DIR" -B "$BUILD_DIR" -G Ninja \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_C_FLAGS="${CFLAGS:-}" -DCMAKE_CXX_FLAGS="${CXXFLAGS:-}" \
  -DCMAKE_BUILD_TYPE=Release \
  -DGRIDCHECK_LIBFUZZER=ON -DGRIDCHECK_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DGRIDCHECK_BUILD_TESTS=OFF -DGRIDCHECK_BUILD_BENCH=OFF -DGRIDCHECK_WERROR=OFF
cmake --build "$BUILD_DIR" --target fuzz_parse_validate fuzz_choice_case

mkdir -p "$OUT"
for target in fuzz_parse_validate fuzz_choice_case; do
  cp "$BUILD_DIR/fuzzers/$target" "$OUT/"
  rm -f "$OUT/${target}_seed_corpus.zip"
  (cd "$BUILD_DIR/fuzzers/seeds/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
done
cp "$SRC_DIR/fuzzers/gc.dict" "$OUT/fuzz_parse_validate.dict"
