#pragma once
// From a program to something dispatchable, shared by the single-launch executor and the resident
// session: type-check, lower to GLSL, check the device's features and limits, compile (cached by GLSL
// text), create the pipeline (cached by SPIR-V), and afterwards turn a trap record into a LaunchError.

#include <array>
#include <cstdint>
#include <filesystem>
#include <atomic>
#include <memory>
#include <mutex>
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

/// Validation verdicts by ir::content_hash (a segment is launched once per pass and per H-gpu mode;
/// validate it once). Thread-safe. The verdict is kept without the launch's label; check() names it.
class ValidationCache {
 public:
  /// K034 naming `label` when `program` does not validate (ir::validate's errors as notes).
  std::optional<ir::Diagnostic> check(const ir::Program& program, std::string_view label);
  void clear();
  std::size_t size() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::optional<ir::Diagnostics>> verdicts_;  ///< the errors, or none
};

struct KernelOptions {
  std::optional<std::array<std::uint32_t, 3>> workgroup_override;
  /// Names the shader in dumps and internal errors. Not part of the compiled GLSL, so that the same
  /// segment launched under different labels (host and resident mode) compiles once.
  std::string label;
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
/// pass, per run and per H-gpu mode): a hit skips the type-check, the lowering, the device checks and the
/// compile and pipeline caches' hashing of the GLSL and SPIR-V. The key is ir::content_hash, confirmed
/// with ir::structurally_equal, plus workgroup_override and validate (not the label: it is not in the
/// GLSL). A shader with trap sites is only reused for a program whose nodes at the sites' ids are of the
/// same kind and carry the same SourceLocs (a trap reports its site's location, which structural
/// equality ignores; the split's segment programs of one case are the same arena, so they hit).
/// Never kept: failures, and anything while options.dump_dir is set (every launch writes its shader).
/// At `capacity` entries the cache starts over. The kernels' pipelines live as long as the context's
/// PipelineCache keeps them. Thread-safe (lookups under one mutex, preparation outside it).
class KernelCache {
 public:
  explicit KernelCache(std::size_t capacity = 4096) : capacity_(capacity) {}

  /// prepare_kernel(ctx, compiler, validations, program, options), or the kept result of an equal call.
  ir::Result<std::shared_ptr<const Kernel>> get(VulkanContext& ctx, GlslCompiler& compiler, ValidationCache& validations,
                                                const ir::Program& program, const KernelOptions& options);

  std::size_t size() const;
  std::uint64_t hits() const { return hits_.load(); }
  void clear();

 private:
  struct Entry {
    ir::Program program;
    std::optional<std::array<std::uint32_t, 3>> workgroup_override;
    bool validate = true;
    LoweringFault fault = LoweringFault::None;
    std::shared_ptr<const Kernel> kernel;
  };
  std::shared_ptr<const Kernel> find(std::uint64_t key, const ir::Program& program, const KernelOptions& options) const;
  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::unordered_multimap<std::uint64_t, Entry> entries_;
  std::atomic<std::uint64_t> hits_{0};
};

/// Everything above for one device, shared by launchers that may run on several threads (the host-mode
/// executor and resident sessions of one process): the compile cache, the validation verdicts and the
/// prepared kernels. Thread-safe.
class KernelStore {
 public:
  /// With a compile cache of its own.
  explicit KernelStore(std::filesystem::path failure_dir = default_failure_dir())
      : owned_compiler_(std::make_unique<GlslCompiler>(std::move(failure_dir))), compiler_(owned_compiler_.get()) {}
  /// With `compiler`'s compile cache (it must outlive the store).
  explicit KernelStore(GlslCompiler& compiler) : compiler_(&compiler) {}

  /// KernelCache::get over this store's caches.
  ir::Result<std::shared_ptr<const Kernel>> get(VulkanContext& ctx, const ir::Program& program, const KernelOptions& options) {
    return kernels_.get(ctx, *compiler_, validations_, program, options);
  }
  GlslCompiler& compiler() { return *compiler_; }
  ValidationCache& validations() { return validations_; }
  KernelCache& kernels() { return kernels_; }
  /// Forgets every kept kernel and verdict (the compile cache and the context's pipelines are the
  /// caller's to clear, once no launch uses them).
  void clear_kernels() {
    kernels_.clear();
    validations_.clear();
    ++epoch_;
  }
  /// Counts clear_kernels() calls: a kernel got from this store stays usable while the epoch is the same
  /// (a caller that keeps one, KernelSlot, checks it).
  std::uint64_t epoch() const { return epoch_.load(); }

 private:
  std::unique_ptr<GlslCompiler> owned_compiler_;
  GlslCompiler* compiler_;
  ValidationCache validations_;
  KernelCache kernels_;
  std::atomic<std::uint64_t> epoch_{0};
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
