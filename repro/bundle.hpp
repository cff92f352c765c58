#pragma once
// A reproducer as a self-contained directory (docs/export.md): per pipeline its SPIR-V (.spv) and GLSL
// (.comp), manifest.json (format gridcheck-repro/1: buffers with their bytes, pipelines with bindings
// and push constants, the steps in order with grid sizes and host copies, R's and the split's bytes
// of the final outputs), runner.cpp and CMakeLists.txt (a Vulkan runner that builds without
// gridcheck and prints PASS or FAIL), the case itself, and the AmberScript when it can be written.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ir/diagnostic.hpp"
#include "repro/reproducer.hpp"

namespace gridcheck::repro {

struct BundleOptions {
  std::string command;      ///< the command line that wrote the bundle (manifest and README)
  std::string case_text;    ///< written as case.gc when not empty
};

/// manifest.json of `repro` (the .spv and .comp file names are `<pipeline>.spv` / `<pipeline>.comp`).
nlohmann::json to_manifest(const Repro& repro, const BundleOptions& options = {});

/// Writes the bundle into `dir`, which must not exist or be an empty directory (its parent must
/// exist). Errors: E020 `dir` is a file or a non-empty directory, E021 a file cannot be written.
std::optional<ir::Diagnostic> write_bundle(const Repro& repro, const std::filesystem::path& dir, const BundleOptions& options = {});

/// The runner template's text (repro/runner/runner.cpp, CMakeLists.txt), as built into gridcheck.
std::string_view runner_source();
std::string_view runner_cmake();

}  // namespace gridcheck::repro
