#include "gpu/queue_submitter.hpp"

namespace gridcheck::gpu {

void QueueSubmitter::take_queue(std::unique_lock<std::mutex>& lock) {
  changed_.wait(lock, [this] { return !busy_ && !held_; });
  busy_ = true;
}

VkResult QueueSubmitter::submit(VkCommandBuffer command_buffer, VkSemaphore semaphore, std::uint64_t value) {
  Entry mine{command_buffer, semaphore, value};
  std::unique_lock lock(mutex_);
  pending_.push_back(&mine);
  changed_.wait(lock, [&] { return mine.done || (!busy_ && !held_); });
  if (mine.done) return mine.result;  // another thread's call carried it
  busy_ = true;
  group_.swap(pending_);  // every pending submission, this one included
  lock.unlock();

  infos_.assign(group_.size(), VkSubmitInfo{VK_STRUCTURE_TYPE_SUBMIT_INFO});
  timelines_.assign(group_.size(), VkTimelineSemaphoreSubmitInfo{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO});
  for (std::size_t i = 0; i < group_.size(); ++i) {
    Entry& e = *group_[i];
    timelines_[i].signalSemaphoreValueCount = 1;
    timelines_[i].pSignalSemaphoreValues = &e.value;
    infos_[i].pNext = &timelines_[i];
    infos_[i].commandBufferCount = 1;
    infos_[i].pCommandBuffers = &e.command_buffer;
    infos_[i].signalSemaphoreCount = 1;
    infos_[i].pSignalSemaphores = &e.semaphore;
  }
  const VkResult result = vkQueueSubmit(queue_, static_cast<std::uint32_t>(infos_.size()), infos_.data(), VK_NULL_HANDLE);

  lock.lock();
  for (Entry* e : group_) {
    e->result = result;
    e->done = true;
  }
  ++queue_calls_;
  command_buffers_ += group_.size();
  group_.clear();
  busy_ = false;
  lock.unlock();
  changed_.notify_all();
  return result;
}

VkResult QueueSubmitter::submit_with_fence(const VkSubmitInfo& info, VkFence fence) {
  std::unique_lock lock(mutex_);
  take_queue(lock);
  lock.unlock();
  const VkResult result = vkQueueSubmit(queue_, 1, &info, fence);
  lock.lock();
  ++queue_calls_;
  command_buffers_ += info.commandBufferCount;
  busy_ = false;
  lock.unlock();
  changed_.notify_all();
  return result;
}

std::uint64_t QueueSubmitter::queue_calls() const {
  std::lock_guard lock(mutex_);
  return queue_calls_;
}

std::uint64_t QueueSubmitter::command_buffers() const {
  std::lock_guard lock(mutex_);
  return command_buffers_;
}

void QueueSubmitter::hold() {
  std::lock_guard lock(mutex_);
  held_ = true;
}

void QueueSubmitter::release() {
  {
    std::lock_guard lock(mutex_);
    held_ = false;
  }
  changed_.notify_all();
}

std::size_t QueueSubmitter::pending() const {
  std::lock_guard lock(mutex_);
  return pending_.size();
}

}  // namespace gridcheck::gpu
