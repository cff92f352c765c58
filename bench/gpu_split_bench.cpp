// Vulkan executor speed (issue "Vulkan executor"; bench/, never a timed test). One binary, no files, no
// validation layer, so the same figures come from lavapipe here and from a GPU host:
//
//  1. Per-launch cost of the split against a raw Vulkan loop. A program of S segments (S-1 top-level
//     grid_sync fences; segment k does buf[gid] = buf[gid] * 3 + k over one runtime-sized u32 storage
//     buffer of 4 KiB or 16 MiB) runs
//       host      planner::run_split(profile, ...) over gpu::VulkanExecutor (a submission per launch,
//                 buffers copied in and out every launch),
//       resident  gpu::run_split_resident (buffers stay on the device, all launches in one submission),
//       prepared  gpu::run_prepared_resident over a gpu::prepare_split_resident made once per cell (resident
//                 mode without planning: kernels from slots, the recording resubmitted when unchanged),
//       raw       the same SPIR-V (taken from the executor's compile cache, so byte-identical), one
//                 VkPipeline per segment, S dispatches with COMPUTE->COMPUTE barriers in one command
//                 buffer, one submit, one wait, then the read-back: resident mode's submission structure
//                 with nothing else around it.
//     Every run is a whole split (planning included for host and resident); per launch = run / S. For
//     resident, prepared and raw it also reports the host work per launch: (run - the time from
//     vkQueueSubmit to the fence) / S, everything the mode does on the CPU around the device's work. The
//     four modes are interleaved round by round, so load on a shared machine hits them alike. Every
//     mode's result is checked against the host-computed answer.
//  2. Compile and pipeline costs per segment shader: type-check + lowering, glslang + spirv-val for the
//     first shader of the process / a new shader / a compile-cache hit, pipeline creation for a new
//     SPIR-V / a pipeline-cache hit, and the first dispatch of a new pipeline (lavapipe compiles there).
//     These shaders carry a per-process random constant so that no driver disk cache can hit.
//  3. The driver costs behind those figures: buffer creation, host reads and writes of buffer memory,
//     descriptor pools, command buffers, fences, an empty submission.
//
//   gpu_split_bench [--device SEL] [--profile NAME] [--json] [--budget SECONDS] [--min-rounds N]
//                   [--cap SECONDS] [--breakdown] [--segments 2,16,128] [--bytes 4096,16777216]
//
// A (segments, size) cell runs timed rounds (one run of each mode) until --budget seconds have passed
// (default 1) and at least --min-rounds ran (default 3), or until --cap seconds (default 20) have passed
// after at least one round; the table says how many. Figures are medians. Host mode is left out of a cell
// when its time per launch in a smaller cell of the same size says a run would exceed --cap. New shaders get one untimed
// warm-up round first (the 16 MiB cells reuse the 4 KiB cells' shaders). --breakdown also prints a bare
// ResidentSession's upload / queueing per launch / sync per launch / download for every cell.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <vulkan/vulkan.h>

#include "gpu/command_batch.hpp"
#include "gpu/compute_pipeline.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/glsl_compiler.hpp"
#include "gpu/glsl_lowering.hpp"
#include "gpu/kernel.hpp"
#include "gpu/resident_session.hpp"
#include "gpu/resident_split.hpp"
#include "gpu/vulkan_context.hpp"
#include "gpu/vulkan_executor.hpp"
#include "ir/builder.hpp"
#include "planner/profile.hpp"
#include "planner/segment_plan.hpp"
#include "planner/split_dispatch.hpp"

namespace {

using namespace gridcheck;
using planner::Bytes;
using Clock = std::chrono::steady_clock;

constexpr std::uint32_t kWorkgroup = 256;
constexpr std::array<std::uint32_t, 3> kSegmentCounts = {2, 16, 128};
constexpr std::array<std::uint64_t, 2> kBufferBytes = {4ull << 10, 16ull << 20};

[[noreturn]] void die(const std::string& message) {
  std::fprintf(stderr, "gpu_split_bench: %s\n", message.c_str());
  std::exit(2);
}

void check_vk(VkResult r, const char* what) {
  if (r != VK_SUCCESS) die(fmt::format("{} failed (VkResult {})", what, static_cast<int>(r)));
}

template <typename T>
T value_or_die(ir::Result<T> r, std::string_view what) {
  if (!r) die(fmt::format("{}: {}", what, ir::render(r.diagnostics())));
  return std::move(r).value();
}

double ns_since(Clock::time_point start) { return std::chrono::duration<double, std::nano>(Clock::now() - start).count(); }

struct Stats {
  double median = 0, min = 0, max = 0;
  std::size_t n = 0;
};

Stats stats_of(std::vector<double> v) {
  Stats s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  s.min = v.front();
  s.max = v.back();
  s.median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
  return s;
}

std::string size_name(std::uint64_t bytes) {
  return bytes >= (1ull << 20) ? fmt::format("{} MiB", bytes >> 20) : fmt::format("{} KiB", bytes >> 10);
}

// ------------------------------------------------------------------------------------ the program

/// S segments; segment k: buf[gid] = buf[gid] * 3 + (constant + k). `buf` is runtime-sized, so the
/// segments of both buffer sizes are the same shaders.
ir::Program split_program(std::uint32_t segments, std::uint32_t constant) {
  ir::Builder b({kWorkgroup, 1, 1});
  const ir::Buf buf = b.read_write("buf", 0, ir::ScalarType::U32);
  std::vector<ir::S> body;
  for (std::uint32_t k = 0; k < segments; ++k) {
    if (k > 0) body.push_back(b.grid_sync());
    body.push_back(b.store(buf, b.gid(), b.load(buf, b.gid()) * b.u32(3) + b.u32(constant + k)));
  }
  return b.wrapped(body);
}

Bytes initial_bytes(std::uint64_t bytes) {
  Bytes out(bytes);
  for (std::uint64_t i = 0; i < bytes / 4; ++i) {
    const std::uint32_t w = static_cast<std::uint32_t>(i * 2654435761u);
    std::memcpy(out.data() + i * 4, &w, 4);
  }
  return out;
}

Bytes expected_bytes(const Bytes& in, std::uint32_t segments, std::uint32_t constant) {
  Bytes out = in;
  for (std::size_t i = 0; i < out.size() / 4; ++i) {
    std::uint32_t w = 0;
    std::memcpy(&w, out.data() + i * 4, 4);
    for (std::uint32_t k = 0; k < segments; ++k) w = w * 3u + (constant + k);
    std::memcpy(out.data() + i * 4, &w, 4);
  }
  return out;
}

// ------------------------------------------------------------------------------------ the raw loop

/// The raw loop's pipelines: one VkPipeline per segment SPIR-V (its own layouts, no gridcheck cache).
/// Shared by both buffer sizes (the buffer is runtime-sized, so the SPIR-V is the same).
class RawPipelines {
 public:
  struct Segment {
    gpu::Spirv spirv;
    gpu::LoweredShader shader;
  };
  struct Pipe {
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    std::uint32_t binding = 0;
    std::optional<std::uint32_t> length_push_word;
    std::uint32_t push_words = 0;
  };

