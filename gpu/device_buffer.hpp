#pragma once
// A storage buffer in host-visible, host-coherent memory, persistently mapped. The byte size is what
// the caller asked for (it may be 0 or not a multiple of 4); the Vulkan buffer is at least 4 bytes and
// rounded up to a multiple of 4, because a descriptor range can be neither empty nor unaligned.

#include <cstdint>
#include <span>

#include <vulkan/vulkan.h>

#include "ir/diagnostic.hpp"

namespace gridcheck::gpu {

class VulkanContext;

class DeviceBuffer {
 public:
  /// A buffer of `bytes` bytes (zero-filled). K020 beyond the device's maxStorageBufferRange or
  /// maxMemoryAllocationSize; K010 when memory runs out.
  static ir::Result<DeviceBuffer> create(VulkanContext& ctx, std::uint64_t bytes);

  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }

  VkBuffer handle() const { return buffer_; }
  std::uint64_t size() const { return size_; }             ///< the requested byte size
  std::uint64_t range() const { return range_; }           ///< the descriptor range (>= 4, multiple of 4)
  std::span<std::uint8_t> bytes() { return {mapped_, static_cast<std::size_t>(size_)}; }
  std::span<const std::uint8_t> bytes() const { return {mapped_, static_cast<std::size_t>(size_)}; }
  /// Copies `data` to the start of the buffer (host write; visible to the next submission).
  void write(std::span<const std::uint8_t> data);
  bool valid() const { return buffer_ != VK_NULL_HANDLE; }

 private:
  void reset();

  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  std::uint8_t* mapped_ = nullptr;
  std::uint64_t size_ = 0;
  std::uint64_t range_ = 0;
};

}  // namespace gridcheck::gpu
