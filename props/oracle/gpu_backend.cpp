#include "props/oracle/gpu_backend.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "gpu/buffer_pool.hpp"
#include "gpu/compute_pipeline.hpp"
#include "gpu/glsl_compiler.hpp"
#include "gpu/kernel.hpp"
#include "gpu/queue_submitter.hpp"
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
    const std::uint64_t compiled_before = gpu::GlslCompiler::thread_compile_ns();  // this thread's, not the other lanes'
    std::optional<planner::LaunchError> error = inner_.launch(program, inputs, config, outputs);
    const std::uint64_t compile = gpu::GlslCompiler::thread_compile_ns() - compiled_before;
    const std::uint64_t prepare = inner_.last_launch().lower_compile_ns;
    recharge(Phase::Launch, Phase::Compile, compile);
    recharge(Phase::Launch, Phase::Pipeline, prepare > compile ? prepare - compile : 0);
    return error;
  }

 private:
  gpu::VulkanExecutor& inner_;
};

}  // namespace

struct GpuBackend::Lane {
  std::unique_ptr<gpu::VulkanExecutor> executor;
  std::unique_ptr<gpu::ResidentSession> session;
};

struct GpuBackend::Replica {
  std::unique_ptr<gpu::VulkanContext> context;
  std::unique_ptr<gpu::KernelStore> kernels;
  std::vector<Lane*> free_lanes;
};

/// A lane for the length of one run, and the shared hold on runs_ that keeps trim_if_full out.
class GpuBackend::LaneLease {
 public:
  explicit LaneLease(GpuBackend& backend) : backend_(backend), runs_(backend.enter_run()) {
    std::lock_guard lock(backend_.lanes_mutex_);
    replica_ = &backend_.replica_of_this_thread();
    if (replica_->free_lanes.empty()) {
      auto lane = std::make_unique<Lane>();
      lane->executor = std::make_unique<gpu::VulkanExecutor>(*replica_->context, *replica_->kernels);
      lane->executor->set_dump_dir(backend_.dump_glsl_);
      lane->executor->set_lowering_fault(backend_.lowering_fault_);
      lane->session = std::make_unique<gpu::ResidentSession>(*replica_->context, *replica_->kernels);
      lane->session->set_dump_dir(backend_.dump_glsl_);
      lane->session->set_lowering_fault(backend_.lowering_fault_);
      replica_->free_lanes.push_back(lane.get());
      backend_.lanes_.push_back(std::move(lane));
    }
    lane_ = replica_->free_lanes.back();
    replica_->free_lanes.pop_back();
  }
  ~LaneLease() {
    std::lock_guard lock(backend_.lanes_mutex_);
    replica_->free_lanes.push_back(lane_);
  }
  LaneLease(const LaneLease&) = delete;
  LaneLease& operator=(const LaneLease&) = delete;
  Lane& operator*() { return *lane_; }
  Lane* operator->() { return lane_; }

 private:
  GpuBackend& backend_;
  std::shared_lock<std::shared_mutex> runs_;
  Replica* replica_ = nullptr;
  Lane* lane_ = nullptr;
};

GpuBackend::GpuBackend() = default;

ir::Result<std::unique_ptr<GpuBackend>> GpuBackend::open(const GpuBackendOptions& options) {
  gpu::ContextOptions context_options;
  context_options.device = options.device;
  context_options.validation = options.validation;
  if (options.pipeline_cache)
    context_options.pipeline_cache_dir = options.pipeline_cache_dir ? options.pipeline_cache_dir : gpu::default_pipeline_cache_dir();
  context_options.pipeline_cache_max_bytes = options.cache_file_max_bytes;
  context_options.literals = options.literals;
  auto context = gpu::VulkanContext::create(context_options);
  if (!context) return context.diagnostics();
  std::unique_ptr<GpuBackend> backend(new GpuBackend());
  auto& first = *backend->replicas_.emplace_back(std::make_unique<Replica>());
  first.context = std::move(context).value();
  first.kernels = std::make_unique<gpu::KernelStore>();
  if (context_options.pipeline_cache_dir)
    first.kernels->compiler().attach_file(*context_options.pipeline_cache_dir / "spirv.bin",
                                          options.cache_file_max_bytes != 0 ? options.cache_file_max_bytes
                                                                            : gpu::GlslCompiler::kDefaultMaxFileBytes);
  if (options.concurrency > 1 && gpu::compiles_on_queue_thread(first.context->info())) {
    // More devices of the same physical device, without cache files (the first one keeps those). One that
    // cannot be opened leaves the backend with the devices it has: they only make it faster.
    gpu::ContextOptions more = context_options;
    more.device = std::to_string(first.context->info().index);
    more.pipeline_cache_dir.reset();
    while (backend->replicas_.size() < options.concurrency) {
      auto another = gpu::VulkanContext::create(more);
      if (!another) break;
      auto& replica = *backend->replicas_.emplace_back(std::make_unique<Replica>());
      replica.context = std::move(another).value();
      replica.kernels = std::make_unique<gpu::KernelStore>(first.kernels->compiler());
    }
  }
  backend->dump_glsl_ = options.dump_glsl;
  backend->lowering_fault_ = options.lowering_fault;
  backend->max_pipelines_ = options.max_pipelines;
  return backend;
}

