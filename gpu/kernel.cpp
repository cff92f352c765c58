#include "gpu/kernel.hpp"

#include <fstream>

#include <fmt/format.h>

#include "gpu/gpu_diagnostics.hpp"
#include "gpu/vulkan_context.hpp"
#include "ir/equality.hpp"
#include "ir/grid_inference.hpp"
#include "ir/validate/validator.hpp"
#include "ir/scalar_semantics.hpp"
#include "ir/typecheck.hpp"

namespace gridcheck::gpu {
namespace {

std::uint64_t text_hash(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  return h;
}

void dump(const std::filesystem::path& dir, std::string_view label, std::string_view glsl) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::string stem;
  for (char c : label) stem += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (stem.empty()) stem = "launch";
  std::ofstream(dir / fmt::format("{}-{:016x}.comp", stem, text_hash(glsl)), std::ios::binary) << glsl;
}

}  // namespace

std::optional<ir::Diagnostic> check_device_fits(const VulkanContext& ctx, const LoweredShader& s) {
  const DeviceInfo& d = ctx.info();
  const auto& wg = s.workgroup_size;
  for (int i = 0; i < 3; ++i)
    if (wg[i] == 0 || wg[i] > d.max_workgroup_size[i])
      return make_error(Code::WorkgroupTooLarge,
                        fmt::format("workgroup size {} on axis {} is outside 1..{} (maxComputeWorkGroupSize of {})", wg[i],
                                    "xyz"[i], d.max_workgroup_size[i], d.name));
  const std::uint64_t invocations = std::uint64_t{wg[0]} * wg[1] * wg[2];
  if (invocations > d.max_workgroup_invocations)
    return make_error(Code::WorkgroupTooLarge, fmt::format("a workgroup of {} invocations exceeds maxComputeWorkGroupInvocations "
                                                           "({}) of {}",
                                                           invocations, d.max_workgroup_invocations, d.name));
  if (s.shared_memory_bytes > d.max_shared_memory_bytes)
    return make_error(Code::SharedMemoryTooLarge,
                      fmt::format("{} bytes of workgroup memory exceed maxComputeSharedMemorySize ({} bytes) of {}",
                                  s.shared_memory_bytes, d.max_shared_memory_bytes, d.name));
  const std::size_t storage = s.buffers.size() + (s.trap_binding ? 1 : 0);
  if (storage > d.max_storage_buffers_per_stage)
    return make_error(Code::TooManyBuffers, fmt::format("{} storage buffers exceed maxPerStageDescriptorStorageBuffers ({}) of {}",
                                                        storage, d.max_storage_buffers_per_stage, d.name));
  if (s.push_constant_words * 4 > d.max_push_constants_bytes)
    return make_error(Code::TooManyBuffers,
                      fmt::format("{} push-constant words (runtime-sized buffer lengths) need {} bytes; {} allows {}", s.push_constant_words,
                                  s.push_constant_words * 4, d.name, d.max_push_constants_bytes));
  if (s.needs_float64 && !d.shader_float64)
    return make_error(Code::MissingFeature,
                      fmt::format("f32 arithmetic is lowered through double for exact rounding, and {} lacks shaderFloat64", d.name));
  if (s.needs_int64_atomics && !d.buffer_int64_atomics)
    return make_error(Code::MissingFeature, fmt::format("the trap record needs 64-bit buffer atomics (shaderBufferInt64Atomics), "
                                                        "which {} lacks",
                                                        d.name));
  return std::nullopt;
}

std::optional<ir::Diagnostic> check_grid(const VulkanContext& ctx, std::array<std::uint32_t, 3> grid) {
  const DeviceInfo& d = ctx.info();
  for (int i = 0; i < 3; ++i)
    if (grid[i] > d.max_workgroup_count[i])
      return make_error(Code::GridTooLarge, fmt::format("a grid of {} workgroups on axis {} exceeds maxComputeWorkGroupCount ({}) of {}",
                                                        grid[i], "xyz"[i], d.max_workgroup_count[i], d.name));
  return std::nullopt;
}

