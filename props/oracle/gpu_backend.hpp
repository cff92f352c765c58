#pragma once
// H-gpu for the oracle and the CLI: one Vulkan device (gpu/) opened once per process, offering the
// split in host mode (each launch reads back and re-uploads, like the seed) and in resident mode
// (buffers stay on the device; only final outputs are read back). Both modes must give identical
// bytes; the oracle checks that.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "gpu/glsl_lowering.hpp"
#include "ir/diagnostic.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"

namespace gridcheck::gpu {
class VulkanContext;
class VulkanExecutor;
}  // namespace gridcheck::gpu

namespace gridcheck::props {

struct GpuBackendOptions {
  std::string device;                           ///< index or name ("" = first discrete GPU, else lavapipe)
  bool validation = false;                      ///< validation layers + synchronization validation
  std::optional<std::filesystem::path> dump_glsl;  ///< also write every lowered shader there
  /// A deliberate lowering bug in both modes, tests only (gpu/glsl_lowering.hpp LoweringFault; the CLI
  /// reads it from $GRIDCHECK_TEST_GPU_FAULT).
  gpu::LoweringFault lowering_fault = gpu::LoweringFault::None;
};

class GpuBackend {
 public:
  /// Opens the device; K### diagnostics when there is no usable Vulkan device.
  static ir::Result<std::unique_ptr<GpuBackend>> open(const GpuBackendOptions& options);
  ~GpuBackend();

  /// The split over the Vulkan executor, host mode.
  GpuSplitRunner host_runner();
  /// The split with device-resident buffers.
  GpuSplitRunner resident_runner();
  /// Fills `options.gpu` and `options.gpu_resident` (both modes).
  void attach(OracleOptions& options);

  std::string device_name() const;
  gpu::VulkanContext& context();
  /// Validation messages recorded so far (0 without validation).
  std::size_t validation_messages() const;

  /// What the process-wide caches did so far (both modes share them): GLSL texts compiled to SPIR-V
  /// and compile-cache hits, pipelines created and pipeline-cache hits.
  struct CacheStats {
    std::uint64_t compiles = 0;
    std::uint64_t compile_hits = 0;
    std::uint64_t pipelines = 0;
    std::uint64_t pipeline_hits = 0;
  };
  CacheStats cache_stats();

 private:
  GpuBackend() = default;
  std::unique_ptr<gpu::VulkanContext> context_;
  std::unique_ptr<gpu::VulkanExecutor> executor_;
  std::optional<std::filesystem::path> dump_glsl_;
  gpu::LoweringFault lowering_fault_ = gpu::LoweringFault::None;
};

}  // namespace gridcheck::props
