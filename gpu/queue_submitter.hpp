#pragma once
// The one way onto a VulkanContext's queue (which needs external synchronisation): group commit.
//
// A thread that submits while another thread is inside vkQueueSubmit does not wait for the queue's
// lock and then make a call of its own: it leaves its command buffer in the pending list, and the next
// thread to reach the queue submits every pending command buffer in one vkQueueSubmit, one
// VkSubmitInfo each, in the order they arrived. So N workers feeding one device make fewer queue
// calls the busier the queue is, and a worker never waits for more than the one call in progress
// before its own work is on the queue.
//
// Completion stays per submitter: a grouped submission signals the submitter's own timeline
// semaphore to the value it gave (each VkSubmitInfo carries its own signal), and the submitter waits
// for that value, not for the group. Cases whose command buffers share a group touch none of each
// other's buffers (each thread records its own), so the queue's order among them changes no result.
//
// submit_with_fence is the path of a device without timeline semaphores: one call per submission, under
// the same exclusion.
//
// Errors: a failed vkQueueSubmit is every grouped submitter's result. Nothing throws.

#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include <vulkan/vulkan.h>

namespace gridcheck::gpu {

class QueueSubmitter {
 public:
  explicit QueueSubmitter(VkQueue queue) : queue_(queue) {}
  QueueSubmitter(const QueueSubmitter&) = delete;
  QueueSubmitter& operator=(const QueueSubmitter&) = delete;

  /// Puts `command_buffer` on the queue, grouped with other threads' pending submissions, with a signal
  /// of `semaphore` (a timeline semaphore) to `value` when it completes. Returns when it is on the queue
  /// (not when it completes): the result of the vkQueueSubmit call that carried it.
  VkResult submit(VkCommandBuffer command_buffer, VkSemaphore semaphore, std::uint64_t value);
  /// One vkQueueSubmit of `info` with `fence`, alone (the queue is still used by one thread at a time).
  VkResult submit_with_fence(const VkSubmitInfo& info, VkFence fence);

  /// vkQueueSubmit calls made, and the command buffers they carried (grouped or alone).
  std::uint64_t queue_calls() const;
  std::uint64_t command_buffers() const;

  /// Tests only: while held, submissions wait in the pending list and nobody calls vkQueueSubmit;
  /// release() lets the next one through, which then takes every pending submission.
  void hold();
  void release();
  /// Submissions waiting in the pending list.
  std::size_t pending() const;

 private:
  struct Entry {
    VkCommandBuffer command_buffer = VK_NULL_HANDLE;
    VkSemaphore semaphore = VK_NULL_HANDLE;
    std::uint64_t value = 0;
    bool done = false;
    VkResult result = VK_SUCCESS;
  };
  /// Waits until no other thread holds the queue (and it is not held), then takes it.
  void take_queue(std::unique_lock<std::mutex>& lock);

  VkQueue queue_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  bool busy_ = false;  ///< a thread is inside vkQueueSubmit (or about to be)
  bool held_ = false;
  std::vector<Entry*> pending_;
  // The group being submitted; touched only by the thread that holds the queue (busy_).
  std::vector<Entry*> group_;
  std::vector<VkSubmitInfo> infos_;
  std::vector<VkTimelineSemaphoreSubmitInfo> timelines_;
  std::uint64_t queue_calls_ = 0;
  std::uint64_t command_buffers_ = 0;
};

}  // namespace gridcheck::gpu