  RawPipelines(gpu::VulkanContext& ctx, const std::vector<Segment>& segments) : device_(ctx.device()) {
    for (const Segment& s : segments) {
      if (s.shader.trap_binding || s.shader.buffers.size() != 1) die("a segment of the benchmark program has an unexpected binding interface");
      Pipe p;
      p.binding = s.shader.buffers[0].binding;
      p.length_push_word = s.shader.buffers[0].length_push_word;
      p.push_words = s.shader.push_constant_words;
      VkDescriptorSetLayoutBinding lb{};
      lb.binding = p.binding;
      lb.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      lb.descriptorCount = 1;
      lb.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
      VkDescriptorSetLayoutCreateInfo dsl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
      dsl.bindingCount = 1;
      dsl.pBindings = &lb;
      check_vk(vkCreateDescriptorSetLayout(device_, &dsl, nullptr, &p.set_layout), "vkCreateDescriptorSetLayout");
      VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, p.push_words * 4};
      VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
      pl.setLayoutCount = 1;
      pl.pSetLayouts = &p.set_layout;
      pl.pushConstantRangeCount = p.push_words > 0 ? 1 : 0;
      pl.pPushConstantRanges = &push;
      check_vk(vkCreatePipelineLayout(device_, &pl, nullptr, &p.layout), "vkCreatePipelineLayout");
      VkShaderModuleCreateInfo sm{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
      sm.codeSize = s.spirv.size() * 4;
      sm.pCode = s.spirv.data();
      VkShaderModule module = VK_NULL_HANDLE;
      check_vk(vkCreateShaderModule(device_, &sm, nullptr, &module), "vkCreateShaderModule");
      VkComputePipelineCreateInfo cp{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
      cp.stage = VkPipelineShaderStageCreateInfo{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
      cp.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
      cp.stage.module = module;
      cp.stage.pName = "main";
      cp.layout = p.layout;
      const VkResult r = vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &cp, nullptr, &p.pipeline);
      vkDestroyShaderModule(device_, module, nullptr);
      check_vk(r, "vkCreateComputePipelines");
      pipes_.push_back(p);
    }
  }
  ~RawPipelines() {
    for (Pipe& p : pipes_) {
      vkDestroyPipeline(device_, p.pipeline, nullptr);
      vkDestroyPipelineLayout(device_, p.layout, nullptr);
      vkDestroyDescriptorSetLayout(device_, p.set_layout, nullptr);
    }
  }
  RawPipelines(const RawPipelines&) = delete;
  RawPipelines& operator=(const RawPipelines&) = delete;
  const std::vector<Pipe>& pipes() const { return pipes_; }

 private:
  VkDevice device_;
  std::vector<Pipe> pipes_;
};

/// The reference loop over one buffer: a descriptor set per pipeline, S dispatches with COMPUTE->COMPUTE
/// barriers in one command buffer, a COMPUTE->HOST barrier, one submit, one wait. Everything that can be
/// made once is made once; a run is host write, record, submit, wait, read back. Where the host reads the
/// buffer's memory uncached, the read-back goes through a host-cached staging copy in the same command
/// buffer, as the executors do.
class RawLoop {
 public:
  RawLoop(gpu::VulkanContext& ctx, const RawPipelines& pipelines, std::uint64_t bytes, std::array<std::uint32_t, 3> grid)
      : device_(ctx.device()), queue_(ctx.queue()), pipelines_(pipelines), grid_(grid) {
    buffer_ = value_or_die(gpu::DeviceBuffer::create(ctx, bytes), "raw buffer");
    if (!buffer_.host_cached()) {
      staging_ = value_or_die(gpu::DeviceBuffer::create(ctx, bytes, gpu::DeviceBuffer::Use::Readback), "staging buffer");
      if (!staging_.host_cached()) staging_ = gpu::DeviceBuffer();
    }
    const auto& pipes = pipelines.pipes();
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, static_cast<std::uint32_t>(pipes.size())};
    VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = static_cast<std::uint32_t>(pipes.size());
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &size;
    check_vk(vkCreateDescriptorPool(device_, &dpi, nullptr, &pool_), "vkCreateDescriptorPool");
    for (const RawPipelines::Pipe& p : pipes) {
      VkDescriptorSet set = VK_NULL_HANDLE;
      VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      ai.descriptorPool = pool_;
      ai.descriptorSetCount = 1;
      ai.pSetLayouts = &p.set_layout;
      check_vk(vkAllocateDescriptorSets(device_, &ai, &set), "vkAllocateDescriptorSets");
      const VkDescriptorBufferInfo info{buffer_.handle(), 0, buffer_.range()};
      VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
      w.dstSet = set;
      w.dstBinding = p.binding;
      w.descriptorCount = 1;
      w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      w.pBufferInfo = &info;
      vkUpdateDescriptorSets(device_, 1, &w, 0, nullptr);
      sets_.push_back(set);
      std::vector<std::uint32_t> push(p.push_words, 0);  // word 0 is the zero word that hides literals
      if (p.length_push_word) push.at(*p.length_push_word) = static_cast<std::uint32_t>(bytes / 4);
      push_.push_back(std::move(push));
    }
    VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    cpi.queueFamilyIndex = ctx.queue_family();
    check_vk(vkCreateCommandPool(device_, &cpi, nullptr, &commands_), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cai.commandPool = commands_;
    cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cai.commandBufferCount = 1;
    check_vk(vkAllocateCommandBuffers(device_, &cai, &cmd_), "vkAllocateCommandBuffers");
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    check_vk(vkCreateFence(device_, &fi, nullptr, &fence_), "vkCreateFence");
  }
  ~RawLoop() {
    vkDestroyFence(device_, fence_, nullptr);
    vkDestroyCommandPool(device_, commands_, nullptr);
    vkDestroyDescriptorPool(device_, pool_, nullptr);
  }
  RawLoop(const RawLoop&) = delete;
  RawLoop& operator=(const RawLoop&) = delete;

