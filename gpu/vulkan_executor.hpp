#pragma once
// VulkanExecutor: planner::Executor on a Vulkan device (H-gpu per segment, W-gpu for a whole
// fence-free program). One launch = lower + compile (both cached, in a KernelStore that executors and
// resident sessions of one device may share) + zero-filled host-visible buffers (from the context's
// BufferPool, returned after the launch) + one
// submission of `fixpoint_iterations` dispatches separated by COMPUTE->COMPUTE barriers + readback
// (outputs in memory the host reads uncached are first copied to host-cached staging buffers in the
// same submission).
//
// ABI (planner/executor.hpp): inputs are the ir::is_dispatch_input buffers in declaration order; a
// buffer with a declared count must receive exactly count*4 bytes (docs/semantics.md §5.5); dispatch outputs that
// are not inputs start zero-filled at ir::backend_allocation_bytes; outputs are the
// ir::is_dispatch_output buffers in declaration order, sliced to output_byte_range. The grid is the
// override, else docs/semantics.md §5.7 (ir::launch_plan) for the effective workgroup size.
//
// Errors are LaunchErrors, never exceptions or aborts: a trap is LaunchErrorKind::Trap with the
// source location of the trapping operation and the invocation; device limits are Resource; a GLSL or
// SPIR-V the toolchain rejects is Backend with "internal error: K09x: ..." naming the saved GLSL.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "gpu/command_batch.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/glsl_compiler.hpp"
#include "gpu/kernel.hpp"
#include "gpu/vulkan_context.hpp"
#include "planner/executor.hpp"

namespace gridcheck::gpu {

struct LaunchStats {
  std::uint64_t lower_compile_ns = 0;  ///< type-check + lowering + compile (cache hits are cheap)
  std::uint64_t submit_ns = 0;         ///< submission to fence, all fixpoint iterations
  std::uint64_t total_ns = 0;          ///< the whole launch() call
};

class VulkanExecutor final : public planner::Executor {
 public:
  /// Owns a new context on the chosen device.
  static ir::Result<std::unique_ptr<VulkanExecutor>> create(const ContextOptions& options = {});
  /// Uses `ctx`, which must outlive the executor, and a KernelStore of its own.
  explicit VulkanExecutor(VulkanContext& ctx);
  /// Uses `ctx` and `kernels` (shared with other executors and sessions, on any threads); both must
  /// outlive the executor. One executor is used by one thread at a time.
  VulkanExecutor(VulkanContext& ctx, KernelStore& kernels);
  ~VulkanExecutor() override;

  std::string name() const override;
  std::optional<planner::LaunchError> launch(const ir::Program& program, std::span<const planner::Bytes* const> inputs,
                                             const planner::LaunchConfig& config,
                                             std::vector<planner::Bytes>& outputs) override;

  /// `--dump-glsl DIR`: also write every lowered shader there.
  void set_dump_dir(std::optional<std::filesystem::path> dir) { dump_dir_ = std::move(dir); }
  /// Off: launches are only type-checked, not validated (for deliberately invalid programs).
  void set_validate(bool validate) { validate_ = validate; }
  /// A deliberate lowering bug for the next launches (tests only; glsl_lowering.hpp LoweringFault).
  void set_lowering_fault(LoweringFault fault) { fault_ = fault; }
  /// Labels the next launches' shaders ("segment 2 of 3"); it is a comment in the GLSL, so it must be
  /// stable across launches of the same program for the compile cache to hit. Empty: no label.
  void set_label(std::string label) { label_ = std::move(label); }

  VulkanContext& context() { return *ctx_; }
  GlslCompiler& compiler() { return kernels_->compiler(); }
  KernelStore& kernels() { return *kernels_; }
  const LaunchStats& last_launch() const { return last_; }
  std::uint64_t launches() const { return launches_; }

 private:
  std::unique_ptr<VulkanContext> owned_;
  VulkanContext* ctx_;
  std::unique_ptr<KernelStore> owned_kernels_;
  KernelStore* kernels_;
  CommandBatch batch_;  ///< its driver objects are kept from launch to launch
  std::vector<DeviceBuffer> staging_;  ///< host-cached copies of outputs the host reads uncached (kept)
  std::optional<std::filesystem::path> dump_dir_;
  std::string label_;
  bool validate_ = true;
  LoweringFault fault_ = LoweringFault::None;
  LaunchStats last_;
  std::uint64_t launches_ = 0;
};

}  // namespace gridcheck::gpu