GpuBackend::~GpuBackend() {
  lanes_.clear();  // before the kernels and the contexts they use
  for (auto it = replicas_.rbegin(); it != replicas_.rend(); ++it) (*it)->kernels.reset();  // [0] owns the compiler
}

GpuBackend::Replica& GpuBackend::replica_of_this_thread() {
  if (replicas_.size() == 1) return *replicas_.front();
  auto [it, added] = thread_replica_.try_emplace(std::this_thread::get_id(), next_replica_);
  if (added) next_replica_ = (next_replica_ + 1) % replicas_.size();
  return *replicas_[it->second];
}

std::shared_lock<std::shared_mutex> GpuBackend::enter_run() {
  const std::lock_guard gate(gate_);  // a trim waiting for runs_ holds the gate: wait for it
  return std::shared_lock(runs_);
}

void GpuBackend::trim_if_full() {
  const auto full = [&] {
    return std::any_of(replicas_.begin(), replicas_.end(), [&](const auto& r) { return r->context->pipelines().size() > max_pipelines_; });
  };
  if (!full()) return;
  // The gate first: no new run starts, so the runs in flight end and the exclusive hold comes even
  // while the other workers are busy (a reader-preferring shared_mutex alone could starve it).
  const std::lock_guard gate(gate_);
  std::unique_lock exclusive(runs_);  // no run in flight: no kernel, pipeline or buffer is in use
  if (!full()) return;
  ++trims_;
  for (const auto& r : replicas_) {
    r->kernels->clear_kernels();
    r->context->pipelines().clear();
  }
  replicas_.front()->kernels->compiler().clear();  // the one compile cache they share
}

GpuSplitRunner GpuBackend::host_runner() {
  return [this](const planner::Profile& profile, const ir::Program& program, std::span<const planner::Bytes> inputs,
                const planner::RunConfig& config) {
    planner::SplitRun run;
    {
      LaneLease lane(*this);
      TimedExecutor timed(*lane->executor);
      run = planner::run_split(profile, program, inputs, config, timed);
    }
    trim_if_full();
    return run;
  };
}

GpuSplitRunner GpuBackend::resident_runner() {
  return [this](const planner::Profile& profile, const ir::Program& program, std::span<const planner::Bytes> inputs,
                const planner::RunConfig& config) {
    planner::SplitRun run;
    {
      LaneLease lane(*this);
      const PhaseScope timed(Phase::Launch);  // resident mode: glslang and spirv-val are Compile, the rest Launch
      const std::uint64_t compiled_before = gpu::GlslCompiler::thread_compile_ns();
      gpu::ResidentSession& session = *lane->session;
      session.clear();
      std::vector<planner::Bytes> outputs;
      run = gpu::run_split_resident(profile, program, inputs, config, session, outputs);
      recharge(Phase::Launch, Phase::Compile, gpu::GlslCompiler::thread_compile_ns() - compiled_before);
      if (run.ok()) run.outputs = std::move(outputs);
      session.clear();  // its buffers back to the pool
    }
    trim_if_full();
    return run;
  };
}

void GpuBackend::attach(OracleOptions& options) {
  options.gpu = host_runner();
  options.gpu_resident = resident_runner();
  options.gpu_name = "H-gpu";
}

std::string GpuBackend::device_name() const { return replicas_.front()->context->info().name; }
gpu::LiteralPolicy GpuBackend::literal_policy() const { return replicas_.front()->context->literal_policy(); }
gpu::VulkanContext& GpuBackend::context() { return *replicas_.front()->context; }
gpu::KernelStore& GpuBackend::kernels() { return *replicas_.front()->kernels; }
GpuBackend::CacheStats GpuBackend::cache_stats() {
  CacheStats stats;
  stats.compiles = kernels().compiler().compiles();
  stats.compile_hits = kernels().compiler().hits();
  for (const auto& r : replicas_) {
    stats.pipelines += r->context->pipelines().misses();
    stats.pipeline_hits += r->context->pipelines().hits();
  }
  return stats;
}