  /// Host write of `in`, record, submit, wait, read back into `out`.
  void run(const Bytes& in, Bytes& out) {
    buffer_.write(in);
    check_vk(vkResetCommandBuffer(cmd_, 0), "vkResetCommandBuffer");
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check_vk(vkBeginCommandBuffer(cmd_, &bi), "vkBeginCommandBuffer");
    const auto& pipes = pipelines_.pipes();
    for (std::size_t k = 0; k < pipes.size(); ++k) {
      const RawPipelines::Pipe& p = pipes[k];
      if (k > 0) {
        VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0,
                             nullptr, 0, nullptr);
      }
      vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.pipeline);
      vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, p.layout, 0, 1, &sets_[k], 0, nullptr);
      if (!push_[k].empty())
        vkCmdPushConstants(cmd_, p.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, static_cast<std::uint32_t>(push_[k].size() * 4),
                           push_[k].data());
      vkCmdDispatch(cmd_, grid_[0], grid_[1], grid_[2]);
    }
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    if (staging_.valid()) {
      mb.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
      vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &mb, 0, nullptr, 0,
                           nullptr);
      const VkBufferCopy region{0, 0, buffer_.range()};
      vkCmdCopyBuffer(cmd_, buffer_.handle(), staging_.handle(), 1, &region);
      mb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
      mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
      vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
    } else {
      mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
      vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0,
                           nullptr);
    }
    check_vk(vkEndCommandBuffer(cmd_), "vkEndCommandBuffer");
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd_;
    const auto submitted = Clock::now();
    check_vk(vkQueueSubmit(queue_, 1, &si, fence_), "vkQueueSubmit");
    check_vk(vkWaitForFences(device_, 1, &fence_, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    last_submit_wait_ns_ = ns_since(submitted);
    check_vk(vkResetFences(device_, 1, &fence_), "vkResetFences");
    const auto bytes = staging_.valid() ? staging_.bytes() : buffer_.bytes();
    out.assign(bytes.begin(), bytes.end());
  }
  /// The last run's time from vkQueueSubmit to the fence (as CommandBatch's SubmitStats).
  double last_submit_wait_ns() const { return last_submit_wait_ns_; }
  bool staged() const { return staging_.valid(); }

 private:
  VkDevice device_;
  VkQueue queue_;
  const RawPipelines& pipelines_;
  std::array<std::uint32_t, 3> grid_;
  gpu::DeviceBuffer buffer_;
  gpu::DeviceBuffer staging_;  ///< valid when the host reads buffer_ uncached
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  std::vector<VkDescriptorSet> sets_;
  std::vector<std::vector<std::uint32_t>> push_;
  VkCommandPool commands_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  double last_submit_wait_ns_ = 0;
};

// ------------------------------------------------------------------------------------ part 1: the split

struct SplitCell {
  std::uint32_t segments = 0;
  std::uint64_t bytes = 0;
  std::size_t rounds = 0;
  Stats host, resident, prepared, raw;  ///< ns per run
  Stats plan;                 ///< ns of plan_split alone (part of every host and resident run)
  /// Host time of a run outside vkQueueSubmit-to-fence (ns per run): everything the mode does on the CPU.
  Stats resident_host, prepared_host, raw_host;
  double resubmitted = 0;     ///< prepared mode: share of its timed submissions that resubmitted the recording
};

struct SplitOptions {
  double budget_s = 1.0;     ///< timed rounds of a cell stop once this much time has passed (and min_rounds ran)
  std::size_t min_rounds = 3;
  double cap_s = 20.0;       ///< ... or once this much has passed, even before min_rounds (at least one round)
  bool breakdown = false;    ///< also time a bare ResidentSession's upload / launch / sync / download
};

/// What one segment count keeps across buffer sizes: the raw pipelines (their first dispatches done).
struct SegmentsState {
  std::unique_ptr<RawPipelines> raw;
};

void print_breakdown(gpu::VulkanContext& ctx, gpu::GlslCompiler& compiler, const planner::SplitPlan& plan, const Bytes& input,
                     std::array<std::uint32_t, 3> grid) {
  gpu::ResidentSession session(ctx, compiler);
  std::vector<double> up, queue, sync, down;
  Bytes out;
  for (int rep = 0; rep < 15; ++rep) {
    auto t = Clock::now();
    if (session.upload("buf", input)) die("upload");
    up.push_back(ns_since(t));
    t = Clock::now();
    for (std::size_t k = 0; k < plan.segments.size(); ++k) {
      session.set_label(fmt::format("segment {} of {}", k + 1, plan.segments.size()));
      planner::LaunchConfig lc;
      lc.grid_override = grid;
      if (session.launch(plan.segments[k].program, lc, plan.segments[k].input_names, plan.segments[k].output_names)) die("launch");
    }
    queue.push_back(ns_since(t));
    t = Clock::now();
    if (session.sync()) die("sync");
    sync.push_back(ns_since(t));
    t = Clock::now();
    if (session.download("buf", out)) die("download");
    down.push_back(ns_since(t));
  }
  const double s = static_cast<double>(plan.segments.size());
  fmt::print(stderr, "    bare session: upload {:.1f} us, queue {:.2f} us/launch, sync {:.2f} us/launch, download {:.1f} us\n",
             stats_of(up).median / 1e3, stats_of(queue).median / 1e3 / s, stats_of(sync).median / 1e3 / s, stats_of(down).median / 1e3);
}