ir::Result<std::array<std::uint32_t, 3>> launch_grid(const ir::Program& program, const planner::LaunchConfig& config) {
  if (config.grid_override) return *config.grid_override;
  if (config.workgroup_override && *config.workgroup_override != program.workgroup_size()) {
    ir::Program resized = program;
    resized.set_workgroup_size(*config.workgroup_override);
    ir::Result<ir::LaunchPlan> plan = ir::launch_plan(resized);
    if (!plan) return plan.diagnostics();
    return plan->grid;
  }
  ir::Result<ir::LaunchPlan> plan = ir::launch_plan(program);
  if (!plan) return plan.diagnostics();
  return plan->grid;
}

std::optional<ir::Diagnostic> ValidationCache::check(const ir::Program& program, std::string_view label) {
  const std::uint64_t key = ir::content_hash(program);
  std::optional<ir::Diagnostics> errors;
  bool known = false;
  {
    std::lock_guard lock(mutex_);
    if (auto it = verdicts_.find(key); it != verdicts_.end()) {
      known = true;
      errors = it->second;
    }
  }
  if (!known) {
    const ir::Diagnostics ds = ir::validate(program);
    if (ds.has_errors()) {
      errors.emplace();
      for (const ir::Diagnostic& d : ds)
        if (d.severity == ir::Severity::Error) errors->add(d);
    }
    std::lock_guard lock(mutex_);
    verdicts_.emplace(key, errors);
  }
  if (!errors) return std::nullopt;
  const ir::Diagnostic& first = errors->all().front();
  ir::Diagnostic d = make_error(Code::Untyped, fmt::format("{} does not validate: {} [{}]", label.empty() ? "the launch" : label,
                                                           first.message, first.code));
  for (const ir::Diagnostic& n : *errors) d.notes.push_back(n);
  return d;
}

void ValidationCache::clear() {
  std::lock_guard lock(mutex_);
  verdicts_.clear();
}

std::size_t ValidationCache::size() const {
  std::lock_guard lock(mutex_);
  return verdicts_.size();
}

ir::Result<Kernel> prepare_kernel(VulkanContext& ctx, GlslCompiler& compiler, ValidationCache& validations,
                                  const ir::Program& program, const KernelOptions& options) {
  if (options.validate)
    if (std::optional<ir::Diagnostic> d = validations.check(program, options.label)) return *d;
  ir::Result<ir::TypeTable> types = ir::typecheck(program);
  if (!types) {
    ir::Diagnostic d = make_error(Code::Untyped, fmt::format("{} does not type-check: {}", options.label.empty() ? "the launch" : options.label,
                                                             types.diagnostics().all().front().message));
    for (const ir::Diagnostic& n : types.diagnostics()) d.notes.push_back(n);
    return d;
  }
  LoweringOptions lo;
  lo.workgroup_size = options.workgroup_override;  // no label: the GLSL of a segment is the same under every label
  lo.fault = options.fault;
  lo.literals = ctx.literal_policy();
  ir::Result<LoweredShader> shader = lower_to_glsl(program, *types, lo);
  if (!shader) return shader.diagnostics();
  if (options.dump_dir) dump(*options.dump_dir, options.label, shader->glsl);
  if (std::optional<ir::Diagnostic> d = check_device_fits(ctx, *shader)) return *d;
  ir::Result<const Spirv*> spirv = compiler.compile(shader->glsl, options.label.empty() ? "launch" : options.label);
  if (!spirv) return spirv.diagnostics();
  PipelineLayoutDesc layout;
  for (const BufferBinding& b : shader->buffers) layout.storage_bindings.push_back(b.binding);
  if (shader->trap_binding) layout.storage_bindings.push_back(*shader->trap_binding);
  layout.push_constant_words = shader->push_constant_words;
  ir::Result<const ComputePipeline*> pipeline = ctx.pipelines().get(**spirv, layout);
  if (!pipeline) return pipeline.diagnostics();
  return Kernel{std::move(shader).value(), *pipeline};
}

