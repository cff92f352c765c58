#include "gpu/vulkan_executor.hpp"

#include <chrono>
#include <cstring>

#include <fmt/format.h>

#include "gpu/buffer_pool.hpp"
#include "gpu/command_batch.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gpu_diagnostics.hpp"
#include "gpu/kernel.hpp"
#include "ir/abi.hpp"

namespace gridcheck::gpu {
namespace {

using Clock = std::chrono::steady_clock;

std::uint64_t since(Clock::time_point start) {
  return static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count());
}

planner::LaunchError invalid(Code code, std::string message) { return to_launch_error(make_error(code, std::move(message))); }

}  // namespace

ir::Result<std::unique_ptr<VulkanExecutor>> VulkanExecutor::create(const ContextOptions& options) {
  ir::Result<std::unique_ptr<VulkanContext>> ctx = VulkanContext::create(options);
  if (!ctx) return ctx.diagnostics();
  auto exec = std::make_unique<VulkanExecutor>(**ctx);
  exec->owned_ = std::move(ctx).value();
  return exec;
}

VulkanExecutor::VulkanExecutor(VulkanContext& ctx)
    : ctx_(&ctx), owned_kernels_(std::make_unique<KernelStore>()), kernels_(owned_kernels_.get()), batch_(ctx) {}
VulkanExecutor::VulkanExecutor(VulkanContext& ctx, KernelStore& kernels) : ctx_(&ctx), kernels_(&kernels), batch_(ctx) {}
VulkanExecutor::~VulkanExecutor() = default;

std::string VulkanExecutor::name() const { return "vulkan:" + ctx_->info().name; }

