// Group commit onto the one queue (queue_submitter.hpp): batches of several threads that reach the
// queue while it is in use go on it in one vkQueueSubmit, and each still computes its own result.
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "gpu/command_batch.hpp"
#include "gpu/compute_pipeline.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gpu_test_support.hpp"
#include "gpu/queue_submitter.hpp"

namespace gridcheck::gpu {
namespace {

using testing::GpuTest;
using testing::words_of;

const ComputePipeline& scale_pipeline(VulkanContext& ctx) {
  ir::Result<const ComputePipeline*> p = ctx.pipelines().get(testing::compiled(testing::kScaleShader), {{0, 3}, 2});
  if (!p) {
    ADD_FAILURE() << ir::render(p.diagnostics());
    std::abort();
  }
  return **p;
}

/// One worker's case: its own buffers and batch; dst = 2 * {k, k+1, k+2, k+3} + k.
struct Worker {
  explicit Worker(VulkanContext& ctx, std::uint32_t k) : k(k), batch(ctx) {
    auto a = DeviceBuffer::create(ctx, 16);
    auto b = DeviceBuffer::create(ctx, 16);
    EXPECT_TRUE(a.ok() && b.ok());
    src = std::move(*a);
    dst = std::move(*b);
  }
  bool run(const ComputePipeline& p) {
    const std::vector<std::uint32_t> in = {k, k + 1, k + 2, k + 3};
    src.write({reinterpret_cast<const std::uint8_t*>(in.data()), in.size() * 4});
    batch.dispatch(p, {&src, &dst}, {4, k}, {1, 1, 1});
    return batch.submit_and_wait().ok();
  }
  std::vector<std::uint32_t> expected() const { return {3 * k, 3 * k + 2, 3 * k + 4, 3 * k + 6}; }

  std::uint32_t k;
  CommandBatch batch;
  DeviceBuffer src, dst;
};

class Gpu_QueueSubmitter : public GpuTest {};

// Four threads submit while the queue is held: the first one through takes all four pending
// submissions into one vkQueueSubmit (on a device without timeline semaphores, one call each), and
// every worker reads its own result.
TEST_F(Gpu_QueueSubmitter, SubmissionsThatArriveTogetherShareOneQueueCall) {
  const ComputePipeline& p = scale_pipeline(ctx());
  constexpr std::uint32_t kWorkers = 4;
  std::vector<std::unique_ptr<Worker>> workers;
  for (std::uint32_t k = 0; k < kWorkers; ++k) workers.push_back(std::make_unique<Worker>(ctx(), 10 * (k + 1)));
  QueueSubmitter& queue = ctx().submitter();
  const std::uint64_t calls = queue.queue_calls(), buffers = queue.command_buffers();

  queue.hold();
  std::vector<int> ok(kWorkers, 0);
  std::vector<std::thread> threads;
  for (std::uint32_t k = 0; k < kWorkers; ++k) threads.emplace_back([&, k] { ok[k] = workers[k]->run(p) ? 1 : 0; });
  const bool grouped = ctx().info().timeline_semaphores;
  if (grouped) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (queue.pending() < kWorkers && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    EXPECT_EQ(queue.pending(), kWorkers);
  }
  queue.release();
  for (std::thread& t : threads) t.join();

  EXPECT_EQ(queue.command_buffers() - buffers, kWorkers);
  EXPECT_EQ(queue.queue_calls() - calls, grouped ? 1u : kWorkers);
  EXPECT_EQ(queue.pending(), 0u);
  for (std::uint32_t k = 0; k < kWorkers; ++k) {
    EXPECT_EQ(ok[k], 1) << "worker " << k;
    EXPECT_EQ(words_of(workers[k]->dst), workers[k]->expected()) << "worker " << k;
  }
}

// Twin: one thread alone never waits for a group; each submission is its own call.
TEST_F(Gpu_QueueSubmitter, ASubmitterAloneMakesOneCallPerSubmission) {
  const ComputePipeline& p = scale_pipeline(ctx());
  Worker w(ctx(), 7);
  QueueSubmitter& queue = ctx().submitter();
  const std::uint64_t calls = queue.queue_calls(), buffers = queue.command_buffers();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(w.run(p));
    EXPECT_EQ(words_of(w.dst), w.expected());
  }
  EXPECT_EQ(queue.queue_calls() - calls, 3u);
  EXPECT_EQ(queue.command_buffers() - buffers, 3u);
}

// Many threads, many submissions each, no hold: whatever the grouping, every result is the worker's own
// and every command buffer went on the queue exactly once.
TEST_F(Gpu_QueueSubmitter, BusyWorkersEachGetTheirOwnResults) {
  const ComputePipeline& p = scale_pipeline(ctx());
  constexpr std::uint32_t kWorkers = 6, kRounds = 20;
  std::vector<std::unique_ptr<Worker>> workers;
  for (std::uint32_t k = 0; k < kWorkers; ++k) workers.push_back(std::make_unique<Worker>(ctx(), k + 1));
  QueueSubmitter& queue = ctx().submitter();
  const std::uint64_t calls = queue.queue_calls(), buffers = queue.command_buffers();
  std::vector<int> wrong(kWorkers, 0);
  std::vector<std::thread> threads;
  for (std::uint32_t k = 0; k < kWorkers; ++k)
    threads.emplace_back([&, k] {
      Worker& w = *workers[k];
      for (std::uint32_t round = 0; round < kRounds; ++round) {
        w.k = (k + 1) * 100 + round;  // a new push word and input every round
        if (!w.run(p) || words_of(w.dst) != w.expected()) ++wrong[k];
      }
    });
  for (std::thread& t : threads) t.join();
  for (std::uint32_t k = 0; k < kWorkers; ++k) EXPECT_EQ(wrong[k], 0) << "worker " << k;
  EXPECT_EQ(queue.command_buffers() - buffers, kWorkers * kRounds);
  EXPECT_LE(queue.queue_calls() - calls, kWorkers * kRounds);
  EXPECT_GE(queue.queue_calls() - calls, 1u);
}

}  // namespace
}  // namespace gridcheck::gpu
