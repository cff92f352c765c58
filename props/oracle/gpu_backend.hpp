#pragma once
// H-gpu for the oracle and the CLI: one Vulkan device (gpu/) opened once per process, offering the
// split in host mode (each launch reads back and re-uploads, like the seed) and in resident mode
// (buffers stay on the device; only final outputs are read back). Both modes must give identical
// bytes; the oracle checks that.
//
// The runners may be called from several threads at once (`fuzz -j N`): each call takes a lane (a
// VulkanExecutor and a ResidentSession of its own: command pool, fence, descriptor pool) from a free
// list, made on first need, so N workers record and wait in parallel and only vkQueueSubmit is
// serialised (VulkanContext::submit). All lanes share one KernelStore (compile cache, validation
// verdicts, prepared kernels), the context's PipelineCache (and its VkPipelineCache file) and its
// BufferPool, so host and resident mode compile and create each segment's pipeline once.
// On a driver that compiles a shader on its queue's one thread when it first runs (gpu::compiles_on_queue_thread:
// Mesa's lavapipe), one device would compile for every worker in turn; there the backend opens one VkDevice
// of the same physical device per expected concurrent run (GpuBackendOptions::concurrency), each with its
// own PipelineCache, BufferPool, kernel cache and lanes but the first one's compile cache and cache files,
// and gives each worker thread the device it met first, so that a case's host and resident runs share
// their pipelines.
// Caches grow with the distinct shaders seen; past max_pipelines pipelines the backend waits until no
// run is in flight and starts them over (the VkPipelineCache is kept). A trim that waits closes the
// door to new runs first, so N busy workers cannot starve it (they wait for it, briefly, instead).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "gpu/glsl_lowering.hpp"
#include "ir/diagnostic.hpp"
#include "props/oracle/evaluate_case.hpp"
#include "props/oracle/expectations.hpp"

namespace gridcheck::gpu {
class KernelStore;
class ResidentSession;
class VulkanContext;
class VulkanExecutor;
}  // namespace gridcheck::gpu

namespace gridcheck::props {

struct GpuBackendOptions {
  std::string device;                           ///< index or name ("" = first discrete GPU, else lavapipe)
  bool validation = false;                      ///< validation layers + synchronization validation
  std::optional<std::filesystem::path> dump_glsl;  ///< also write every lowered shader there
  /// The directory of the VkPipelineCache file and the SPIR-V cache file (docs/gpu.md); nullopt:
  /// gpu::default_pipeline_cache_dir().
  std::optional<std::filesystem::path> pipeline_cache_dir;
  bool pipeline_cache = true;                   ///< false: neither file (`--pipeline-cache off`)
  /// The cap on each of the two files in bytes (`--cache-max-mib`); 0: their defaults (256 MiB).
  std::uint64_t cache_file_max_bytes = 0;
  /// Which program literals the shaders hide from the driver's compiler (`--gpu-literals`; docs/gpu.md).
  gpu::LiteralPolicy literals = gpu::LiteralPolicy::HiddenValues;
  /// A deliberate lowering bug in both modes, tests only (gpu/glsl_lowering.hpp LoweringFault; the CLI
  /// reads it from $GRIDCHECK_TEST_GPU_FAULT).
  gpu::LoweringFault lowering_fault = gpu::LoweringFault::None;
  /// Pipelines kept before the caches start over (GpuBackend::kMaxPipelines; tests use a small one).
  std::size_t max_pipelines = 4096;  // = GpuBackend::kMaxPipelines
  /// Runs expected at once (`fuzz -j N`): on a device that compiles on its queue's thread, that many
  /// VkDevices are opened (the header comment); elsewhere this changes nothing.
  unsigned concurrency = 1;
};

class GpuBackend {
 public:
  /// Pipelines kept before the caches start over, by default.
  static constexpr std::size_t kMaxPipelines = 4096;

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
  /// VkDevices opened on the one physical device (1, or the concurrency on a driver that compiles on its
  /// queue's thread).
  std::size_t devices() const { return replicas_.size(); }
  /// Which program literals this device's shaders hide (GpuBackendOptions::literals).
  gpu::LiteralPolicy literal_policy() const;
  gpu::VulkanContext& context();  ///< the first device's
  gpu::KernelStore& kernels();     ///< the first device's
  /// Validation messages recorded so far (0 without validation).
  std::size_t validation_messages() const;
  /// Lanes made so far (at most the number of runs that were ever in flight at once).
  std::size_t lanes() const;
  /// How often the caches were started over (max_pipelines).
  std::uint64_t trims() const { return trims_.load(); }
  /// One line of per-phase figures: compiles (glslang + spirv-val) and their time, compile-cache hits,
  /// pipelines created and their time, pipeline-cache hits, kernel-cache hits, submissions and their
  /// time to the fence, buffers created and reused, lanes, the pipeline cache file's state.
  std::string stats_line();
  /// Saves the pipeline cache file and the SPIR-V cache file now (they are saved on destruction too);
  /// one note per file that could not be written whole (over its cap, or a file-system error).
  std::vector<std::string> save_caches();

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
  struct Lane;
  struct Replica;
  class LaneLease;
  GpuBackend();
  /// Starts the caches over when they hold more than max_pipelines_ pipelines (waits for runs in flight).
  void trim_if_full();
  /// The shared hold on runs_ for one run, taken through gate_ (not while a trim waits).
  std::shared_lock<std::shared_mutex> enter_run();
  /// The device this thread runs on: the one it was given first, round robin. lanes_mutex_ held.
  Replica& replica_of_this_thread();

  std::vector<std::unique_ptr<Replica>> replicas_;  ///< [0] holds the compile cache and the cache files
  std::optional<std::filesystem::path> dump_glsl_;
  mutable std::mutex lanes_mutex_;
  std::vector<std::unique_ptr<Lane>> lanes_;
  std::unordered_map<std::thread::id, std::size_t> thread_replica_;
  std::size_t next_replica_ = 0;
  std::mutex gate_;         ///< passed by every run on its way in, held by trim_if_full while it waits
  std::shared_mutex runs_;  ///< held shared by every run, exclusively by trim_if_full
  gpu::LoweringFault lowering_fault_ = gpu::LoweringFault::None;
  std::size_t max_pipelines_ = kMaxPipelines;
  std::atomic<std::uint64_t> trims_{0};
};

}  // namespace gridcheck::props
