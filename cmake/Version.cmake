# gridcheck --version (tools/main.cpp): the project(VERSION) and the commit of the checkout at configure
# time (`git rev-parse --short HEAD`; "unknown" outside a git checkout or without git), written to the
# generated header <build>/generated/gridcheck/version.hpp. Re-run the configure step to refresh the commit.
find_package(Git QUIET)
set(GRIDCHECK_GIT_COMMIT "unknown")
if(GIT_EXECUTABLE)
  execute_process(COMMAND ${GIT_EXECUTABLE} rev-parse --short HEAD
                  WORKING_DIRECTORY ${PROJECT_SOURCE_DIR}
                  OUTPUT_VARIABLE gridcheck_git_out OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE gridcheck_git_rc ERROR_QUIET)
  if(gridcheck_git_rc EQUAL 0 AND NOT gridcheck_git_out STREQUAL "")
    set(GRIDCHECK_GIT_COMMIT "${gridcheck_git_out}")
  endif()
endif()
set(GRIDCHECK_GENERATED_DIR ${PROJECT_BINARY_DIR}/generated)
configure_file(${CMAKE_CURRENT_LIST_DIR}/version.hpp.in ${GRIDCHECK_GENERATED_DIR}/gridcheck/version.hpp @ONLY)