/// `host_launch_hint_ns`: host mode's time per launch in a smaller cell of the same size; host mode is left
/// out (Stats::n == 0) when S launches of it would take longer than opt.cap_s.
SplitCell measure_split(gpu::VulkanExecutor& exec, const planner::Profile& profile, std::uint32_t segments, std::uint64_t bytes,
                        SegmentsState& state, const SplitOptions& opt, std::optional<double> host_launch_hint_ns) {
  const bool with_host = !host_launch_hint_ns || *host_launch_hint_ns * segments < opt.cap_s * 1e9;
  gpu::VulkanContext& ctx = exec.context();
  gpu::GlslCompiler& compiler = exec.compiler();  // one compile cache for all three modes
  const ir::Program program = split_program(segments, 0);
  const std::vector<Bytes> inputs = {initial_bytes(bytes)};
  const Bytes expected = expected_bytes(inputs[0], segments, 0);
  planner::RunConfig config;
  config.grid = std::array<std::uint32_t, 3>{static_cast<std::uint32_t>(bytes / 4 / kWorkgroup), 1, 1};

  Bytes host_out;
  auto run_host = [&] {
    planner::SplitRun run = planner::run_split(profile, program, inputs, config, exec);
    if (!run.ok()) die(fmt::format("host split: {}", run.failure->diagnostic.message));
    if (run.launch_count() != segments || run.outputs.size() != 1) die("host split: unexpected launches or outputs");
    host_out = std::move(run.outputs[0]);
  };
  gpu::ResidentSession session(ctx, compiler);
  std::vector<Bytes> resident_out;  // the caller's output slots, reused run after run
  auto run_resident = [&] {
    planner::SplitRun run = gpu::run_split_resident(profile, program, inputs, config, session, resident_out);
    if (!run.ok()) die(fmt::format("resident split: {}", run.failure->diagnostic.message));
    if (run.launch_count() != segments || resident_out.size() != 1) die("resident split: unexpected launches or outputs");
  };
  // Prepared: the same resident split planned once (prepare_split_resident), each run run_prepared_resident.
  gpu::PreparedSplit prepared = gpu::prepare_split_resident(profile, program);
  gpu::ResidentSession prepared_session(ctx, compiler);
  std::vector<Bytes> prepared_out;
  auto run_prepared = [&] {
    planner::SplitRun run = gpu::run_prepared_resident(prepared, inputs, config, prepared_session, prepared_out);
    if (!run.ok()) die(fmt::format("prepared resident split: {}", run.failure->diagnostic.message));
    if (run.launch_count() != segments || prepared_out.size() != 1) die("prepared resident split: unexpected launches or outputs");
  };
  auto check = [&](std::string_view mode, const Bytes& out) {
    if (out != expected) die(fmt::format("{}: wrong result ({} segments, {})", mode, segments, size_name(bytes)));
  };

  // New shaders: one untimed round compiles them, creates the pipelines and does their first dispatches.
  const bool warm_up = state.raw == nullptr;
  if (warm_up) {
    run_host();  // also when host mode is left out: it compiles the host label's shaders checked below
    check("host split", host_out);
    run_resident();
    check("resident split", resident_out.at(0));
    run_prepared();
    check("prepared resident split", prepared_out.at(0));
  }
  // The raw loop's SPIR-V is that of exactly the GLSL the split loops compiled: a compile-cache hit for each
  // segment under resident mode's label and under the host loop's (none), and the two modules are equal.
  const planner::SplitPlan plan = value_or_die(planner::plan_split(profile, program), "plan_split");
  if (plan.segments.size() != segments) die("plan_split: unexpected segment count");
  if (warm_up) {
    std::vector<RawPipelines::Segment> raw_segments;
    gpu::ValidationCache validations;
    const std::uint64_t compiles_before = compiler.compiles();
    for (std::size_t k = 0; k < plan.segments.size(); ++k) {
      gpu::KernelOptions ko;
      ko.label = fmt::format("segment {} of {}", k + 1, plan.segments.size());  // run_plan_resident's label
      gpu::Kernel kernel = value_or_die(gpu::prepare_kernel(ctx, compiler, validations, plan.segments[k].program, ko), "prepare_kernel");
      ko.label.clear();  // planner::run_split labels nothing
      const gpu::Kernel host_kernel = value_or_die(gpu::prepare_kernel(ctx, compiler, validations, plan.segments[k].program, ko), "prepare_kernel");
      if (host_kernel.pipeline->spirv != kernel.pipeline->spirv) die("host and resident mode compiled different SPIR-V for one segment");
      raw_segments.push_back(RawPipelines::Segment{kernel.pipeline->spirv, std::move(kernel.shader)});
    }
    if (compiler.compiles() != compiles_before) die("the raw loop's GLSL differs from the split's (compile cache missed)");
    state.raw = std::make_unique<RawPipelines>(ctx, raw_segments);
  }
  RawLoop raw(ctx, *state.raw, bytes, *config.grid);
  Bytes raw_out;
  if (warm_up) {
    raw.run(inputs[0], raw_out);
    check("raw loop", raw_out);
  }
  if (opt.breakdown) print_breakdown(ctx, compiler, plan, inputs[0], *config.grid);

  std::vector<double> host_ns, resident_ns, prepared_ns, raw_ns, plan_ns, resident_host_ns, prepared_host_ns, raw_host_ns;
  const std::uint64_t resubmissions_before = prepared_session.resubmissions();
  std::uint64_t prepared_submissions = 0;
  const auto cell_start = Clock::now();
  for (std::size_t round = 0;; ++round) {
    const double elapsed = ns_since(cell_start) / 1e9;
    if (round >= opt.min_rounds && (elapsed >= opt.budget_s || round >= 200)) break;
    if (round >= 1 && elapsed >= opt.cap_s) break;
    // Rotate the order so that no mode always follows another.
    for (std::size_t i = 0; i < 4; ++i) {
      const std::size_t mode = (round + i) % 4;
      if (mode == 2 && !with_host) continue;
      const std::uint64_t waited_before = ctx.submit_wait_ns();
      const std::uint64_t submissions_before = ctx.submissions();
      const auto start = Clock::now();
      if (mode == 0) raw.run(inputs[0], raw_out);
      if (mode == 1) run_resident();
      if (mode == 2) run_host();
      if (mode == 3) run_prepared();
      const double ns = ns_since(start);
      const double waited = static_cast<double>(ctx.submit_wait_ns() - waited_before);
      if (mode == 0) {
        raw_ns.push_back(ns);
        raw_host_ns.push_back(ns - raw.last_submit_wait_ns());
      } else if (mode == 1) {
        resident_ns.push_back(ns);
        resident_host_ns.push_back(ns - waited);
      } else if (mode == 2) {
        host_ns.push_back(ns);
      } else {
        prepared_ns.push_back(ns);
        prepared_host_ns.push_back(ns - waited);
        prepared_submissions += ctx.submissions() - submissions_before;
      }
    }
    const auto start = Clock::now();
    const auto p = planner::plan_split(profile, program);
    plan_ns.push_back(ns_since(start));
    if (!p) die("plan_split failed");
  }
  if (with_host) check("host split", host_out);
  check("resident split", resident_out.at(0));
  check("prepared resident split", prepared_out.at(0));
  check("raw loop", raw_out);
  SplitCell cell;
  cell.segments = segments;
  cell.bytes = bytes;
  cell.rounds = raw_ns.size();
  cell.host = stats_of(host_ns);
  cell.resident = stats_of(resident_ns);
  cell.raw = stats_of(raw_ns);
  cell.plan = stats_of(plan_ns);
  cell.prepared = stats_of(prepared_ns);
  cell.resident_host = stats_of(resident_host_ns);
  cell.prepared_host = stats_of(prepared_host_ns);
  cell.raw_host = stats_of(raw_host_ns);
  cell.resubmitted = prepared_submissions ? static_cast<double>(prepared_session.resubmissions() - resubmissions_before) / prepared_submissions : 0;
  return cell;
}

