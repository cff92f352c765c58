# Runs `gridcheck validate` on one case file and checks it against the file's `# validate:` lines:
#   # validate: error CODE at LINE:COL
#   # validate: warning CODE at LINE:COL
# The diagnostics gridcheck prints (errors and warnings) must be exactly those lines, and the exit
# code 2 when an error is expected, 0 otherwise. A case without `# validate:` lines must be silent.
# KIND=invalid (cases under corpus/invalid/) requires at least one expected error; KIND=valid forbids it.
# Usage: cmake -DGRIDCHECK=<gridcheck> -DCASE=<file.gc> -DKIND=valid|invalid -P check_case.cmake
if(NOT GRIDCHECK OR NOT CASE OR NOT KIND)
  message(FATAL_ERROR "usage: cmake -DGRIDCHECK=... -DCASE=... -DKIND=valid|invalid -P check_case.cmake")
endif()

file(STRINGS "${CASE}" annotations REGEX "^# validate:")
set(expected "")
set(expect_error FALSE)
foreach(line IN LISTS annotations)
  if(NOT line MATCHES "^# validate: (error|warning) ([GV][0-9][0-9][0-9]) at ([0-9]+):([0-9]+)$")
    message(FATAL_ERROR "${CASE}: malformed annotation '${line}'; use '# validate: error CODE at LINE:COL'")
  endif()
  list(APPEND expected "${CMAKE_MATCH_3}:${CMAKE_MATCH_4}: ${CMAKE_MATCH_1}[${CMAKE_MATCH_2}]")
  if(CMAKE_MATCH_1 STREQUAL "error")
    set(expect_error TRUE)
  endif()
endforeach()

if(KIND STREQUAL "invalid" AND NOT expect_error)
  message(FATAL_ERROR "${CASE}: a case under invalid/ needs a '# validate: error CODE at LINE:COL' line")
endif()
if(KIND STREQUAL "valid" AND expect_error)
  message(FATAL_ERROR "${CASE}: a case that expects an error belongs under invalid/")
endif()

execute_process(COMMAND "${GRIDCHECK}" validate "${CASE}" RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)

# Every `FILE:LINE:COL: error[CODE]` / `warning[CODE]` header that gridcheck printed.
string(REPLACE "\n" ";" lines "${err}")
set(actual "")
foreach(line IN LISTS lines)
  string(FIND "${line}" "${CASE}:" at)
  if(at EQUAL 0 AND line MATCHES "^.*:([0-9]+):([0-9]+): (error|warning)\\[([A-Z][0-9]+)\\]")
    list(APPEND actual "${CMAKE_MATCH_1}:${CMAKE_MATCH_2}: ${CMAKE_MATCH_3}[${CMAKE_MATCH_4}]")
  endif()
endforeach()

list(SORT expected)
list(SORT actual)
if(NOT expected STREQUAL actual)
  message(FATAL_ERROR "${CASE}: expected diagnostics [${expected}], gridcheck printed [${actual}]:\n${err}")
endif()
if(expect_error AND NOT rc EQUAL 2)
  message(FATAL_ERROR "${CASE}: expected exit code 2 (invalid), got ${rc}:\n${err}")
endif()
if(NOT expect_error AND NOT rc EQUAL 0)
  message(FATAL_ERROR "${CASE}: expected exit code 0 (valid), got ${rc}:\n${err}")
endif()
