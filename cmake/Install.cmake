# `cmake --install <build> --prefix P` (docs/building.md "Using gridcheck as a library"):
#   P/bin/gridcheck                          the CLI (exported as gridcheck::gridcheck)
#   P/lib/libgridcheck_{ir,interp,planner,gpu,props}.a   (gridcheck::ir ... gridcheck::props)
#   P/include/{ir,interp,planner,gpu,props}/...          every public header, test-only ones excluded
#   P/lib/cmake/gridcheck/                   gridcheckConfig.cmake, gridcheckConfigVersion.cmake,
#                                            gridcheckTargets*.cmake
# The config finds the libraries' dependencies again (gridcheckConfig.cmake.in), so the export set names
# only imported targets and install paths, never this build tree.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(GRIDCHECK_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/gridcheck)
set(gridcheck_exported "")
foreach(lib ir interp planner gpu props)
  if(TARGET gridcheck_${lib})
    set_target_properties(gridcheck_${lib} PROPERTIES EXPORT_NAME ${lib})
    add_library(gridcheck::${lib} ALIAS gridcheck_${lib})  # the same names inside the build tree
    list(APPEND gridcheck_exported gridcheck_${lib})
  endif()
endforeach()
if(TARGET gridcheck)
  set_target_properties(gridcheck PROPERTIES EXPORT_NAME gridcheck)
  add_executable(gridcheck::gridcheck ALIAS gridcheck)
  list(APPEND gridcheck_exported gridcheck)
endif()

install(TARGETS ${gridcheck_exported}
        EXPORT gridcheckTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})

# Headers keep their repository paths (#include "planner/profile.hpp"). Test-only helpers (GoogleTest
# fixtures, fake executors, random-case helpers for tests) stay out.
foreach(dir ir interp planner gpu props)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${dir}
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
          FILES_MATCHING PATTERN "*.hpp"
          PATTERN "testing" EXCLUDE
          PATTERN "*test_support.hpp" EXCLUDE
          PATTERN "*_for_tests.hpp" EXCLUDE)
endforeach()

install(EXPORT gridcheckTargets
        NAMESPACE gridcheck::
        FILE gridcheckTargets.cmake
        DESTINATION ${GRIDCHECK_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/gridcheckConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/gridcheckConfig.cmake
                              INSTALL_DESTINATION ${GRIDCHECK_INSTALL_CMAKEDIR})
# 0.x: only the same minor version is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gridcheckConfigVersion.cmake
                                 VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gridcheckConfig.cmake ${PROJECT_BINARY_DIR}/gridcheckConfigVersion.cmake
        DESTINATION ${GRIDCHECK_INSTALL_CMAKEDIR})
