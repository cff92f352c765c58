# Runs one gridcheck command line and checks its exit code and output (a CLI behaviour test).
# Usage: cmake -DGRIDCHECK=<gridcheck> "-DARGS=diff|file.gc" -DEXPECT_RC=0 [-DEXPECT_OUTPUT=regex]
#        [-DREJECT_OUTPUT=regex] -P check_command.cmake
# EXPECT_OUTPUT must match stdout+stderr; REJECT_OUTPUT must not.
if(NOT GRIDCHECK OR NOT DEFINED ARGS OR NOT DEFINED EXPECT_RC)
  message(FATAL_ERROR "usage: cmake -DGRIDCHECK=... -DARGS=... -DEXPECT_RC=... -P check_command.cmake")
endif()
string(REPLACE "|" ";" ARGS "${ARGS}")  # arguments arrive |-separated (a ; would split the -D)
execute_process(COMMAND "${GRIDCHECK}" ${ARGS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(NOT rc STREQUAL EXPECT_RC)
  message(FATAL_ERROR "gridcheck ${ARGS}: exit ${rc}, expected ${EXPECT_RC}\n${all}")
endif()
if(DEFINED EXPECT_OUTPUT AND NOT all MATCHES "${EXPECT_OUTPUT}")
  message(FATAL_ERROR "gridcheck ${ARGS}: output does not match '${EXPECT_OUTPUT}'\n${all}")
endif()
if(DEFINED REJECT_OUTPUT AND all MATCHES "${REJECT_OUTPUT}")
  message(FATAL_ERROR "gridcheck ${ARGS}: output matches '${REJECT_OUTPUT}'\n${all}")
endif()
