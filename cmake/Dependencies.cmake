# Every dependency is a Debian 12 package (tools/setup.sh installs them); see docs/building.md §1.
find_package(Threads REQUIRED)           # glslang::OSDependent links Threads::Threads without finding it
find_package(fmt 9 CONFIG REQUIRED)
find_package(GTest CONFIG REQUIRED)
find_package(rapidcheck CONFIG REQUIRED) # rapidcheck (static) + rapidcheck_gtest (interface)
find_package(CLI11 CONFIG REQUIRED)
find_package(nlohmann_json 3 CONFIG REQUIRED)
find_package(Vulkan REQUIRED)
find_package(SPIRV-Tools-opt CONFIG QUIET)
find_package(SPIRV-Tools CONFIG REQUIRED)
find_package(glslang 12 CONFIG REQUIRED)
find_package(Z3 CONFIG QUIET)
if(NOT TARGET z3::libz3)
  find_package(PkgConfig REQUIRED)
  pkg_check_modules(Z3 REQUIRED IMPORTED_TARGET z3>=4.8)
  # An imported target of its own, not an ALIAS: the installed export set then names z3::libz3, which
  # gridcheckConfig.cmake re-creates, instead of this build's PkgConfig::Z3.
  add_library(z3::libz3 INTERFACE IMPORTED)
  target_link_libraries(z3::libz3 INTERFACE PkgConfig::Z3)
endif()
find_package(benchmark CONFIG QUIET)
