# gridcheck_target_defaults(target): C++20, warnings at zero, project include root.
function(gridcheck_target_defaults target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wno-missing-field-initializers)
  # GCC 12 at -O2/-O3 reports -Wrestrict inside libstdc++'s own std::string code (GCC bug 105329, a
  # false positive in the headers, not in our code); every other warning stays an error.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(GRIDCHECK_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  # The repository root while building; <prefix>/include once installed (cmake/Install.cmake). The
  # warning flags above stay PRIVATE, so a consumer of the installed package never inherits -Werror.
  target_include_directories(${target} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}> $<INSTALL_INTERFACE:include>)
endfunction()

# gridcheck_add_test_executable(name SOURCES... LIBS...): a GoogleTest executable whose tests are
# discovered one CTest test per case.
function(gridcheck_add_test_executable name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  gridcheck_target_defaults(${name})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} rapidcheck_gtest rapidcheck GTest::gtest GTest::gtest_main)
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 120 PROPERTIES LABELS ${name})
endfunction()