std::size_t GpuBackend::validation_messages() const {
  std::size_t n = 0;
  for (const auto& r : replicas_) n += r->context->validation_log().count();
  return n;
}
std::size_t GpuBackend::lanes() const {
  std::lock_guard lock(lanes_mutex_);
  return lanes_.size();
}

std::vector<std::string> GpuBackend::save_caches() {
  std::vector<std::string> notes;
  gpu::PipelineCache& p = context().pipelines();  // the other devices keep no file
  if (std::optional<std::string> error = p.save()) notes.push_back("the pipeline cache file was not saved: " + *error);
  else if (p.not_kept() > 0 || p.last_save() == gpu::PipelineCacheSave::Cut)
    notes.push_back(fmt::format("the pipeline cache file {} reached its {} MiB cap: it keeps the pipelines met first, {} "
                                "made later are not in it (--cache-max-mib, docs/gpu.md)",
                                p.file()->string(), p.max_file_bytes() >> 20, p.not_kept()));
  gpu::GlslCompiler& c = kernels().compiler();
  if (std::optional<std::string> error = c.save()) notes.push_back("the SPIR-V cache file was not saved: " + *error);
  else if (c.last_save() == gpu::SpirvCacheSave::Trimmed)
    notes.push_back(fmt::format("the SPIR-V cache file {} reached its {} MiB cap: it keeps the shaders this run met first, "
                                "the others were left out (--cache-max-mib, docs/gpu.md)",
                                c.file()->string(), c.max_file_bytes() >> 20));
  return notes;
}

std::string GpuBackend::stats_line() {
  gpu::GlslCompiler& c = kernels().compiler();
  gpu::PipelineCache& p = context().pipelines();  // the one with the file
  std::uint64_t pipelines = 0, pipeline_ns = 0, pipeline_hits = 0, kernel_hits = 0, submissions = 0, queue_calls = 0,
                submit_wait_ns = 0, buffers_made = 0, buffers_reused = 0;
  for (const auto& r : replicas_) {
    gpu::VulkanContext& ctx = *r->context;
    pipelines += ctx.pipelines().misses();
    pipeline_ns += ctx.pipelines().create_ns();
    pipeline_hits += ctx.pipelines().hits();
    kernel_hits += r->kernels->kernels().hits();
    submissions += ctx.submissions();
    queue_calls += ctx.submitter().queue_calls();
    submit_wait_ns += ctx.submit_wait_ns();
    const gpu::BufferPoolStats b = ctx.buffers().stats();
    buffers_made += b.created;
    buffers_reused += b.reused;
  }
  const char* file = p.load_result() == gpu::PipelineCacheLoad::Loaded    ? "loaded"
                     : p.load_result() == gpu::PipelineCacheLoad::Ignored ? "ignored (corrupt or another driver's)"
                     : p.file()                                           ? "new"
                                                                          : "off";
  const std::string spirv_file =
      !c.file()                                           ? "off"
      : c.file_load() == gpu::SpirvCacheLoad::Loaded      ? fmt::format("{} of {} shaders used", c.file_hits(), c.file_entries())
      : c.file_load() == gpu::SpirvCacheLoad::Ignored     ? std::string("ignored (damaged or another toolchain's)")
                                                          : std::string("new");
  return fmt::format("H-gpu: {} compiles {:.0f} ms ({} hits), {} pipelines {:.0f} ms ({} hits), {} kernel hits, {} submissions "
                     "in {} queue calls {:.0f} ms to completion, buffers {} made {} reused, {} lane{}{}, pipeline cache file {}{}, "
                     "SPIR-V cache file {}",
                     c.compiles(), c.compile_ns() / 1e6, c.hits(), pipelines, pipeline_ns / 1e6, pipeline_hits, kernel_hits,
                     submissions, queue_calls, submit_wait_ns / 1e6, buffers_made, buffers_reused, lanes(), lanes() == 1 ? "" : "s",
                     devices() > 1 ? fmt::format(" on {} devices", devices()) : std::string(), file,
                     p.file() ? " (" + p.file()->string() + ")" : std::string(), spirv_file);
}

}  // namespace gridcheck::props