// ------------------------------------------------------------------------------------ part 2: compile

struct CompileFigures {
  std::size_t glsl_bytes = 0;
  std::size_t spirv_bytes = 0;
  double first_compile_ns = 0;  ///< glslang + spirv-val, first shader of the process
  Stats lower, compile_warm, spirv_val, compile_hit;
  double first_pipeline_ns = 0;  ///< first pipeline of the process
  Stats pipeline_cold, pipeline_hit, first_dispatch, warm_dispatch;
};

CompileFigures measure_compile(gpu::VulkanContext& ctx, std::size_t shaders) {
  // A per-process random constant: neither glslang nor a driver's disk cache has seen these shaders.
  const std::uint32_t salt = std::random_device{}() | 0x10000u;
  gpu::GlslCompiler compiler;
  CompileFigures f;
  std::vector<gpu::LoweredShader> lowered;
  std::vector<double> lower_ns;
  for (std::size_t i = 0; i <= shaders; ++i) {
    const ir::Program p = split_program(1, salt + static_cast<std::uint32_t>(i) * 7919u);
    gpu::LoweringOptions lo;
    lo.label = "segment 1 of 1";
    const auto start = Clock::now();
    lowered.push_back(value_or_die(gpu::lower_to_glsl(p, lo), "lower_to_glsl"));
    lower_ns.push_back(ns_since(start));
  }
  f.lower = stats_of(lower_ns);
  f.glsl_bytes = lowered[0].glsl.size();

  std::vector<const gpu::Spirv*> spirv;
  std::vector<double> warm_ns;
  for (std::size_t i = 0; i < lowered.size(); ++i) {
    const auto start = Clock::now();
    spirv.push_back(value_or_die(compiler.compile(lowered[i].glsl, "segment 1 of 1"), "compile"));
    const double t = ns_since(start);
    if (i == 0) f.first_compile_ns = t;
    else warm_ns.push_back(t);
  }
  f.compile_warm = stats_of(warm_ns);
  f.spirv_bytes = spirv[0]->size() * 4;
  std::vector<double> val_ns, hit_ns;
  for (std::size_t i = 0; i < lowered.size(); ++i) {
    auto start = Clock::now();
    if (gpu::validate_spirv(*spirv[i])) die("spirv-val rejected a compiled shader");
    val_ns.push_back(ns_since(start));
    start = Clock::now();
    if (value_or_die(compiler.compile(lowered[i].glsl, "segment 1 of 1"), "compile") != spirv[i]) die("compile cache returned another module");
    hit_ns.push_back(ns_since(start));
  }
  if (compiler.hits() != lowered.size()) die("compile cache did not hit");
  f.spirv_val = stats_of(val_ns);
  f.compile_hit = stats_of(hit_ns);

  std::vector<const gpu::ComputePipeline*> pipelines;
  std::vector<double> cold_ns, phit_ns;
  for (std::size_t i = 0; i < lowered.size(); ++i) {
    gpu::PipelineLayoutDesc layout;
    for (const gpu::BufferBinding& b : lowered[i].buffers) layout.storage_bindings.push_back(b.binding);
    layout.push_constant_words = lowered[i].push_constant_words;
    auto start = Clock::now();
    pipelines.push_back(value_or_die(ctx.pipelines().get(*spirv[i], layout), "pipeline"));
    const double t = ns_since(start);
    if (i == 0) f.first_pipeline_ns = t;
    else cold_ns.push_back(t);
    start = Clock::now();
    if (value_or_die(ctx.pipelines().get(*spirv[i], layout), "pipeline") != pipelines[i]) die("pipeline cache returned another pipeline");
    phit_ns.push_back(ns_since(start));
  }
  f.pipeline_cold = stats_of(cold_ns);
  f.pipeline_hit = stats_of(phit_ns);

  // One workgroup over one workgroup's words: the first dispatch of each new pipeline, then a second one.
  gpu::DeviceBuffer buffer = value_or_die(gpu::DeviceBuffer::create(ctx, kWorkgroup * 4), "buffer");
  std::vector<double> first_ns, again_ns;
  for (std::size_t i = 0; i < lowered.size(); ++i) {
    std::vector<std::uint32_t> push(lowered[i].push_constant_words, 0);
    if (const auto word = lowered[i].buffers.at(0).length_push_word) push[*word] = kWorkgroup;
    for (int rep = 0; rep < 2; ++rep) {
      gpu::CommandBatch batch(ctx);
      batch.dispatch(*pipelines[i], {&buffer}, push, {1, 1, 1});
      const auto start = Clock::now();
      value_or_die(batch.submit_and_wait(), "dispatch");
      if (i > 0) (rep == 0 ? first_ns : again_ns).push_back(ns_since(start));
    }
  }
  f.first_dispatch = stats_of(first_ns);
  f.warm_dispatch = stats_of(again_ns);
  return f;
}

// ------------------------------------------------------------------------------------ part 3: driver costs

