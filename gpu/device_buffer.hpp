#pragma once
// A storage buffer in host-visible, host-coherent memory, persistently mapped. The byte size is what
// the caller asked for (it may be 0 or not a multiple of 4); the descriptor range is at least 4 bytes and
// rounded up to a multiple of 4, because a descriptor range can be neither empty nor unaligned. The
// Vulkan buffer may be larger still (its capacity): a pooled buffer (buffer_pool.hpp) is made for a
// size class and reshaped for each use; nothing beyond range() is ever bound, copied or read.

#include <cstdint>
#include <span>

#include <vulkan/vulkan.h>

#include "ir/diagnostic.hpp"

namespace gridcheck::gpu {

class VulkanContext;

class DeviceBuffer {
 public:
  /// Storage: the memory shaders use (VulkanContext::host_coherent_memory_type, device-local preferred).
  /// Readback: a destination for device copies that the host reads (host_cached_memory_type, else Storage's).
  enum class Use : std::uint8_t { Storage, Readback };

  /// A buffer of `bytes` bytes (zero-filled). K020 beyond the device's maxStorageBufferRange or
  /// maxMemoryAllocationSize; K010 when memory runs out.
  static ir::Result<DeviceBuffer> create(VulkanContext& ctx, std::uint64_t bytes, Use use = Use::Storage);
  /// Same, with a Vulkan buffer of at least `capacity` bytes, so that reshape() can later give it any
  /// size up to that capacity (K020/K010 as create, for the capacity).
  static ir::Result<DeviceBuffer> create_with_capacity(VulkanContext& ctx, std::uint64_t bytes, std::uint64_t capacity,
                                                       Use use = Use::Storage);

  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept { *this = std::move(other); }
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }

  VkBuffer handle() const { return buffer_; }
  std::uint64_t size() const { return size_; }             ///< the requested byte size
  std::uint64_t range() const { return range_; }           ///< the descriptor range (>= 4, multiple of 4)
  std::uint64_t capacity() const { return capacity_; }     ///< bytes of the Vulkan buffer (>= range)
  /// Gives the buffer the byte size `bytes` (its range rounded as create's; at most capacity()) and sets
  /// the whole new range to zero bytes. Only while no submission uses the buffer.
  void reshape_zeroed(std::uint64_t bytes);
  std::span<std::uint8_t> bytes() { return {mapped_, static_cast<std::size_t>(size_)}; }
  std::span<const std::uint8_t> bytes() const { return {mapped_, static_cast<std::size_t>(size_)}; }
  /// Copies `data` to the start of the buffer (host write; visible to the next submission).
  void write(std::span<const std::uint8_t> data);
  bool valid() const { return buffer_ != VK_NULL_HANDLE; }
  /// Identifies the Vulkan buffer for the process's lifetime (a handle value may be reused after a
  /// destroy; a serial never is). Moves with the buffer, so a pooled buffer keeps it. 0: none.
  std::uint64_t serial() const { return serial_; }
  Use use() const { return use_; }
  /// False when host reads of the mapping are uncached: device-local memory behind the PCIe BAR, where
  /// reading 16 MiB took 0.65 s on an NVIDIA H200. Read such a buffer through a Readback copy.
  bool host_cached() const { return host_cached_; }

 private:
  void reset();

  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  std::uint8_t* mapped_ = nullptr;
  std::uint64_t size_ = 0;
  std::uint64_t range_ = 0;
  std::uint64_t capacity_ = 0;
  std::uint64_t serial_ = 0;
  Use use_ = Use::Storage;
  bool host_cached_ = false;
};

}  // namespace gridcheck::gpu
