// The throughput layer (issue 18): the buffer pool never hands out an earlier user's bytes, the caches
// are shared by threads and by host and resident mode, and the VkPipelineCache file is loaded when it is
// intact and ignored when it is corrupt or another device's.
#include <atomic>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/buffer_pool.hpp"
#include "gpu/compute_pipeline.hpp"
#include "gpu/glsl_compiler.hpp"
#include "gpu/gpu_test_support.hpp"
#include "gpu/kernel.hpp"
#include "gpu/resident_session.hpp"
#include "gpu/vulkan_executor.hpp"
#include "ir/builder.hpp"

namespace gridcheck::gpu {
namespace {

using namespace ir;
using planner::Bytes;
using planner::LaunchConfig;
using testing::bytes;
using testing::words;

constexpr std::string_view kCopy = R"(#version 450
layout(local_size_x = 1) in;
layout(std430, set = 0, binding = 0) buffer Out { uint data[]; } dst;
void main() { dst.data[0] = 7u; }
)";

LaunchConfig grid(std::uint32_t x) {
  LaunchConfig c;
  c.grid_override = std::array<std::uint32_t, 3>{x, 1, 1};
  return c;
}

class Gpu_Pools : public testing::GpuTest {};

TEST_F(Gpu_Pools, AReusedBufferIsZeroedOverItsWholeNewRange) {
  BufferPool pool(ctx());
  const std::uint64_t reused_before = pool.stats().reused;
  VkBuffer first_handle = VK_NULL_HANDLE;
  {
    std::shared_ptr<DeviceBuffer> b = *pool.acquire(1000);
    first_handle = b->handle();
    std::memset(b->bytes().data(), 0xAB, b->size());  // the first user's bytes
  }
  std::shared_ptr<DeviceBuffer> again = *pool.acquire(1020);  // same size class (1024), a larger range
  ASSERT_EQ(again->handle(), first_handle) << "the pool did not reuse the buffer: this test would prove nothing";
  EXPECT_EQ(pool.stats().reused, reused_before + 1);
  EXPECT_EQ(again->size(), 1020u);
  EXPECT_EQ(again->range(), 1020u);
  EXPECT_GE(again->capacity(), 1024u);
  for (std::uint8_t byte : again->bytes()) ASSERT_EQ(byte, 0u) << "a byte of the earlier user leaked";
}

TEST_F(Gpu_Pools, OtherSizeClassesAndUsesAreNotMixed) {
  BufferPool pool(ctx());
  VkBuffer small = VK_NULL_HANDLE;
  { small = (*pool.acquire(100))->handle(); }
  std::shared_ptr<DeviceBuffer> big = *pool.acquire(100000);
  EXPECT_NE(big->handle(), small);
  std::shared_ptr<DeviceBuffer> readback = *pool.acquire(100, DeviceBuffer::Use::Readback);
  EXPECT_NE(readback->handle(), small);
  EXPECT_EQ(readback->use(), DeviceBuffer::Use::Readback);
}

TEST_F(Gpu_Pools, BuffersOutliveTheirPool) {
  std::shared_ptr<DeviceBuffer> b;
  {
    BufferPool pool(ctx());
    b = *pool.acquire(64);
  }
  b->bytes()[0] = 1;
  b.reset();  // destroyed, not returned to the pool that is gone
}

/// The executor's twin: a launch that writes every word of its output, then one whose output of the same
/// size writes one word. The second must read zeros elsewhere, though its buffer is the first's.
TEST_F(Gpu_Pools, APooledOutputOfTheNextLaunchStartsZeroFilled) {
  VulkanExecutor exec(ctx());
  Builder a({64, 1, 1});
  auto out_a = a.output("out", 0, ScalarType::U32, 64);
  Program fill = a.wrapped({a.store(out_a, a.gid(), a.u32(0xDEADBEEF))});
  Builder b({1, 1, 1});
  auto out_b = b.output("out", 0, ScalarType::U32, 64);
  Program one = b.wrapped({b.store(out_b, b.u32(0), b.u32(5))});
  std::vector<Bytes> outputs;
  ASSERT_FALSE(exec.launch(fill, {}, grid(1), outputs));
  ASSERT_EQ(words(outputs[0]), std::vector<std::uint32_t>(64, 0xDEADBEEF));
  const std::uint64_t reused = ctx().buffers().stats().reused;
  ASSERT_FALSE(exec.launch(one, {}, grid(1), outputs));
  ASSERT_GT(ctx().buffers().stats().reused, reused) << "no buffer was reused: this test would prove nothing";
  std::vector<std::uint32_t> want(64, 0);
  want[0] = 5;
  EXPECT_EQ(words(outputs[0]), want);
}

TEST_F(Gpu_Pools, ThreadsAskingForOneShaderCompileAndCreateItOnce) {
  GlslCompiler compiler;
  const std::uint64_t misses = ctx().pipelines().misses();
  std::vector<const ComputePipeline*> got(4, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < got.size(); ++i)
    threads.emplace_back([&, i] {
      ir::Result<const Spirv*> spirv = compiler.compile(kCopy, "pools_test");
      if (!spirv) return;
      ir::Result<const ComputePipeline*> p = ctx().pipelines().get(**spirv, {{0}, 0});
      if (p) got[i] = *p;
    });
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(compiler.compiles(), 1u);
  EXPECT_EQ(compiler.hits(), 3u);
  ASSERT_NE(got[0], nullptr);
  for (const ComputePipeline* p : got) EXPECT_EQ(p, got[0]);  // a cache hit is the same pipeline
  EXPECT_EQ(ctx().pipelines().misses(), misses + 1);
}

TEST_F(Gpu_Pools, HostAndResidentModeShareOneCompileThroughAKernelStore) {
  KernelStore store;
  VulkanExecutor exec(ctx(), store);
  ResidentSession session(ctx(), store);
  session.set_label("segment 1 of 1");  // the host executor labels nothing: the text must not differ
  Builder b({4, 1, 1});
  auto acc = b.read_write("acc", 0, ScalarType::U32, 4);
  Program inc = b.wrapped({b.store(acc, b.gid(), b.load(acc, b.gid()) + b.u32(1))});
  const Bytes in = bytes({1, 2, 3, 4});
  std::vector<Bytes> outputs;
  const Bytes* ptrs[] = {&in};
  ASSERT_FALSE(exec.launch(inc, ptrs, grid(1), outputs));
  ASSERT_FALSE(session.upload("acc", in));
  ASSERT_FALSE(session.launch(inc, grid(1)));
  Bytes resident;
  ASSERT_FALSE(session.download("acc", resident));
  EXPECT_EQ(outputs[0], resident);
  EXPECT_EQ(store.compiler().compiles(), 1u);
  EXPECT_EQ(store.kernels().hits(), 1u);  // the session took the executor's kernel
}

TEST_F(Gpu_Pools, AClearedSessionForgetsItsBuffersButKeepsItsKernels) {
  KernelStore store;
  ResidentSession session(ctx(), store);
  Builder b({4, 1, 1});
  auto acc = b.read_write("acc", 0, ScalarType::U32, 4);
  Program inc = b.wrapped({b.store(acc, b.gid(), b.load(acc, b.gid()) + b.u32(1))});
  ASSERT_FALSE(session.upload("acc", bytes({1, 2, 3, 4})));
  ASSERT_FALSE(session.launch(inc, grid(1)));
  ASSERT_FALSE(session.sync());
  session.clear();
  EXPECT_FALSE(session.has("acc"));
  EXPECT_TRUE(session.launch(inc, grid(1)).has_value());  // no bytes for `acc` any more
  session.clear();
  ASSERT_FALSE(session.upload("acc", bytes({10, 20, 30, 40})));
  ASSERT_FALSE(session.launch(inc, grid(1)));
  Bytes out;
  ASSERT_FALSE(session.download("acc", out));
  EXPECT_EQ(words(out), (std::vector<std::uint32_t>{11, 21, 31, 41}));
  EXPECT_EQ(store.compiler().compiles(), 1u);
}

// ------------------------------------------------------------------------------ the pipeline cache file

class Gpu_PipelineCacheFile : public testing::GpuTest {
 protected:
  void SetUp() override {
    testing::GpuTest::SetUp();
    dir_ = std::filesystem::temp_directory_path() / ("gridcheck-pcache-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override {
    std::filesystem::remove_all(dir_);
    testing::GpuTest::TearDown();
  }
  /// A cache over dir_ that creates one pipeline and saves; returns the file.
  std::filesystem::path write_cache() {
    PipelineCache cache(ctx(), dir_);
    EXPECT_EQ(cache.load_result(), PipelineCacheLoad::NoFile);
    EXPECT_TRUE(cache.get(spirv(), {{0}, 0}));
    EXPECT_EQ(cache.save(), std::nullopt);
    EXPECT_TRUE(std::filesystem::exists(*cache.file()));
    return *cache.file();
  }
  const Spirv& spirv() {
    static GlslCompiler compiler;
    return **compiler.compile(kCopy, "pools_test");
  }
  std::filesystem::path dir_;
};

TEST_F(Gpu_PipelineCacheFile, AnIntactFileIsLoaded) {
  write_cache();
  PipelineCache again(ctx(), dir_);
  EXPECT_EQ(again.load_result(), PipelineCacheLoad::Loaded);
  EXPECT_TRUE(again.get(spirv(), {{0}, 0}));
}

TEST_F(Gpu_PipelineCacheFile, ACorruptFileIsIgnoredAndPipelinesStillWork) {
  const std::filesystem::path file = write_cache();
  std::string text;
  {
    std::ifstream in(file, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  ASSERT_GT(text.size(), 56u);
  auto rewrite = [&](const std::string& content) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
    PipelineCache cache(ctx(), dir_);
    EXPECT_EQ(cache.load_result(), PipelineCacheLoad::Ignored);
    ir::Result<const ComputePipeline*> p = cache.get(spirv(), {{0}, 0});
    EXPECT_TRUE(p) << ir::render(p.diagnostics());
  };
  std::string flipped = text;
  flipped.back() = static_cast<char>(flipped.back() ^ 0x5A);  // the data no longer matches its hash
  rewrite(flipped);
  rewrite(text.substr(0, text.size() - 1));  // truncated
  std::string other_device = text;
  other_device[8] = static_cast<char>(other_device[8] ^ 1);  // vendorID
  rewrite(other_device);
  rewrite("not a pipeline cache at all");
  rewrite("");
}

TEST_F(Gpu_PipelineCacheFile, AFileOverTheCapIsCutToItWhenLoaded) {
  const std::filesystem::path file = write_cache();  // the default cap: written
  const std::uint64_t loaded = std::filesystem::file_size(file);
  EXPECT_LE(loaded, PipelineCache::kDefaultMaxFileBytes);
  PipelineCache capped(ctx(), dir_, loaded - 1);  // a file made under a larger cap
  EXPECT_EQ(capped.load_result(), PipelineCacheLoad::Loaded);
  EXPECT_EQ(capped.last_save(), PipelineCacheSave::Cut);  // at once, not at the end of the run
  // The driver's entries that fit stay (lavapipe's data is a bare header, so nothing fits: no file).
  EXPECT_TRUE(!std::filesystem::exists(file) || std::filesystem::file_size(file) <= loaded - 1);
  EXPECT_TRUE(capped.get(spirv(), {{0}, 1}));
  EXPECT_EQ(capped.not_kept(), 1u);  // the file is left as it is from then on
  EXPECT_EQ(capped.save(), std::nullopt);
  EXPECT_EQ(capped.last_save(), PipelineCacheSave::Cut);
}

TEST_F(Gpu_PipelineCacheFile, AFileLoadedAtTheCapIsLeftAsItIs) {
  const std::filesystem::path file = write_cache();
  auto contents = [&] {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  };
  const std::string before = contents();
  PipelineCache capped(ctx(), dir_, before.size());  // the file fits, with no room left
  EXPECT_EQ(capped.load_result(), PipelineCacheLoad::Loaded);
  EXPECT_TRUE(capped.get(spirv(), {{0}, 1}));  // a new pipeline (another layout): made, not in the file
  EXPECT_EQ(capped.not_kept(), 1u);
  EXPECT_EQ(capped.save(), std::nullopt);
  EXPECT_EQ(capped.last_save(), PipelineCacheSave::NotYet);  // nothing new to write
  EXPECT_EQ(contents(), before);
}

TEST_F(Gpu_PipelineCacheFile, ACacheWithRoomKeepsItsNewPipelines) {  // the twin of the one above
  const std::filesystem::path file = write_cache();
  PipelineCache roomy(ctx(), dir_);
  EXPECT_EQ(roomy.load_result(), PipelineCacheLoad::Loaded);
  EXPECT_TRUE(roomy.get(spirv(), {{0}, 1}));
  EXPECT_EQ(roomy.not_kept(), 0u);
  EXPECT_EQ(roomy.save(), std::nullopt);
  EXPECT_EQ(roomy.last_save(), PipelineCacheSave::Written);
  EXPECT_TRUE(std::filesystem::exists(file));
}

}  // namespace
}  // namespace gridcheck::gpu
