#include "props/oracle/gpu_backend.hpp"

#include "gpu/compute_pipeline.hpp"
#include "gpu/resident_session.hpp"
#include "gpu/resident_split.hpp"
#include "gpu/vulkan_context.hpp"
#include "gpu/vulkan_executor.hpp"
#include "planner/split_dispatch.hpp"
#include "props/oracle/phase_clock.hpp"

namespace gridcheck::props {
namespace {

/// The Vulkan executor with its launches timed by phase (phase_clock.hpp), from the executor's own
/// counters: glslang and spirv-val are Compile, the rest of kernel preparation is Pipeline, the
/// rest of the launch (upload, record, submit, wait, read-back) is Launch.
class TimedExecutor final : public planner::Executor {
 public:
  explicit TimedExecutor(gpu::VulkanExecutor& inner) : inner_(inner) {}
  std::string name() const override { return inner_.name(); }
  std::optional<planner::LaunchError> launch(const ir::Program& program, std::span<const planner::Bytes* const> inputs,
                                             const planner::LaunchConfig& config,
                                             std::vector<planner::Bytes>& outputs) override {
    const PhaseScope timed(Phase::Launch);
    const std::uint64_t compiled_before = inner_.compiler().compile_ns();
    std::optional<planner::LaunchError> error = inner_.launch(program, inputs, config, outputs);
    const std::uint64_t compile = inner_.compiler().compile_ns() - compiled_before;
    const std::uint64_t prepare = inner_.last_launch().lower_compile_ns;
    recharge(Phase::Launch, Phase::Compile, compile);
    recharge(Phase::Launch, Phase::Pipeline, prepare > compile ? prepare - compile : 0);
    return error;
  }

 private:
  gpu::VulkanExecutor& inner_;
};

}  // namespace

ir::Result<std::unique_ptr<GpuBackend>> GpuBackend::open(const GpuBackendOptions& options) {
  gpu::ContextOptions context_options;
  context_options.device = options.device;
  context_options.validation = options.validation;
  auto context = gpu::VulkanContext::create(context_options);
  if (!context) return context.diagnostics();
  std::unique_ptr<GpuBackend> backend(new GpuBackend());
  backend->context_ = std::move(context).value();
  backend->executor_ = std::make_unique<gpu::VulkanExecutor>(*backend->context_);
  backend->executor_->set_dump_dir(options.dump_glsl);
  backend->dump_glsl_ = options.dump_glsl;
  backend->executor_->set_lowering_fault(options.lowering_fault);
  backend->lowering_fault_ = options.lowering_fault;
  return backend;
}

GpuBackend::~GpuBackend() {
  executor_.reset();  // before the context it uses
}

GpuSplitRunner GpuBackend::host_runner() {
  return [this](const planner::Profile& profile, const ir::Program& program, std::span<const planner::Bytes> inputs,
                const planner::RunConfig& config) {
    TimedExecutor timed(*executor_);
    return planner::run_split(profile, program, inputs, config, timed);
  };
}

GpuSplitRunner GpuBackend::resident_runner() {
  return [this](const planner::Profile& profile, const ir::Program& program, std::span<const planner::Bytes> inputs,
                const planner::RunConfig& config) {
    const PhaseScope timed(Phase::Launch);  // resident mode: glslang and spirv-val are Compile, the rest Launch
    const std::uint64_t compiled_before = executor_->compiler().compile_ns();
    gpu::ResidentSession session(*context_, executor_->compiler());
    session.set_dump_dir(dump_glsl_);
    session.set_lowering_fault(lowering_fault_);
    std::vector<planner::Bytes> outputs;
    planner::SplitRun run = gpu::run_split_resident(profile, program, inputs, config, session, outputs);
    recharge(Phase::Launch, Phase::Compile, executor_->compiler().compile_ns() - compiled_before);
    if (run.ok()) run.outputs = std::move(outputs);
    return run;
  };
}

void GpuBackend::attach(OracleOptions& options) {
  options.gpu = host_runner();
  options.gpu_resident = resident_runner();
  options.gpu_name = "H-gpu";
}

std::string GpuBackend::device_name() const { return context_->info().name; }
gpu::VulkanContext& GpuBackend::context() { return *context_; }
GpuBackend::CacheStats GpuBackend::cache_stats() {
  CacheStats stats;
  stats.compiles = executor_->compiler().compiles();
  stats.compile_hits = executor_->compiler().hits();
  stats.pipelines = context_->pipelines().misses();
  stats.pipeline_hits = context_->pipelines().hits();
  return stats;
}

std::size_t GpuBackend::validation_messages() const { return context_->validation_log().count(); }

}  // namespace gridcheck::props