/// What the executors pay the driver for, measured bare, to explain the ratios on a device.
struct DriverFigures {
  std::string memory;  ///< the buffers' memory type (flags) and its heap
  Stats buffer_small, buffer_large;  ///< DeviceBuffer::create + destroy, 4 KiB / 16 MiB (zero-filled by the host)
  Stats read_small, read_large;      ///< host read of mapped buffer memory into a vector with capacity
  Stats staged_large;                ///< 16 MiB: device copy into a Readback buffer (submit + wait) + host read
  Stats write_large;                 ///< host write of 16 MiB into mapped buffer memory
  Stats descriptor_pool, command_buffer, fence;  ///< create + destroy (allocate + free)
  Stats empty_submit;                ///< an empty command buffer: submit + wait
};

std::string memory_flags(VkMemoryPropertyFlags f) {
  std::string out;
  auto add = [&](VkMemoryPropertyFlags bit, const char* name) {
    if (f & bit) out += out.empty() ? name : std::string("|") + name;
  };
  add(VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, "DEVICE_LOCAL");
  add(VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, "HOST_VISIBLE");
  add(VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, "HOST_COHERENT");
  add(VK_MEMORY_PROPERTY_HOST_CACHED_BIT, "HOST_CACHED");
  return out.empty() ? "none" : out;
}

template <typename F>
Stats repeat(std::size_t n, F&& f) {
  std::vector<double> ns;
  for (std::size_t i = 0; i < n; ++i) {
    const auto start = Clock::now();
    f();
    ns.push_back(ns_since(start));
  }
  return stats_of(ns);
}

