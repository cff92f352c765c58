#include "gpu/device_buffer.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "gpu/gpu_diagnostics.hpp"
#include "gpu/vulkan_context.hpp"

namespace gridcheck::gpu {

namespace {

std::uint64_t range_of(std::uint64_t bytes) { return std::max<std::uint64_t>(4, (bytes + 3) / 4 * 4); }

}  // namespace

ir::Result<DeviceBuffer> DeviceBuffer::create(VulkanContext& ctx, std::uint64_t bytes, Use use) {
  return create_with_capacity(ctx, bytes, 0, use);
}

void DeviceBuffer::reshape_zeroed(std::uint64_t bytes) {
  const std::uint64_t range = range_of(bytes);
  GC_ASSERT(valid() && range <= capacity_);
  size_ = bytes;
  range_ = range;
  std::memset(mapped_, 0, range);
}

ir::Result<DeviceBuffer> DeviceBuffer::create_with_capacity(VulkanContext& ctx, std::uint64_t bytes, std::uint64_t capacity,
                                                            Use use) {
  const DeviceInfo& d = ctx.info();
  const std::uint64_t range = std::max(range_of(bytes), range_of(capacity));
  if (range > d.max_storage_buffer_range)
    return make_error(Code::BufferTooLarge,
                      fmt::format("a buffer of {} bytes exceeds maxStorageBufferRange ({} bytes) of {}", bytes,
                                  d.max_storage_buffer_range, d.name));
  if (d.max_memory_allocation_bytes != 0 && range > d.max_memory_allocation_bytes)
    return make_error(Code::BufferTooLarge, fmt::format("a buffer of {} bytes exceeds maxMemoryAllocationSize ({} bytes) of {}",
                                                        bytes, d.max_memory_allocation_bytes, d.name));
  static std::atomic<std::uint64_t> next_serial{1};
  DeviceBuffer b;
  b.serial_ = next_serial.fetch_add(1, std::memory_order_relaxed);
  b.device_ = ctx.device();
  b.size_ = bytes;
  b.range_ = range_of(bytes);
  b.capacity_ = range;
  b.use_ = use;

  VkBufferCreateInfo ci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  ci.size = range;
  ci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  ci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult r = vkCreateBuffer(b.device_, &ci, nullptr, &b.buffer_);
  if (r != VK_SUCCESS) return vk_error(r, "vkCreateBuffer");

  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(b.device_, b.buffer_, &req);
  std::optional<std::uint32_t> type;
  if (use == Use::Readback) type = ctx.host_cached_memory_type(req.memoryTypeBits);
  if (!type) {
    ir::Result<std::uint32_t> storage = ctx.host_coherent_memory_type(req.memoryTypeBits);
    if (!storage) return storage.diagnostics();
    type = *storage;
  }
  b.host_cached_ = ctx.is_host_cached(*type);
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = *type;
  r = vkAllocateMemory(b.device_, &ai, nullptr, &b.memory_);
  if (r != VK_SUCCESS) return vk_error(r, fmt::format("vkAllocateMemory of {} bytes", req.size));
  r = vkBindBufferMemory(b.device_, b.buffer_, b.memory_, 0);
  if (r != VK_SUCCESS) return vk_error(r, "vkBindBufferMemory");
  void* mapped = nullptr;
  r = vkMapMemory(b.device_, b.memory_, 0, VK_WHOLE_SIZE, 0, &mapped);
  if (r != VK_SUCCESS) return vk_error(r, "vkMapMemory");
  b.mapped_ = static_cast<std::uint8_t*>(mapped);
  std::memset(b.mapped_, 0, range);
  return b;
}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    reset();
    device_ = std::exchange(other.device_, VK_NULL_HANDLE);
    buffer_ = std::exchange(other.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(other.memory_, VK_NULL_HANDLE);
    mapped_ = std::exchange(other.mapped_, nullptr);
    size_ = std::exchange(other.size_, 0);
    range_ = std::exchange(other.range_, 0);
    capacity_ = std::exchange(other.capacity_, 0);
    serial_ = std::exchange(other.serial_, 0);
    use_ = other.use_;
    host_cached_ = std::exchange(other.host_cached_, false);
  }
  return *this;
}

void DeviceBuffer::write(std::span<const std::uint8_t> data) {
  GC_ASSERT(data.size() <= size_);
  if (!data.empty()) std::memcpy(mapped_, data.data(), data.size());  // memcpy(…, nullptr, 0) is UB
}

void DeviceBuffer::reset() {
  if (device_ == VK_NULL_HANDLE) return;
  if (mapped_ != nullptr) vkUnmapMemory(device_, memory_);
  if (buffer_ != VK_NULL_HANDLE) vkDestroyBuffer(device_, buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE) vkFreeMemory(device_, memory_, nullptr);
  device_ = VK_NULL_HANDLE;
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
}

}  // namespace gridcheck::gpu
