#pragma once
// From a program to something dispatchable, shared by the single-launch executor and the resident
// session: type-check, lower to GLSL, check the device's features and limits, compile (cached by GLSL
// text), create the pipeline (cached by SPIR-V), and afterwards turn a trap record into a LaunchError.

#include <array>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "gpu/compute_pipeline.hpp"
#include "gpu/glsl_compiler.hpp"
#include "gpu/glsl_lowering.hpp"
#include "ir/diagnostic.hpp"
#include "ir/program.hpp"
#include "planner/executor.hpp"

namespace gridcheck::gpu {

class VulkanContext;

struct Kernel {
  LoweredShader shader;
  const ComputePipeline* pipeline = nullptr;  ///< owned by the context's PipelineCache
};

/// Validation verdicts by ir::content_hash (a segment is launched once per pass; validate it once).
using ValidationCache = std::unordered_map<std::uint64_t, std::optional<ir::Diagnostic>>;

struct KernelOptions {
  std::optional<std::array<std::uint32_t, 3>> workgroup_override;
  std::string label;  ///< names the shader in comments, dumps and internal errors
  /// When set, every lowered shader is also written to <dir>/<label>-<hash>.comp (`--dump-glsl DIR`).
  std::optional<std::filesystem::path> dump_dir;
  /// Run ir::validate first, as the reference executor does (off: type-check only).
  bool validate = true;
  LoweringFault fault = LoweringFault::None;  ///< a deliberate lowering bug, tests only (glsl_lowering.hpp)
};

/// K034 (does not validate / type-check), K030/K031 (lowering), K007 (missing device feature), K022/K023/K024 (limits),
/// K090/K091 (internal: our GLSL or SPIR-V is bad), K010/K012 (driver).
ir::Result<Kernel> prepare_kernel(VulkanContext& ctx, GlslCompiler& compiler, ValidationCache& validations,
                                  const ir::Program& program, const KernelOptions& options);

/// prepare_kernel's results for programs launched again (a split launches each segment program once per
/// pass and once per run): a hit skips the type-check, the lowering, the device checks and the compile
/// and pipeline caches' hashing of the GLSL and SPIR-V. The key is ir::content_hash, confirmed with
/// ir::structurally_equal, plus every KernelOptions field. Kept: successes whose shader has no trap
/// sites (a trap site carries the launched program's SourceLoc, which structural equality ignores).
/// Never kept: failures, and anything while options.dump_dir is set (every launch writes its shader).
/// At `capacity` entries the cache starts over. The kernels' pipelines live as long as the context.
class KernelCache {
 public:
  explicit KernelCache(std::size_t capacity = 1024) : capacity_(capacity) {}

  /// prepare_kernel(ctx, compiler, validations, program, options), or the kept result of an equal call.
  ir::Result<std::shared_ptr<const Kernel>> get(VulkanContext& ctx, GlslCompiler& compiler, ValidationCache& validations,
                                                const ir::Program& program, const KernelOptions& options);

  std::size_t size() const { return entries_.size(); }
  std::uint64_t hits() const { return hits_; }

 private:
  struct Entry {
    ir::Program program;
    std::optional<std::array<std::uint32_t, 3>> workgroup_override;
    std::string label;
    bool validate = true;
    LoweringFault fault = LoweringFault::None;
    std::shared_ptr<const Kernel> kernel;
  };
  std::size_t capacity_;
  std::unordered_multimap<std::uint64_t, Entry> entries_;
  std::uint64_t hits_ = 0;
};

/// K022 / K023 / K024 / K007 when `shader` does not fit `ctx`'s device.
std::optional<ir::Diagnostic> check_device_fits(const VulkanContext& ctx, const LoweredShader& shader);

/// K021 when a grid exceeds maxComputeWorkGroupCount.
std::optional<ir::Diagnostic> check_grid(const VulkanContext& ctx, std::array<std::uint32_t, 3> grid);

/// The grid of a launch: the override, else docs/semantics.md §5.7 (ir::launch_plan) for the effective workgroup size.
ir::Result<std::array<std::uint32_t, 3>> launch_grid(const ir::Program& program, const planner::LaunchConfig& config);

/// The launch error for a trap record key (kNoTrap: none).
std::optional<planner::LaunchError> trap_error(std::uint64_t key, const LoweredShader& shader,
                                               std::array<std::uint32_t, 3> grid);

}  // namespace gridcheck::gpu
