#pragma once
// GLSL 450 compute -> SPIR-V 1.5 for Vulkan 1.2, in process (glslang's C++ API, docs/building.md §3),
// followed by SPIRV-Tools validation (SPV_ENV_VULKAN_1_2) before anything reaches a driver.
//
// Generated GLSL that glslang rejects, or SPIR-V that spirv-val rejects, is *our* bug: the compiler
// writes the GLSL (and the SPIR-V, when there is one) into `dump_dir` and returns an internal-error
// diagnostic (K090 / K091) whose message names the file. It never aborts and never throws.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "ir/diagnostic.hpp"

namespace gridcheck::gpu {

using Spirv = std::vector<std::uint32_t>;

/// Where failing GLSL is written: $GRIDCHECK_GLSL_DUMP_DIR if set, else <temp>/gridcheck-glsl.
std::filesystem::path default_failure_dir();

/// Compiles and validates one compute shader. `label` names the shader in messages and file names.
ir::Result<Spirv> compile_glsl(std::string_view glsl, std::string_view label = "shader",
                               const std::filesystem::path& failure_dir = default_failure_dir());

/// Runs spirv-val (Vulkan 1.2 rules) on a module; the first message on failure.
std::optional<std::string> validate_spirv(const Spirv& spirv);

/// A cache in front of compile_glsl keyed by the GLSL text (hash, confirmed by comparing the text), so
/// glslang and spirv-val run once per distinct shader. Thread-safe: compiles run outside the cache's
/// lock, in parallel for different texts; a second caller of a text being compiled waits for that
/// compile. Failures are not kept (each call compiles again and saves the failing GLSL again).
class GlslCompiler {
 public:
  explicit GlslCompiler(std::filesystem::path failure_dir = default_failure_dir()) : failure_dir_(std::move(failure_dir)) {}

  /// The SPIR-V of `glsl`; compiled once per distinct text. The pointer stays valid for the compiler's life.
  ir::Result<const Spirv*> compile(std::string_view glsl, std::string_view label = "shader");

  std::uint64_t compiles() const { return compiles_.load(); }
  std::uint64_t hits() const { return hits_.load(); }
  std::uint64_t compile_ns() const { return compile_ns_.load(); }  ///< total time spent in glslang + spirv-val
  /// The calling thread's time in glslang + spirv-val so far, over every GlslCompiler (a thread's own
  /// share of compile_ns(), for per-thread phase timing while other threads compile too).
  static std::uint64_t thread_compile_ns();
  const std::filesystem::path& failure_dir() const { return failure_dir_; }
  std::size_t size();
  /// Forgets every kept SPIR-V: only while no other thread compiles and no pointer compile() gave is used.
  void clear();

 private:
  struct Entry {
    std::mutex compiling;  ///< held by the compiling thread until `spirv` or `error` is set
    std::string glsl;
    Spirv spirv;
    std::optional<ir::Diagnostics> error;
  };
  std::filesystem::path failure_dir_;
  std::mutex mutex_;
  std::unordered_multimap<std::uint64_t, std::shared_ptr<Entry>> entries_;
  std::atomic<std::uint64_t> compiles_{0};
  std::atomic<std::uint64_t> hits_{0};
  std::atomic<std::uint64_t> compile_ns_{0};
};

}  // namespace gridcheck::gpu
