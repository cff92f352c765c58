#pragma once
// The engine's command layer: a list of dispatches, zero fills and buffer copies recorded into one
// command buffer, submitted once and waited for. Between two consecutive commands it inserts a global
// memory barrier (writes of every stage the batch uses -> reads and writes of those stages; a
// dispatch-only batch gets COMPUTE -> COMPUTE barriers), and after the last one a barrier from those
// writes to HOST_READ, so that mapped memory is valid when submit_and_wait returns. Host writes made
// before submit_and_wait need no barrier (queue submission makes them visible).
//
// The caller keeps every referenced pipeline and buffer alive until submit_and_wait returns.
//
// A batch keeps its driver objects between submissions: a command pool with one command buffer, a fence
// and a descriptor pool (grown to the largest submission so far), reset before each use. After its first
// submission of a given size a batch allocates nothing in the driver (on an NVIDIA H200 creating them
// cost more per submission than the dispatches of a small split).

#include <array>
#include <cstdint>
#include <vector>

#include <vulkan/vulkan.h>

#include "ir/diagnostic.hpp"

namespace gridcheck::gpu {

class VulkanContext;
class DeviceBuffer;
struct ComputePipeline;

struct SubmitStats {
  std::uint64_t wall_ns = 0;  ///< from vkQueueSubmit to the fence signal being observed
};

class CommandBatch {
 public:
  explicit CommandBatch(VulkanContext& ctx) : ctx_(ctx) {}
  ~CommandBatch();
  CommandBatch(const CommandBatch&) = delete;
  CommandBatch& operator=(const CommandBatch&) = delete;

  /// `buffers[i]` is bound at `pipeline.layout_desc.storage_bindings[i]`; `push_words` fills the
  /// pipeline's push-constant block (exactly push_constant_words words).
  void dispatch(const ComputePipeline& pipeline, std::vector<const DeviceBuffer*> buffers,
                std::vector<std::uint32_t> push_words, std::array<std::uint32_t, 3> groups);
  /// Sets the buffer's range to zero bytes (vkCmdFillBuffer).
  void fill_zero(const DeviceBuffer& buffer);
  /// Copies `bytes` bytes from `src` at `src_offset` to the start of `dst` (nothing when `bytes` is 0).
  void copy(const DeviceBuffer& src, std::uint64_t src_offset, const DeviceBuffer& dst, std::uint64_t bytes);

  std::size_t size() const { return commands_.size(); }
  /// Drops the recorded commands without submitting them.
  void clear() { commands_.clear(); }
  bool empty() const { return commands_.empty(); }

  /// Records, submits and waits; the batch is empty afterwards. K010 / K011 / K012 on driver failure.
  ir::Result<SubmitStats> submit_and_wait();

 private:
  struct Command {
    enum class Kind : std::uint8_t { Dispatch, Fill, Copy } kind;
    const ComputePipeline* pipeline = nullptr;
    std::vector<const DeviceBuffer*> buffers;  ///< Dispatch: per binding; Fill: [dst]; Copy: [src, dst]
    std::vector<std::uint32_t> push_words;
    std::array<std::uint32_t, 3> groups{};
    std::uint64_t offset = 0;
    std::uint64_t bytes = 0;
  };

  VulkanContext& ctx_;
  std::vector<Command> commands_;
  // Kept between submissions (created on first use).
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptors_ = VK_NULL_HANDLE;
  std::uint32_t descriptor_set_capacity_ = 0;
  std::uint32_t descriptor_capacity_ = 0;
};

}  // namespace gridcheck::gpu
