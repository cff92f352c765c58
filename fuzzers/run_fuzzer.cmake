# cmake -DFUZZER=exe -DWORK=dir -DEXPECT=pass|crash -DARGS=a;b [-DCRASH_TEXT=text] -P run_fuzzer.cmake
# Runs a libFuzzer target with WORK/corpus (emptied first) as its writable corpus and WORK/ as the
# artifact prefix, then ARGS (flags and read-only seed directories).
#   pass:  the run must exit 0 (no finding).
#   crash: the run must fail with CRASH_TEXT in its output and leave a crash-* input, and running the
#          target on that input alone must fail with CRASH_TEXT again (the finding replays).
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
execute_process(COMMAND ${FUZZER} -artifact_prefix=${WORK}/ ${WORK}/corpus ${ARGS}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
message("${out}")
if(EXPECT STREQUAL "pass")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${FUZZER} exited with ${rc}: a finding (its input is in ${WORK})")
  endif()
  return()
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER} found nothing; expected a crash")
endif()
string(FIND "${out}" "${CRASH_TEXT}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${FUZZER} failed (${rc}) without \"${CRASH_TEXT}\"")
endif()
file(GLOB crashes ${WORK}/crash-*)
list(LENGTH crashes count)
if(count EQUAL 0)
  message(FATAL_ERROR "${FUZZER} left no crash-* input in ${WORK}")
endif()
list(GET crashes 0 crash)
execute_process(COMMAND ${FUZZER} ${crash} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
string(FIND "${out}" "${CRASH_TEXT}" at)
if(rc EQUAL 0 OR at EQUAL -1)
  message(FATAL_ERROR "${crash} does not replay: ${FUZZER} ${crash} exited with ${rc}\n${out}")
endif()
message(STATUS "found and replayed ${crash}")