DriverFigures measure_driver(gpu::VulkanContext& ctx) {
  DriverFigures f;
  const VkDevice device = ctx.device();
  {
    VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    ci.size = 4096;
    ci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    VkBuffer b = VK_NULL_HANDLE;
    check_vk(vkCreateBuffer(device, &ci, nullptr, &b), "vkCreateBuffer");
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(device, b, &req);
    vkDestroyBuffer(device, b, nullptr);
    const std::uint32_t type = value_or_die(ctx.host_coherent_memory_type(req.memoryTypeBits), "memory type");
    VkPhysicalDeviceMemoryProperties mp{};
    vkGetPhysicalDeviceMemoryProperties(ctx.physical_device(), &mp);
    const VkMemoryType& t = mp.memoryTypes[type];
    bool cached_elsewhere = false;
    for (std::uint32_t i = 0; i < mp.memoryTypeCount; ++i)
      cached_elsewhere |= i != type && (req.memoryTypeBits & (1u << i)) &&
                          (mp.memoryTypes[i].propertyFlags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0;
    f.memory = fmt::format("type {} {} in a {} MiB heap{}", type, memory_flags(t.propertyFlags), mp.memoryHeaps[t.heapIndex].size >> 20,
                           cached_elsewhere ? "; a HOST_CACHED type exists too" : "");
  }
  f.buffer_small = repeat(50, [&] { value_or_die(gpu::DeviceBuffer::create(ctx, 4096), "buffer"); });
  f.buffer_large = repeat(5, [&] { value_or_die(gpu::DeviceBuffer::create(ctx, 16ull << 20), "buffer"); });
  {
    gpu::DeviceBuffer small = value_or_die(gpu::DeviceBuffer::create(ctx, 4096), "buffer");
    gpu::DeviceBuffer large = value_or_die(gpu::DeviceBuffer::create(ctx, 16ull << 20), "buffer");
    Bytes out(16ull << 20);
    const Bytes in(16ull << 20, 0x5A);
    f.read_small = repeat(50, [&] { out.assign(small.bytes().begin(), small.bytes().end()); });
    f.read_large = repeat(3, [&] { out.assign(large.bytes().begin(), large.bytes().end()); });
    f.write_large = repeat(3, [&] { large.write(in); });
    gpu::DeviceBuffer staging = value_or_die(gpu::DeviceBuffer::create(ctx, 16ull << 20, gpu::DeviceBuffer::Use::Readback), "buffer");
    gpu::CommandBatch batch(ctx);
    f.staged_large = repeat(3, [&] {
      batch.copy(large, 0, staging, large.size());
      value_or_die(batch.submit_and_wait(), "copy");
      out.assign(staging.bytes().begin(), staging.bytes().end());
    });
  }
  f.descriptor_pool = repeat(50, [&] {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 16};
    VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = 16;
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    check_vk(vkCreateDescriptorPool(device, &pi, nullptr, &pool), "vkCreateDescriptorPool");
    vkDestroyDescriptorPool(device, pool, nullptr);
  });
  f.command_buffer = repeat(50, [&] {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = ctx.command_pool();
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    check_vk(vkAllocateCommandBuffers(device, &ai, &cmd), "vkAllocateCommandBuffers");
    vkFreeCommandBuffers(device, ctx.command_pool(), 1, &cmd);
  });
  f.fence = repeat(50, [&] {
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    check_vk(vkCreateFence(device, &fi, nullptr, &fence), "vkCreateFence");
    vkDestroyFence(device, fence, nullptr);
  });
  {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = ctx.command_pool();
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    check_vk(vkAllocateCommandBuffers(device, &ai, &cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    check_vk(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
    check_vk(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence = VK_NULL_HANDLE;
    check_vk(vkCreateFence(device, &fi, nullptr, &fence), "vkCreateFence");
    f.empty_submit = repeat(50, [&] {
      VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
      si.commandBufferCount = 1;
      si.pCommandBuffers = &cmd;
      check_vk(vkQueueSubmit(ctx.queue(), 1, &si, fence), "vkQueueSubmit");
      check_vk(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
      check_vk(vkResetFences(device, 1, &fence), "vkResetFences");
    });
    vkDestroyFence(device, fence, nullptr);
    vkFreeCommandBuffers(device, ctx.command_pool(), 1, &cmd);
  }
  return f;
}

// ------------------------------------------------------------------------------------ output

std::string us(double ns) { return fmt::format("{:.1f}", ns / 1e3); }
std::string ms(double ns) { return fmt::format("{:.2f}", ns / 1e6); }
/// A duration with a unit that suits it.
std::string dur(double ns) {
  if (ns < 1e4) return fmt::format("{:.2f} us", ns / 1e3);
  if (ns < 1e6) return fmt::format("{:.1f} us", ns / 1e3);
  return fmt::format("{:.2f} ms", ns / 1e6);
}

std::string device_line(const gpu::DeviceInfo& d) {
  return fmt::format("{} ({}, Vulkan {}, driver 0x{:08x}, vendor 0x{:04x})", d.name, gpu::name_of(d.type),
                     gpu::format_version(d.api_version), d.driver_version, d.vendor_id);
}

void print_table(const gpu::DeviceInfo& device, const std::string& profile, double context_ns, const CompileFigures& c,
                 const DriverFigures& d, const std::vector<SplitCell>& cells, double total_s) {
  fmt::print("gpu_split_bench  device: {}\n", device_line(device));
  fmt::print("profile {}, workgroup {}, context (instance + device) {} ms, total {:.1f} s\n\n", profile, kWorkgroup, ms(context_ns),
             total_s);
  fmt::print("1. split, time per launch = median run / S (a run: plan [host, resident], upload, S launches, read-back;\n"
             "   prepared = resident planned once, prepare_split_resident + run_prepared_resident)\n");
  fmt::print("{:>4} {:>7} {:>6} {:>11} {:>11} {:>11} {:>11} {:>9} {:>9} {:>9} {:>14} {:>11}\n", "S", "buffer", "rounds", "host us",
             "resident us", "prepared us", "raw us", "host/raw", "res/raw", "prep/raw", "(res-plan)/raw", "plan us/run");
  for (const SplitCell& cell : cells) {
    const double s = cell.segments;
    const bool host = cell.host.n > 0;
    fmt::print("{:>4} {:>7} {:>6} {:>11} {:>11} {:>11} {:>11} {:>9} {:>9.2f} {:>9.2f} {:>14.2f} {:>11}\n", cell.segments,
               size_name(cell.bytes), cell.rounds, host ? us(cell.host.median / s) : "(skipped)", us(cell.resident.median / s),
               us(cell.prepared.median / s), us(cell.raw.median / s),
               host ? fmt::format("{:.2f}", cell.host.median / cell.raw.median) : "-", cell.resident.median / cell.raw.median,
               cell.prepared.median / cell.raw.median, (cell.resident.median - cell.plan.median) / cell.raw.median, us(cell.plan.median));
  }
  fmt::print("\n   host work per launch: median (run - vkQueueSubmit-to-fence) / S, in us; resubmitted = prepared runs'\n"
             "   submissions that resubmitted the recorded command buffer\n");
  fmt::print("{:>4} {:>7} {:>11} {:>11} {:>11} {:>12}\n", "S", "buffer", "resident", "prepared", "raw", "resubmitted");
  for (const SplitCell& cell : cells) {
    const double s = cell.segments;
    fmt::print("{:>4} {:>7} {:>11.2f} {:>11.2f} {:>11.2f} {:>11.0f}%\n", cell.segments, size_name(cell.bytes),
               cell.resident_host.median / s / 1e3, cell.prepared_host.median / s / 1e3, cell.raw_host.median / s / 1e3,
               cell.resubmitted * 100);
  }
  fmt::print("\n2. per segment shader ({} B GLSL, {} B SPIR-V){:>19}{:>12}  {:>21}\n", c.glsl_bytes, c.spirv_bytes, "", "median", "min - max (n)");
  auto row = [](std::string_view what, const Stats& s) {
    fmt::print("  {:<62} {:>10}  {:>9} - {} ({})\n", what, dur(s.median), dur(s.min), dur(s.max), s.n);
  };
  auto one = [](std::string_view what, double ns) { fmt::print("  {:<62} {:>10}  (1)\n", what, dur(ns)); };
  row("type-check + lowering", c.lower);
  one("glslang + spirv-val, first shader of the process (cold)", c.first_compile_ns);
  row("glslang + spirv-val, warm, new shader (uncached)", c.compile_warm);
  row("  of which spirv-val", c.spirv_val);
  row("compile cache hit (GLSL text)", c.compile_hit);
  one("pipeline creation, first of the process", c.first_pipeline_ns);
  row("pipeline creation, cold (new SPIR-V)", c.pipeline_cold);
  row("pipeline cache hit (SPIR-V hash)", c.pipeline_hit);
  row("first dispatch of a new pipeline (1 workgroup, submit + wait)", c.first_dispatch);
  row("second dispatch of that pipeline", c.warm_dispatch);
  fmt::print("\n3. driver costs behind the executors (buffers: {})\n", d.memory);
  row("DeviceBuffer::create + destroy, 4 KiB", d.buffer_small);
  row("DeviceBuffer::create + destroy, 16 MiB", d.buffer_large);
  row("host read of buffer memory, 4 KiB", d.read_small);
  row("host read of buffer memory, 16 MiB", d.read_large);
  row("host write of buffer memory, 16 MiB", d.write_large);
  row("staged read, 16 MiB (device copy + host read of the copy)", d.staged_large);
  row("descriptor pool create + destroy", d.descriptor_pool);
  row("command buffer allocate + free", d.command_buffer);
  row("fence create + destroy", d.fence);
  row("empty command buffer, submit + wait", d.empty_submit);
}

std::string json_stats(const Stats& s) {
  return fmt::format(R"({{"median_ns":{:.0f},"min_ns":{:.0f},"max_ns":{:.0f},"n":{}}})", s.median, s.min, s.max, s.n);
}

std::string json_escape(std::string_view s) {
  std::string out;
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    if (static_cast<unsigned char>(ch) < 0x20) continue;
    out += ch;
  }
  return out;
}

void print_json(const gpu::DeviceInfo& device, const std::string& profile, double context_ns, const CompileFigures& c,
                const DriverFigures& d, const std::vector<SplitCell>& cells, double total_s) {
  fmt::print("{{\"device\":\"{}\",\"device_type\":\"{}\",\"api_version\":\"{}\",\"driver_version\":{},\"vendor_id\":{},", json_escape(device.name),
             gpu::name_of(device.type), gpu::format_version(device.api_version), device.driver_version, device.vendor_id);
  fmt::print("\"profile\":\"{}\",\"workgroup\":{},\"context_ns\":{:.0f},\"total_s\":{:.2f},\"split\":[", json_escape(profile), kWorkgroup,
             context_ns, total_s);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const SplitCell& x = cells[i];
    const double s = x.segments;
    fmt::print("{}{{\"segments\":{},\"bytes\":{},\"rounds\":{},\"host_us_per_launch\":{},\"resident_us_per_launch\":{:.2f},"
               "\"raw_us_per_launch\":{:.2f},\"host_over_raw\":{},\"resident_over_raw\":{:.3f},"
               "\"host_run\":{},\"resident_run\":{},\"raw_run\":{},\"plan\":{},\"prepared_us_per_launch\":{:.2f},"
               "\"prepared_over_raw\":{:.3f},\"prepared_run\":{},\"resident_host_run\":{},\"prepared_host_run\":{},"
               "\"raw_host_run\":{},\"prepared_resubmitted\":{:.3f}}}",
               i ? "," : "", x.segments, x.bytes, x.rounds,
               x.host.n ? fmt::format("{:.2f}", x.host.median / s / 1e3) : std::string("null"), x.resident.median / s / 1e3, x.raw.median / s / 1e3,
               x.host.n ? fmt::format("{:.3f}", x.host.median / x.raw.median) : std::string("null"), x.resident.median / x.raw.median, json_stats(x.host), json_stats(x.resident),
               json_stats(x.raw), json_stats(x.plan), x.prepared.median / s / 1e3, x.prepared.median / x.raw.median,
               json_stats(x.prepared), json_stats(x.resident_host), json_stats(x.prepared_host), json_stats(x.raw_host), x.resubmitted);
  }
  fmt::print("],\"compile\":{{\"glsl_bytes\":{},\"spirv_bytes\":{},\"lower\":{},\"first_compile_ns\":{:.0f},\"compile_warm\":{},"
             "\"spirv_val\":{},\"compile_hit\":{},\"first_pipeline_ns\":{:.0f},\"pipeline_cold\":{},\"pipeline_hit\":{},"
             "\"first_dispatch\":{},\"warm_dispatch\":{}}},",
             c.glsl_bytes, c.spirv_bytes, json_stats(c.lower), c.first_compile_ns, json_stats(c.compile_warm), json_stats(c.spirv_val),
             json_stats(c.compile_hit), c.first_pipeline_ns, json_stats(c.pipeline_cold), json_stats(c.pipeline_hit),
             json_stats(c.first_dispatch), json_stats(c.warm_dispatch));
  fmt::print("\"driver\":{{\"memory\":\"{}\",\"buffer_4k\":{},\"buffer_16m\":{},\"read_4k\":{},\"read_16m\":{},\"staged_read_16m\":{},\"write_16m\":{},"
             "\"descriptor_pool\":{},\"command_buffer\":{},\"fence\":{},\"empty_submit\":{}}}}}\n",
             json_escape(d.memory), json_stats(d.buffer_small), json_stats(d.buffer_large), json_stats(d.read_small), json_stats(d.read_large),
             json_stats(d.staged_large), json_stats(d.write_large), json_stats(d.descriptor_pool), json_stats(d.command_buffer), json_stats(d.fence),
             json_stats(d.empty_submit));
}

}  // namespace

int main(int argc, char** argv) {
  gpu::ContextOptions options;
  std::string profile_name = planner::find_profile("sound") ? "sound" : "vyre-0.7.2";
  SplitOptions split_options;
  bool json = false;
  std::vector<std::uint32_t> segment_counts(kSegmentCounts.begin(), kSegmentCounts.end());
  std::vector<std::uint64_t> buffer_bytes(kBufferBytes.begin(), kBufferBytes.end());
  auto parse_list = [](const std::string& text) {
    std::vector<std::uint64_t> out;
    for (std::size_t pos = 0; pos <= text.size();) {
      const std::size_t comma = std::min(text.find(',', pos), text.size());
      out.push_back(std::strtoull(text.substr(pos, comma - pos).c_str(), nullptr, 10));
      pos = comma + 1;
    }
    return out;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) die(fmt::format("{} needs a value", a));
      return argv[++i];
    };
    if (a == "--device") options.device = next();
    else if (a == "--profile") profile_name = next();
    else if (a == "--budget") split_options.budget_s = std::atof(next().c_str());
    else if (a == "--cap") split_options.cap_s = std::atof(next().c_str());
    else if (a == "--min-rounds") split_options.min_rounds = static_cast<std::size_t>(std::max(1, std::atoi(next().c_str())));
    else if (a == "--breakdown") split_options.breakdown = true;
    else if (a == "--json") json = true;
    else if (a == "--segments") {
      segment_counts.clear();
      for (std::uint64_t v : parse_list(next())) segment_counts.push_back(static_cast<std::uint32_t>(std::max<std::uint64_t>(v, 1)));
    } else if (a == "--bytes") {
      buffer_bytes.clear();
      for (std::uint64_t v : parse_list(next())) buffer_bytes.push_back(std::max<std::uint64_t>(v / (4 * kWorkgroup), 1) * 4 * kWorkgroup);
    }
    else {
      std::fprintf(stderr, "usage: gpu_split_bench [--device SEL] [--profile NAME] [--budget SECONDS] [--min-rounds N] [--cap SECONDS] [--breakdown] [--segments 2,16,128] [--bytes 4096,16777216] [--json]\n");
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  const planner::Profile* profile = planner::find_profile(profile_name);
  if (profile == nullptr) die(fmt::format("no profile `{}`", profile_name));

  const auto total_start = Clock::now();
  auto start = Clock::now();
  std::unique_ptr<gpu::VulkanContext> ctx = value_or_die(gpu::VulkanContext::create(options), "Vulkan context");
  const double context_ns = ns_since(start);
  if (!json) fmt::print(stderr, "device: {}\n", device_line(ctx->info()));

  // Part 2 first: the first compile of the process must be the one measured as such.
  const CompileFigures compile = measure_compile(*ctx, 16);
  const DriverFigures driver = measure_driver(*ctx);

  gpu::VulkanExecutor exec(*ctx);
  std::vector<SplitCell> cells;
  std::vector<SegmentsState> states(segment_counts.size());
  for (std::uint64_t bytes : buffer_bytes)
    for (std::size_t i = 0; i < segment_counts.size(); ++i) {
      const std::uint32_t segments = segment_counts[i];
      if (!json) fmt::print(stderr, "  {} segments, {} ...\n", segments, size_name(bytes));
      std::optional<double> hint;
      for (const SplitCell& c : cells)
        if (c.bytes == bytes && c.host.n > 0) hint = c.host.median / c.segments;
      cells.push_back(measure_split(exec, *profile, segments, bytes, states[i], split_options, hint));
    }
  const double total_s = ns_since(total_start) / 1e9;
  if (json) print_json(ctx->info(), profile->name, context_ns, compile, driver, cells, total_s);
  else print_table(ctx->info(), profile->name, context_ns, compile, driver, cells, total_s);
  return 0;
}
