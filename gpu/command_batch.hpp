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
// A batch keeps its driver objects between submissions: a command pool with one command buffer, a
// timeline semaphore (a fence on a device without them) and a descriptor pool (grown to the largest
// submission so far), reset before each use. After its first submission of a given size a batch
// allocates nothing in the driver (on an NVIDIA H200 creating them cost more per submission than the
// dispatches of a small split).
//
// Re-submission: when a submission's commands are exactly the previous successful submission's (same
// kinds, pipelines, buffers by DeviceBuffer::serial, handle and range, push words, grids, offsets and byte
// counts), the command buffer and descriptor sets recorded for that one are submitted again as they are:
// no descriptor set allocation or update and no recording (a resident run of the same plan over the same
// buffers, run after run). Anything different records afresh. The commands live in flat arrays that keep
// their capacity, so queueing a command allocates nothing once the batch has seen a submission that large.
//
// Submission goes through the context's QueueSubmitter (queue_submitter.hpp): batches of other threads
// submitted at the same moment share one vkQueueSubmit call; each batch waits for its own work only.

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
  std::uint64_t wall_ns = 0;  ///< from handing the submission to the queue to its completion being observed
};

class CommandBatch {
 public:
  explicit CommandBatch(VulkanContext& ctx) : ctx_(ctx) {}
  ~CommandBatch();
  CommandBatch(const CommandBatch&) = delete;
  CommandBatch& operator=(const CommandBatch&) = delete;

  /// `buffers[i]` is bound at `pipeline.layout_desc.storage_bindings[i]`; `push_words` fills the
  /// pipeline's push-constant block (exactly push_constant_words words).
  void dispatch(const ComputePipeline& pipeline, const std::vector<const DeviceBuffer*>& buffers,
                const std::vector<std::uint32_t>& push_words, std::array<std::uint32_t, 3> groups);
  /// Sets the buffer's range to zero bytes (vkCmdFillBuffer).
  void fill_zero(const DeviceBuffer& buffer);
  /// Copies `bytes` bytes from `src` at `src_offset` to the start of `dst` (nothing when `bytes` is 0).
  void copy(const DeviceBuffer& src, std::uint64_t src_offset, const DeviceBuffer& dst, std::uint64_t bytes);

  std::size_t size() const { return commands_.size(); }
  /// Drops the queued commands without submitting them.
  void clear() {
    commands_.clear();
    buffers_.clear();
    words_.clear();
  }
  bool empty() const { return commands_.empty(); }

  /// Records (unless the previous recording is resubmitted), submits and waits; the batch is empty
  /// afterwards. K010 / K011 / K012 on driver failure.
  ir::Result<SubmitStats> submit_and_wait();
  /// Submissions that resubmitted the previous recording.
  std::uint64_t resubmissions() const { return resubmissions_; }

 private:
  struct Command {
    enum class Kind : std::uint8_t { Dispatch, Fill, Copy } kind;
    const ComputePipeline* pipeline = nullptr;
    std::uint64_t pipeline_serial = 0;
    std::uint32_t first_buffer = 0;  ///< into buffers_: Dispatch: per binding; Fill: [dst]; Copy: [src, dst]
    std::uint32_t buffer_count = 0;
    std::uint32_t first_word = 0;  ///< into words_: the push words
    std::uint32_t word_count = 0;
    std::array<std::uint32_t, 3> groups{};
    std::uint64_t offset = 0;
    std::uint64_t bytes = 0;
    bool operator==(const Command&) const = default;
  };
  /// A bound buffer as the recording saw it.
  struct BufferKey {
    std::uint64_t serial = 0;
    VkBuffer handle = VK_NULL_HANDLE;
    std::uint64_t range = 0;
    bool operator==(const BufferKey&) const = default;
  };
  std::uint32_t add_buffer(const DeviceBuffer& b);
  /// True when the queued commands are those of the kept recording.
  bool same_as_recorded() const;
  ir::Result<SubmitStats> submit_recorded();

  VulkanContext& ctx_;
  std::vector<Command> commands_;
  std::vector<const DeviceBuffer*> buffers_;
  std::vector<std::uint32_t> words_;
  // The commands of the kept recording (valid while recorded_), compared with the next submission's.
  bool recorded_ = false;
  std::vector<Command> recorded_commands_;
  std::vector<BufferKey> recorded_buffers_;
  std::vector<std::uint32_t> recorded_words_;
  std::vector<const DeviceBuffer*> recording_buffers_;  ///< the buffers of the commands being recorded
  std::vector<VkDescriptorSet> descriptor_sets_;
  std::uint64_t resubmissions_ = 0;
  // Kept between submissions (created on first use).
  VkCommandPool pool_ = VK_NULL_HANDLE;
  VkCommandBuffer cmd_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;  ///< without timeline semaphores
  VkSemaphore timeline_ = VK_NULL_HANDLE;  ///< with them: signalled to timeline_value_ by each submission
  std::uint64_t timeline_value_ = 0;
  VkDescriptorPool descriptors_ = VK_NULL_HANDLE;
  std::uint32_t descriptor_set_capacity_ = 0;
  std::uint32_t descriptor_capacity_ = 0;
};

}  // namespace gridcheck::gpu
