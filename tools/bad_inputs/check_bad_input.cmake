# One bad-input test (tools/bad_inputs/CMakeLists.txt): prepares the paths the case needs, runs one
# gridcheck command line and checks its exit code and what it printed.
# Usage: cmake -DGRIDCHECK=<gridcheck> -DCASES=<dir of .gc files> -DWORK=<scratch dir>
#              "-DARGS=a|b|c" -DEXPECT_RC=N "-DEXPECT=regex" [-DREJECT=regex] [-DCARET=1]
#              [-DSETUP=kind,kind] [-DENV=NAME=VALUE] [-DULIMIT_V=KIB] [-DMAX_SECONDS=S] -P check_bad_input.cmake
#
# ARGS are `|`-separated; in them @CASES@ and @WORK@ name the two directories and @EMPTY@ is an empty
# argument. The command runs in WORK (so that nothing is written into the source tree), with stdin
# from /dev/null, through /bin/sh with every argument quoted, and at most 30 seconds: an input that
# blocks (a FIFO opened for reading) fails the test instead of hanging it.
#
# SETUP kinds, made under WORK before the run:
#   fifo          WORK/fifo.gc, a named pipe without a writer
#   fifo_in_dir   WORK/dir/a.gc, a named pipe, in a directory that holds no other case
#   empty_dir     WORK/empty/, a directory without case files (and a README.txt that is not one)
#   locked        WORK/locked.gc, a regular file of mode 000 (as root, the command runs as nobody
#                 through setpriv, so that the file really cannot be read; without setpriv the
#                 test prints SKIPPED)
#   symlink_loop  WORK/loop.gc -> WORK/loop2.gc -> WORK/loop.gc
#   dangling      WORK/dangling.gc -> WORK/nowhere.gc
#
# ULIMIT_V=KIB runs the command under `ulimit -v KIB` (its address space; issue 20's hostile files run
# under 6 GiB) and MAX_SECONDS=S fails the test when the command takes longer.
#
# Checks: the exit code is EXPECT_RC; stderr followed by stdout matches EXPECT and not REJECT; a nonzero exit
# prints something; exit 0 never prints `error[`; CARET=1: a located diagnostic
# `FILE:LINE:COL: error[CODE]: ...` is followed by its source line and a caret line.
cmake_minimum_required(VERSION 3.25)  # policies of today: @VAR@ is not a variable reference (CMP0053)
foreach(v GRIDCHECK CASES WORK ARGS EXPECT_RC EXPECT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "check_bad_input.cmake: -D${v}=... is required")
  endif()
endforeach()

file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

set(prefix "")
if(DEFINED SETUP)
  string(REPLACE "," ";" setup_kinds "${SETUP}")
  foreach(kind IN LISTS setup_kinds)
    if(kind STREQUAL "fifo")
      execute_process(COMMAND mkfifo "${WORK}/fifo.gc" RESULT_VARIABLE r)
    elseif(kind STREQUAL "fifo_in_dir")
      file(MAKE_DIRECTORY "${WORK}/dir")
      execute_process(COMMAND mkfifo "${WORK}/dir/a.gc" RESULT_VARIABLE r)
    elseif(kind STREQUAL "empty_dir")
      file(WRITE "${WORK}/empty/README.txt" "not a case file\n")
      set(r 0)
    elseif(kind STREQUAL "locked")
      file(COPY_FILE "${CASES}/valid.gc" "${WORK}/locked.gc")
      execute_process(COMMAND chmod 000 "${WORK}/locked.gc")
      execute_process(COMMAND id -u OUTPUT_VARIABLE uid OUTPUT_STRIP_TRAILING_WHITESPACE)
      if(uid STREQUAL "0")
        find_program(SETPRIV setpriv)
        if(NOT SETPRIV)
          message("SKIPPED: running as root and setpriv is missing, so no file is unreadable")
          return()
        endif()
        set(prefix "'${SETPRIV}' --reuid=65534 --regid=65534 --clear-groups -- ")
      endif()
      set(r 0)
    elseif(kind STREQUAL "symlink_loop")
      file(CREATE_LINK "${WORK}/loop2.gc" "${WORK}/loop.gc" SYMBOLIC RESULT r)
      file(CREATE_LINK "${WORK}/loop.gc" "${WORK}/loop2.gc" SYMBOLIC RESULT r)
    elseif(kind STREQUAL "dangling")
      file(CREATE_LINK "${WORK}/nowhere.gc" "${WORK}/dangling.gc" SYMBOLIC RESULT r)
    else()
      message(FATAL_ERROR "unknown SETUP kind '${kind}'")
    endif()
    if(NOT r EQUAL 0)
      message(FATAL_ERROR "SETUP ${kind} failed: ${r}")
    endif()
  endforeach()
endif()

# The command line for /bin/sh: each argument in single quotes (a quote inside becomes '\'').
set(command "")
if(DEFINED ENV)
  string(APPEND command "env '${ENV}' ")
endif()
if(DEFINED ULIMIT_V)
  string(APPEND command "ulimit -v ${ULIMIT_V} && exec ")
endif()
string(APPEND command "${prefix}'${GRIDCHECK}'")
string(REPLACE "|" ";" arg_list "${ARGS}")
foreach(arg IN LISTS arg_list)
  string(REPLACE "@CASES@" "${CASES}" arg "${arg}")
  string(REPLACE "@WORK@" "${WORK}" arg "${arg}")
  string(REPLACE "@EMPTY@" "" arg "${arg}")
  string(REPLACE "'" "'\\''" arg "${arg}")
  string(APPEND command " '${arg}'")
endforeach()

string(TIMESTAMP started "%s" UTC)
execute_process(COMMAND /bin/sh -c "${command}" WORKING_DIRECTORY "${WORK}" INPUT_FILE /dev/null
                TIMEOUT 30 RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(TIMESTAMP finished "%s" UTC)
set(all "${err}${out}")  # stderr (diagnostics), then stdout (reports)
set(shown "$ ${command}\n${all}")
if(DEFINED MAX_SECONDS)
  math(EXPR took "${finished} - ${started}")
  if(took GREATER MAX_SECONDS)
    message(FATAL_ERROR "took about ${took} s, more than ${MAX_SECONDS} s\n${shown}")
  endif()
endif()
if(NOT rc STREQUAL EXPECT_RC)
  message(FATAL_ERROR "exit ${rc}, expected ${EXPECT_RC}\n${shown}")
endif()
if(NOT all MATCHES "${EXPECT}")
  message(FATAL_ERROR "output does not match '${EXPECT}'\n${shown}")
endif()
if(DEFINED REJECT AND all MATCHES "${REJECT}")
  message(FATAL_ERROR "output matches '${REJECT}', which it must not\n${shown}")
endif()
if(NOT EXPECT_RC STREQUAL "0" AND all STREQUAL "")
  message(FATAL_ERROR "exit ${rc} without a word of explanation\n${shown}")
endif()
if(EXPECT_RC STREQUAL "0" AND all MATCHES "error\\[")
  message(FATAL_ERROR "exit 0 but an error diagnostic was printed\n${shown}")
endif()
if(CARET AND NOT all MATCHES ":[0-9]+:[0-9]+: error\\[[A-Z]+[0-9]+\\]: [^\n]*\n  [^\n]*\n *\\^\n")
  message(FATAL_ERROR "no located error diagnostic with its source line and caret\n${shown}")
endif()