std::optional<planner::LaunchError> VulkanExecutor::launch(const ir::Program& program,
                                                          std::span<const planner::Bytes* const> inputs,
                                                          const planner::LaunchConfig& config,
                                                          std::vector<planner::Bytes>& outputs) {
  const auto start = Clock::now();
  last_ = {};
  ++launches_;
  if (config.fixpoint_iterations == 0) return invalid(Code::BadInputs, "fixpoint_iterations is 0; a launch runs at least once");

  KernelOptions ko;
  ko.workgroup_override = config.workgroup_override;
  ko.label = label_;  // never a per-launch counter: the label is part of the GLSL text, the compile cache's key
  ko.dump_dir = dump_dir_;
  ko.validate = validate_;
  ko.fault = fault_;
  ir::Result<std::shared_ptr<const Kernel>> kernel = kernels_->get(*ctx_, program, ko);
  last_.lower_compile_ns = since(start);
  if (!kernel) return to_launch_error(kernel.diagnostics().all().front());
  const LoweredShader& shader = (*kernel)->shader;

  ir::Result<std::array<std::uint32_t, 3>> grid = launch_grid(program, config);
  if (!grid) {
    planner::LaunchError e = to_launch_error(grid.diagnostics().all().front());
    e.kind = planner::LaunchErrorKind::InvalidProgram;
    return e;
  }
  if (std::optional<ir::Diagnostic> d = check_grid(*ctx_, *grid)) return to_launch_error(*d);

  // Bytes of every non-workgroup buffer: the caller's for inputs, zeros for the other outputs.
  const auto decls = program.buffers();
  std::size_t expected_inputs = 0;
  for (const ir::BufferDecl& b : decls) expected_inputs += ir::is_dispatch_input(b) ? 1 : 0;
  if (inputs.size() != expected_inputs)
    return invalid(Code::BadInputs, fmt::format("the launch takes {} input buffers but received {}", expected_inputs, inputs.size()));
  std::vector<const planner::Bytes*> input_of(decls.size(), nullptr);
  std::vector<std::uint64_t> size_of(decls.size(), 0);
  for (std::size_t i = 0, next = 0; i < decls.size(); ++i) {
    const ir::BufferDecl& b = decls[i];
    if (b.access == ir::BufferAccess::Workgroup) continue;
    if (ir::is_dispatch_input(b)) {
      const planner::Bytes* bytes = inputs[next++];
      GC_ASSERT(bytes != nullptr);
      if (b.count > 0 && bytes->size() != b.static_byte_len())
        return invalid(Code::BadInputs, fmt::format("input buffer `{}` has {} bytes but its declaration needs exactly {} (count {})",
                                                    program.name(b.name), bytes->size(), b.static_byte_len(), b.count));
      input_of[i] = bytes;
      size_of[i] = bytes->size();
    } else {
      const std::optional<std::uint64_t> bytes = ir::backend_allocation_bytes(b);
      if (!bytes)
        return invalid(Code::NoOutputSize, fmt::format("output buffer `{}` receives no bytes and has neither a count nor an "
                                                       "output_byte_range to size it",
                                                       program.name(b.name)));
      size_of[i] = *bytes;
    }
  }

  // Pooled buffers: zero-filled on acquire, back to the pool when this launch returns (after its wait).
  std::vector<std::shared_ptr<DeviceBuffer>> buffers(decls.size());
  for (const BufferBinding& bb : shader.buffers) {
    ir::Result<std::shared_ptr<DeviceBuffer>> buffer = ctx_->buffers().acquire(size_of[bb.decl_index]);
    if (!buffer) return to_launch_error(buffer.diagnostics().all().front());
    buffers[bb.decl_index] = std::move(buffer).value();
    if (const planner::Bytes* in = input_of[bb.decl_index]) buffers[bb.decl_index]->write(*in);
  }
  std::shared_ptr<DeviceBuffer> trap;
  if (shader.trap_binding) {
    ir::Result<std::shared_ptr<DeviceBuffer>> t = ctx_->buffers().acquire(8);
    if (!t) return to_launch_error(t.diagnostics().all().front());
    trap = std::move(t).value();
    std::memset(trap->bytes().data(), 0xFF, 8);
  }

  std::vector<const DeviceBuffer*> bound;
  std::vector<std::uint32_t> push(shader.push_constant_words, 0);
  for (const BufferBinding& bb : shader.buffers) {
    bound.push_back(buffers[bb.decl_index].get());
    if (bb.length_push_word) push[*bb.length_push_word] = static_cast<std::uint32_t>(size_of[bb.decl_index] / 4);
  }
  if (shader.trap_binding) bound.push_back(trap.get());

  // Outputs in memory the host reads uncached are copied to host-cached staging buffers after the
  // dispatches (a range outside its buffer is left for the check after the launch).
  std::vector<std::optional<std::size_t>> staged(decls.size());
  std::vector<ir::ByteRange> staged_range(decls.size());
  for (std::size_t i = 0, next = 0; i < decls.size(); ++i) {
    const ir::BufferDecl& b = decls[i];
    if (!ir::is_dispatch_output(b) || !buffers[i] || buffers[i]->host_cached()) continue;
    const ir::ByteRange r = b.output_byte_range.value_or(ir::ByteRange{0, buffers[i]->size()});
    if (r.begin >= r.end || r.end > buffers[i]->size()) continue;
    if (staging_.size() <= next) staging_.emplace_back();
    DeviceBuffer& s = staging_[next];
    if (!s.valid() || s.size() < r.end - r.begin) {
      ir::Result<DeviceBuffer> made = DeviceBuffer::create(*ctx_, r.end - r.begin, DeviceBuffer::Use::Readback);
      if (!made) break;  // read the rest in place
      s = std::move(made).value();
    }
    if (!s.host_cached()) break;  // the device has no host-cached memory: read in place
    staged[i] = next++;
    staged_range[i] = r;
  }
  for (std::uint32_t i = 0; i < config.fixpoint_iterations; ++i) batch_.dispatch(*(*kernel)->pipeline, bound, push, *grid);
  for (std::size_t i = 0; i < decls.size(); ++i)
    if (staged[i])
      batch_.copy(*buffers[i], staged_range[i].begin, staging_[*staged[i]], staged_range[i].end - staged_range[i].begin);
  ir::Result<SubmitStats> submitted = batch_.submit_and_wait();
  if (!submitted) return to_launch_error(submitted.diagnostics().all().front());
  last_.submit_ns = submitted->wall_ns;

  if (shader.trap_binding) {
    std::uint64_t key = 0;
    std::memcpy(&key, trap->bytes().data(), 8);
    if (std::optional<planner::LaunchError> e = trap_error(key, shader, *grid)) return e;
  }

  std::size_t n = 0;
  for (const ir::BufferDecl& b : decls) n += ir::is_dispatch_output(b) ? 1 : 0;
  outputs.resize(n);
  for (std::size_t i = 0, next = 0; i < decls.size(); ++i) {
    const ir::BufferDecl& b = decls[i];
    if (!ir::is_dispatch_output(b)) continue;
    std::span<const std::uint8_t> bytes = buffers[i] ? buffers[i]->bytes() : std::span<const std::uint8_t>{};
    if (b.output_byte_range) {
      const ir::ByteRange r = *b.output_byte_range;
      if (r.begin > r.end || r.end > bytes.size())
        return invalid(Code::BadInputs, fmt::format("output_byte_range {}..{} of `{}` lies outside its {} bytes", r.begin, r.end,
                                                    program.name(b.name), bytes.size()));
      bytes = bytes.subspan(r.begin, r.end - r.begin);
    }
    if (staged[i]) bytes = staging_[*staged[i]].bytes().first(bytes.size());  // the same bytes, host-cached
    outputs[next++].assign(bytes.begin(), bytes.end());
  }
  last_.total_ns = since(start);
  return std::nullopt;
}

}  // namespace gridcheck::gpu
