#include "gpu/buffer_pool.hpp"

#include <bit>
#include <map>
#include <utility>
#include <vector>

#include "gpu/vulkan_context.hpp"

namespace gridcheck::gpu {

struct BufferPool::State {
  std::mutex mutex;
  std::uint64_t max_kept_bytes = 0;
  std::map<std::pair<std::uint64_t, DeviceBuffer::Use>, std::vector<DeviceBuffer>> free;  ///< (capacity, use) -> released
  BufferPoolStats stats;

  /// Keeps `b` for reuse, or destroys it (outside the lock) when the pool is full.
  void release(DeviceBuffer* b) {
    std::unique_ptr<DeviceBuffer> owned(b);
    {
      std::lock_guard lock(mutex);
      if (stats.kept_bytes + owned->capacity() <= max_kept_bytes) {
        stats.kept_bytes += owned->capacity();
        free[{owned->capacity(), owned->use()}].push_back(std::move(*owned));
        return;
      }
    }
  }
};

namespace {

constexpr std::uint64_t kSmallestClass = 256;

}  // namespace

BufferPool::BufferPool(VulkanContext& ctx, std::uint64_t max_class_bytes, std::uint64_t max_kept_bytes)
    : ctx_(ctx), max_class_bytes_(max_class_bytes), state_(std::make_shared<State>()) {
  state_->max_kept_bytes = max_kept_bytes;
}

BufferPool::~BufferPool() = default;  // kept buffers go with the state; live ones find it expired

std::uint64_t BufferPool::class_capacity(std::uint64_t bytes) const {
  const std::uint64_t range = std::max<std::uint64_t>(4, (bytes + 3) / 4 * 4);
  const std::uint64_t capacity = std::max(kSmallestClass, std::bit_ceil(range));
  const DeviceInfo& d = ctx_.info();
  if (capacity > max_class_bytes_ || capacity > d.max_storage_buffer_range ||
      (d.max_memory_allocation_bytes != 0 && capacity > d.max_memory_allocation_bytes))
    return 0;
  return capacity;
}

ir::Result<std::shared_ptr<DeviceBuffer>> BufferPool::acquire(std::uint64_t bytes, DeviceBuffer::Use use) {
  const std::uint64_t capacity = class_capacity(bytes);
  if (capacity == 0) {  // not pooled
    ir::Result<DeviceBuffer> b = DeviceBuffer::create(ctx_, bytes, use);
    if (!b) return b.diagnostics();
    return std::make_shared<DeviceBuffer>(std::move(b).value());
  }
  std::weak_ptr<State> weak = state_;
  auto deleter = [weak](DeviceBuffer* b) {
    if (std::shared_ptr<State> s = weak.lock()) s->release(b);
    else delete b;
  };
  {
    std::unique_lock lock(state_->mutex);
    auto it = state_->free.find({capacity, use});
    if (it != state_->free.end() && !it->second.empty()) {
      auto b = std::make_unique<DeviceBuffer>(std::move(it->second.back()));
      it->second.pop_back();
      state_->stats.kept_bytes -= capacity;
      ++state_->stats.reused;
      lock.unlock();
      b->reshape_zeroed(bytes);  // every byte of the new range: nothing of the last user survives
      return std::shared_ptr<DeviceBuffer>(b.release(), deleter);
    }
    ++state_->stats.created;
  }
  ir::Result<DeviceBuffer> made = DeviceBuffer::create_with_capacity(ctx_, bytes, capacity, use);
  if (!made) return made.diagnostics();
  return std::shared_ptr<DeviceBuffer>(new DeviceBuffer(std::move(made).value()), deleter);
}

BufferPoolStats BufferPool::stats() const {
  std::lock_guard lock(state_->mutex);
  return state_->stats;
}

void BufferPool::trim() {
  decltype(state_->free) dropped;
  std::lock_guard lock(state_->mutex);
  dropped.swap(state_->free);
  state_->stats.kept_bytes = 0;
}

}  // namespace gridcheck::gpu
