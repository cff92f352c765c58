// The Vulkan runtime (engine layer): device listing and choice, buffers, pipelines and their cache,
// batched submission with barriers, validation-layer plumbing and the error paths.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "gpu/command_batch.hpp"
#include "gpu/compute_pipeline.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/glsl_compiler.hpp"
#include "gpu/gpu_diagnostics.hpp"
#include "gpu/gpu_test_support.hpp"

namespace gridcheck::gpu {
namespace {

using testing::compiled;
using testing::GpuTest;
using testing::words_of;
constexpr std::string_view kScale = testing::kScaleShader;

std::span<const std::uint8_t> bytes_of(const std::vector<std::uint32_t>& w) {
  return {reinterpret_cast<const std::uint8_t*>(w.data()), w.size() * 4};
}

DeviceInfo fake(std::string name, VkPhysicalDeviceType type, bool compute = true) {
  DeviceInfo d;
  d.name = std::move(name);
  d.type = type;
  d.has_compute_queue = compute;
  return d;
}

// -------------------------------------------------------------------------------- device choice

TEST(Gpu_DeviceChoice, DefaultPrefersTheFirstDiscreteGpuWithACompueQueue) {
  const std::vector<DeviceInfo> ds = {fake("llvmpipe", VK_PHYSICAL_DEVICE_TYPE_CPU),
                                      fake("Intel UHD", VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU),
                                      fake("NVIDIA H200", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
  ir::Result<std::size_t> i = select_device(ds, "");
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(*i, 2u);
}

TEST(Gpu_DeviceChoice, DefaultFallsBackToTheFirstComputeDevice) {
  const std::vector<DeviceInfo> ds = {fake("no queue", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU, false),
                                      fake("llvmpipe", VK_PHYSICAL_DEVICE_TYPE_CPU)};
  ir::Result<std::size_t> i = select_device(ds, "");
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(*i, 1u);
}

TEST(Gpu_DeviceChoice, IndexExactNameAndUniqueSubstringSelect) {
  const std::vector<DeviceInfo> ds = {fake("llvmpipe (LLVM 15.0.6, 256 bits)", VK_PHYSICAL_DEVICE_TYPE_CPU),
                                      fake("NVIDIA H200", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU),
                                      fake("NVIDIA H200 NVL", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
  EXPECT_EQ(*select_device(ds, "0"), 0u);
  EXPECT_EQ(*select_device(ds, "nvidia h200"), 1u);  // exact (case-insensitive) beats substring
  EXPECT_EQ(*select_device(ds, "LLVMPIPE"), 0u);
  EXPECT_EQ(*select_device(ds, "nvl"), 2u);
}

TEST(Gpu_DeviceChoice, NoMatchOutOfRangeAndAmbiguousNamesAreDiagnostics) {
  const std::vector<DeviceInfo> ds = {fake("NVIDIA H200", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU),
                                      fake("NVIDIA H100", VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU)};
  ir::Result<std::size_t> none = select_device(ds, "radeon");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.diagnostics().all()[0].code, "K003");
  EXPECT_NE(none.diagnostics().all()[0].message.find("radeon"), std::string::npos);
  ir::Result<std::size_t> range = select_device(ds, "7");
  ASSERT_FALSE(range.ok());
  EXPECT_EQ(range.diagnostics().all()[0].code, "K003");
  ir::Result<std::size_t> two = select_device(ds, "nvidia");
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.diagnostics().all()[0].code, "K004");
  EXPECT_NE(two.diagnostics().all()[0].message.find("H100"), std::string::npos);
}

TEST(Gpu_Devices, ListingHasAComputeDeviceWithTheLimitsWeUse) {
  ir::Result<std::vector<DeviceInfo>> ds = list_devices();
  ASSERT_TRUE(ds.ok()) << ir::render(ds.diagnostics());
  ASSERT_FALSE(ds->empty());
  ir::Result<std::size_t> chosen = select_device(*ds, "");
  ASSERT_TRUE(chosen.ok());
  const DeviceInfo& d = (*ds)[*chosen];
  EXPECT_FALSE(d.name.empty());
  EXPECT_GE(d.api_version, VK_API_VERSION_1_2);
  EXPECT_GT(d.subgroup_size, 0u);
  EXPECT_GE(d.max_workgroup_invocations, 128u);  // Vulkan's required minimum
  EXPECT_GE(d.max_storage_buffer_range, 1u << 27);
  EXPECT_GE(d.max_shared_memory_bytes, 16384u);
}

TEST(Gpu_Devices, ABadDeviceNameIsAClearErrorNotACrash) {
  ContextOptions o;
  o.device = "no-such-gpu-anywhere";
  ir::Result<std::unique_ptr<VulkanContext>> ctx = VulkanContext::create(o);
  ASSERT_FALSE(ctx.ok());
  const ir::Diagnostic& d = ctx.diagnostics().all()[0];
  EXPECT_EQ(d.code, "K003");
  EXPECT_EQ(d.message, "no Vulkan device name contains `no-such-gpu-anywhere` (see `gridcheck devices`)");
  EXPECT_EQ(to_launch_error(d).kind, planner::LaunchErrorKind::Backend);
}

// ------------------------------------------------------------------------------------ dispatch

using Gpu_Runtime = GpuTest;

TEST_F(Gpu_Runtime, BufferRoundTripKeepsOddByteSizes) {
  ir::Result<DeviceBuffer> b = DeviceBuffer::create(ctx(), 7);
  ASSERT_TRUE(b.ok()) << ir::render(b.diagnostics());
  EXPECT_EQ(b->size(), 7u);
  EXPECT_EQ(b->range(), 8u);
  const std::uint8_t data[7] = {1, 2, 3, 4, 5, 6, 7};
  b->write(data);
  EXPECT_EQ(std::vector<std::uint8_t>(b->bytes().begin(), b->bytes().end()), std::vector<std::uint8_t>(data, data + 7));
  ir::Result<DeviceBuffer> empty = DeviceBuffer::create(ctx(), 0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->range(), 4u);
  EXPECT_TRUE(empty->bytes().empty());
}

TEST_F(Gpu_Runtime, DispatchComputesAndReadsBackThroughTheHostBarrier) {
  const Spirv& spirv = compiled(kScale);
  ir::Result<const ComputePipeline*> p = ctx().pipelines().get(spirv, {{0, 3}, 2});
  ASSERT_TRUE(p.ok()) << ir::render(p.diagnostics());
  std::vector<std::uint32_t> in(100);
  for (std::uint32_t i = 0; i < in.size(); ++i) in[i] = i * 3 + 1;
  auto src = DeviceBuffer::create(ctx(), in.size() * 4);
  auto dst = DeviceBuffer::create(ctx(), in.size() * 4);
  ASSERT_TRUE(src.ok() && dst.ok());
  src->write(bytes_of(in));
  CommandBatch batch(ctx());
  batch.dispatch(**p, {&*src, &*dst}, {100, 7}, {2, 1, 1});
  ir::Result<SubmitStats> s = batch.submit_and_wait();
  ASSERT_TRUE(s.ok()) << ir::render(s.diagnostics());
  const std::vector<std::uint32_t> out = words_of(*dst);
  for (std::uint32_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], in[i] * 2 + 7) << "element " << i;
}

TEST_F(Gpu_Runtime, ABatchChainsDispatchesFillsAndCopiesInOrder) {
  const Spirv& spirv = compiled(kScale);
  const ComputePipeline* p = *ctx().pipelines().get(spirv, {{0, 3}, 2});
  std::vector<std::uint32_t> in = {1, 2, 3, 4};
  auto a = DeviceBuffer::create(ctx(), 16);
  auto b = DeviceBuffer::create(ctx(), 16);
  auto c = DeviceBuffer::create(ctx(), 8);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  a->write(bytes_of(in));
  CommandBatch batch(ctx());
  batch.dispatch(*p, {&*a, &*b}, {4, 0}, {1, 1, 1});  // b = 2a
  batch.dispatch(*p, {&*b, &*a}, {4, 1}, {1, 1, 1});  // a = 2b + 1 = 4a + 1  (reads b: needs the barrier)
  batch.copy(*a, 8, *c, 8);                           // c = a[2..4]
  batch.fill_zero(*a);                                // a = 0 after the copy read it
  batch.dispatch(*p, {&*c, &*b}, {2, 5}, {1, 1, 1});  // b[0..2] = 2c + 5
  ASSERT_TRUE(batch.submit_and_wait().ok());
  EXPECT_EQ(words_of(*a), (std::vector<std::uint32_t>{0, 0, 0, 0}));
  EXPECT_EQ(words_of(*c), (std::vector<std::uint32_t>{13, 17}));
  EXPECT_EQ(words_of(*b), (std::vector<std::uint32_t>{31, 39, 6, 8}));
}

// An unchanged batch is submitted again as recorded (no recording, no descriptor update); a batch that
// differs in a push word, a buffer or a buffer's range is recorded afresh. Every submission computes
// what its own commands say.
TEST_F(Gpu_Runtime, AnUnchangedBatchIsResubmittedAndAChangedOneRecordedAgain) {
  const Spirv& spirv = compiled(kScale);
  const ComputePipeline* p = *ctx().pipelines().get(spirv, {{0, 3}, 2});
  auto a = DeviceBuffer::create(ctx(), 16);
  auto b = DeviceBuffer::create(ctx(), 16);
  ASSERT_TRUE(a.ok() && b.ok());
  CommandBatch batch(ctx());
  auto run = [&](const DeviceBuffer& dst, std::uint32_t add) {
    a->write(bytes_of(std::vector<std::uint32_t>{1, 2, 3, 4}));
    batch.dispatch(*p, {&*a, &dst}, {4, add}, {1, 1, 1});  // dst = 2a + add
    batch.dispatch(*p, {&dst, &*a}, {4, 0}, {1, 1, 1});    // a = 2 dst
    EXPECT_TRUE(batch.submit_and_wait().ok());
  };
  run(*b, 1);
  EXPECT_EQ(batch.resubmissions(), 0u);
  run(*b, 1);  // the same commands: resubmitted, and computes again from the new host write
  EXPECT_EQ(batch.resubmissions(), 1u);
  EXPECT_EQ(words_of(*b), (std::vector<std::uint32_t>{3, 5, 7, 9}));
  EXPECT_EQ(words_of(*a), (std::vector<std::uint32_t>{6, 10, 14, 18}));
  run(*b, 2);  // another push word
  EXPECT_EQ(batch.resubmissions(), 1u);
  EXPECT_EQ(words_of(*b), (std::vector<std::uint32_t>{4, 6, 8, 10}));
  auto c = DeviceBuffer::create(ctx(), 16);
  ASSERT_TRUE(c.ok());
  run(*c, 2);  // another buffer
  EXPECT_EQ(batch.resubmissions(), 1u);
  EXPECT_EQ(words_of(*c), (std::vector<std::uint32_t>{4, 6, 8, 10}));
  run(*c, 2);
  EXPECT_EQ(batch.resubmissions(), 2u);
  // The same Vulkan buffer moved into another object is the same buffer; a new one in its place is not.
  DeviceBuffer moved = std::move(*c);
  run(moved, 2);
  EXPECT_EQ(batch.resubmissions(), 3u);
  auto fresh = DeviceBuffer::create(ctx(), 16);
  ASSERT_TRUE(fresh.ok());
  moved = std::move(*fresh);
  run(moved, 2);
  EXPECT_EQ(batch.resubmissions(), 3u);
  EXPECT_EQ(words_of(moved), (std::vector<std::uint32_t>{4, 6, 8, 10}));
}

TEST_F(Gpu_Runtime, PipelinesAreCachedBySpirvAndLayout) {
  const Spirv& spirv = compiled(kScale);
  const std::uint64_t misses = ctx().pipelines().misses();
  const ComputePipeline* first = *ctx().pipelines().get(spirv, {{0, 3}, 2});
  const ComputePipeline* again = *ctx().pipelines().get(Spirv(spirv), {{0, 3}, 2});
  EXPECT_EQ(first, again);
  const ComputePipeline* other_layout = *ctx().pipelines().get(spirv, {{0, 3}, 4});
  EXPECT_NE(first, other_layout);
  EXPECT_LE(ctx().pipelines().misses(), misses + 2);
  EXPECT_GE(ctx().pipelines().hits(), 1u);
}

TEST_F(Gpu_Runtime, BufferBeyondMaxStorageBufferRangeIsAResourceError) {
  const std::uint64_t too_big = std::uint64_t{ctx().info().max_storage_buffer_range} + 4;
  ir::Result<DeviceBuffer> b = DeviceBuffer::create(ctx(), too_big);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.diagnostics().all()[0].code, "K020");
  EXPECT_EQ(to_launch_error(b.diagnostics().all()[0]).kind, planner::LaunchErrorKind::Resource);
}

// The twin of every "zero validation messages" assertion: the messenger must hear a real hazard.
TEST_F(Gpu_Runtime, SynchronizationValidationReportsAMissingBarrier) {
  if (!ctx().validation_enabled()) GTEST_SKIP() << "validation disabled by GRIDCHECK_GPU_TESTS_NO_VALIDATION";
  auto b = DeviceBuffer::create(ctx(), 64);
  ASSERT_TRUE(b.ok());
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = ctx().command_pool();
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  ASSERT_EQ(vkAllocateCommandBuffers(ctx().device(), &ai, &cmd), VK_SUCCESS);
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vkBeginCommandBuffer(cmd, &bi);
  vkCmdFillBuffer(cmd, b->handle(), 0, VK_WHOLE_SIZE, 1);
  vkCmdFillBuffer(cmd, b->handle(), 0, VK_WHOLE_SIZE, 2);  // write-after-write, no barrier
  vkEndCommandBuffer(cmd);
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cmd;
  ASSERT_EQ(vkQueueSubmit(ctx().queue(), 1, &si, VK_NULL_HANDLE), VK_SUCCESS);
  vkQueueWaitIdle(ctx().queue());
  vkFreeCommandBuffers(ctx().device(), ctx().command_pool(), 1, &cmd);
  const auto messages = ctx().validation_log().messages();
  bool hazard = false;
  for (const std::string& m : messages) hazard = hazard || m.find("SYNC-HAZARD-WRITE-AFTER-WRITE") != std::string::npos;
  EXPECT_TRUE(hazard) << messages.size() << " messages";
  ctx().validation_log().clear();
}

// ------------------------------------------------------------------------------------ compiler

TEST(Gpu_Compiler, CompiledSpirvPassesSpirvVal) {
  ir::Result<Spirv> s = compile_glsl(kScale, "scale");
  ASSERT_TRUE(s.ok()) << ir::render(s.diagnostics());
  EXPECT_EQ((*s)[0], 0x07230203u);  // SPIR-V magic
  EXPECT_FALSE(validate_spirv(*s).has_value());
}

TEST(Gpu_Compiler, BrokenGlslIsAnInternalErrorThatSavesTheGlsl) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "gridcheck-gpu-test-broken";
  std::filesystem::remove_all(dir);
  const std::string broken = "#version 450\nlayout(local_size_x = 1) in;\nvoid main() { uint x = undefined_thing; }\n";
  ir::Result<Spirv> s = compile_glsl(broken, "broken segment 3", dir);
  ASSERT_FALSE(s.ok());
  const ir::Diagnostic& d = s.diagnostics().all()[0];
  EXPECT_EQ(d.code, "K090");
  EXPECT_NE(d.message.find("undefined_thing"), std::string::npos) << d.message;
  // The message names the saved file, and the file holds exactly the GLSL.
  const std::string::size_type at = d.message.find(dir.string());
  ASSERT_NE(at, std::string::npos) << d.message;
  const std::string path = d.message.substr(at, d.message.find(')', at) - at);
  std::ifstream in(path);
  std::stringstream saved;
  saved << in.rdbuf();
  EXPECT_EQ(saved.str(), broken);
  const planner::LaunchError e = to_launch_error(d);
  EXPECT_EQ(e.kind, planner::LaunchErrorKind::Backend);
  EXPECT_EQ(e.message.rfind("internal error: K090: ", 0), 0u) << e.message;
}

TEST(Gpu_Compiler, CacheCompilesEachDistinctTextOnce) {
  GlslCompiler c;
  ASSERT_TRUE(c.compile(kScale).ok());
  ASSERT_TRUE(c.compile(std::string(kScale)).ok());
  EXPECT_EQ(c.compiles(), 1u);
  EXPECT_EQ(c.hits(), 1u);
}

}  // namespace
}  // namespace gridcheck::gpu
