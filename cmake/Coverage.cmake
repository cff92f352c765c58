# GRIDCHECK_COVERAGE: instrument every target for line and branch coverage with GCC's gcov
# (`--coverage`: .gcno next to each object at build time, .gcda written when a program exits).
# bench/fuzz_coverage.sh configures such a tree, runs a campaign and reports planner/ coverage with
# `gcov --json-format` (docs/building.md §10). GCC only: the reports read gcov's JSON, and gcov ships
# with g++, so no further package is needed. Use a Debug build (-O0): at -O2 inlining moves counts
# between lines and the per-line figures stop meaning what they say.
if(NOT GRIDCHECK_COVERAGE)
  return()
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  message(FATAL_ERROR "GRIDCHECK_COVERAGE needs GCC (gcov); CMAKE_CXX_COMPILER is ${CMAKE_CXX_COMPILER_ID}")
endif()
if(GRIDCHECK_SANITIZE)
  message(FATAL_ERROR "GRIDCHECK_COVERAGE and GRIDCHECK_SANITIZE are separate builds")
endif()
# -fprofile-update=atomic: campaigns with --jobs > 1 count from several threads.
add_compile_options(--coverage -fprofile-update=atomic)
add_link_options(--coverage)
message(STATUS "gridcheck: coverage instrumentation on (gcov)")