std::shared_ptr<const Kernel> KernelCache::find(std::uint64_t key, const ir::Program& program, const KernelOptions& options) const {
  std::lock_guard lock(mutex_);
  const auto [first, last] = entries_.equal_range(key);
  for (auto it = first; it != last; ++it) {
    const Entry& e = it->second;
    if (e.validate != options.validate || e.workgroup_override != options.workgroup_override || e.fault != options.fault)
      continue;
    bool same_sites = true;
    for (const TrapSite& site : e.kernel->shader.trap_sites) {
      const std::size_t id = static_cast<std::size_t>(site.expr);
      same_sites = same_sites && site.expr != ir::kNoExpr && id < program.expr_count() && id < e.program.expr_count() &&
                   program.loc(site.expr) == site.loc && program.expr(site.expr).kind == e.program.expr(site.expr).kind;
    }
    if (same_sites && ir::structurally_equal(e.program, program)) return e.kernel;
  }
  return nullptr;
}

ir::Result<std::shared_ptr<const Kernel>> KernelCache::get(VulkanContext& ctx, GlslCompiler& compiler, ValidationCache& validations,
                                                           const ir::Program& program, const KernelOptions& options) {
  auto prepare = [&]() -> ir::Result<std::shared_ptr<const Kernel>> {
    ir::Result<Kernel> kernel = prepare_kernel(ctx, compiler, validations, program, options);
    if (!kernel) return kernel.diagnostics();
    return std::make_shared<const Kernel>(std::move(kernel).value());
  };
  if (options.dump_dir) return prepare();
  const std::uint64_t key = ir::content_hash(program);
  if (std::shared_ptr<const Kernel> kept = find(key, program, options)) {
    ++hits_;
    return kept;
  }
  ir::Result<std::shared_ptr<const Kernel>> kernel = prepare();
  if (!kernel) return kernel;
  std::lock_guard lock(mutex_);
  if (entries_.size() >= capacity_) entries_.clear();
  entries_.emplace(key, Entry{program, options.workgroup_override, options.validate, options.fault, *kernel});
  return kernel;
}

std::size_t KernelCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

void KernelCache::clear() {
  std::lock_guard lock(mutex_);
  entries_.clear();
}

std::optional<planner::LaunchError> trap_error(std::uint64_t key, const LoweredShader& shader,
                                               std::array<std::uint32_t, 3> grid) {
  if (key == kNoTrap) return std::nullopt;
  const DecodedTrap t = decode_trap(key);
  const auto& wg = shader.workgroup_size;
  const std::uint32_t gx = std::max<std::uint32_t>(grid[0], 1);
  const std::uint32_t gy = std::max<std::uint32_t>(grid[1], 1);
  const std::array<std::uint32_t, 3> group = {t.workgroup_linear % gx, (t.workgroup_linear / gx) % gy,
                                              t.workgroup_linear / (gx * gy)};
  const std::array<std::uint32_t, 3> local = {t.local_index % wg[0], (t.local_index / wg[0]) % wg[1],
                                              t.local_index / (wg[0] * wg[1])};
  planner::LaunchError e;
  e.kind = planner::LaunchErrorKind::Trap;
  e.invocation = std::array<std::uint32_t, 3>{group[0] * wg[0] + local[0], group[1] * wg[1] + local[1],
                                              group[2] * wg[2] + local[2]};
  if (t.site < shader.trap_sites.size()) e.loc = shader.trap_sites[t.site].loc;
  e.message = fmt::format("{} in invocation ({}, {}, {})", ir::name_of(t.kind), (*e.invocation)[0], (*e.invocation)[1],
                          (*e.invocation)[2]);
  return e;
}

}  // namespace gridcheck::gpu
