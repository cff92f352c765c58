#include "gpu/command_batch.hpp"

#include <chrono>

#include "gpu/compute_pipeline.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/gpu_diagnostics.hpp"
#include "gpu/queue_submitter.hpp"
#include "gpu/vulkan_context.hpp"

namespace gridcheck::gpu {

std::uint32_t CommandBatch::add_buffer(const DeviceBuffer& b) {
  buffers_.push_back(&b);
  return static_cast<std::uint32_t>(buffers_.size() - 1);
}

void CommandBatch::dispatch(const ComputePipeline& pipeline, const std::vector<const DeviceBuffer*>& buffers,
                            const std::vector<std::uint32_t>& push_words, std::array<std::uint32_t, 3> groups) {
  GC_ASSERT(buffers.size() == pipeline.layout_desc.storage_bindings.size());
  GC_ASSERT(push_words.size() == pipeline.layout_desc.push_constant_words);
  Command c{Command::Kind::Dispatch};
  c.pipeline = &pipeline;
  c.pipeline_serial = pipeline.serial;
  c.first_buffer = static_cast<std::uint32_t>(buffers_.size());
  c.buffer_count = static_cast<std::uint32_t>(buffers.size());
  buffers_.insert(buffers_.end(), buffers.begin(), buffers.end());
  c.first_word = static_cast<std::uint32_t>(words_.size());
  c.word_count = static_cast<std::uint32_t>(push_words.size());
  words_.insert(words_.end(), push_words.begin(), push_words.end());
  c.groups = groups;
  commands_.push_back(c);
}

void CommandBatch::fill_zero(const DeviceBuffer& buffer) {
  Command c{Command::Kind::Fill};
  c.first_buffer = add_buffer(buffer);
  c.buffer_count = 1;
  commands_.push_back(c);
}

void CommandBatch::copy(const DeviceBuffer& src, std::uint64_t src_offset, const DeviceBuffer& dst, std::uint64_t bytes) {
  GC_ASSERT(src_offset + bytes <= src.range() && bytes <= dst.range());
  if (bytes == 0) return;
  Command c{Command::Kind::Copy};
  c.first_buffer = add_buffer(src);
  add_buffer(dst);
  c.buffer_count = 2;
  c.offset = src_offset;
  c.bytes = bytes;
  commands_.push_back(c);
}

bool CommandBatch::same_as_recorded() const {
  if (!recorded_ || commands_ != recorded_commands_ || words_ != recorded_words_ || buffers_.size() != recorded_buffers_.size())
    return false;
  for (std::size_t i = 0; i < buffers_.size(); ++i) {
    const DeviceBuffer& b = *buffers_[i];
    if (!(recorded_buffers_[i] == BufferKey{b.serial(), b.handle(), b.range()})) return false;
  }
  return true;
}

CommandBatch::~CommandBatch() {
  const VkDevice device = ctx_.device();
  if (fence_ != VK_NULL_HANDLE) vkDestroyFence(device, fence_, nullptr);
  if (timeline_ != VK_NULL_HANDLE) vkDestroySemaphore(device, timeline_, nullptr);
  if (descriptors_ != VK_NULL_HANDLE) vkDestroyDescriptorPool(device, descriptors_, nullptr);
  if (pool_ != VK_NULL_HANDLE) vkDestroyCommandPool(device, pool_, nullptr);  // frees cmd_
}

ir::Result<SubmitStats> CommandBatch::submit_and_wait() {
  const VkDevice device = ctx_.device();
  if (commands_.empty()) {
    // Nothing to record: an empty command buffer still orders host writes before the wait returns.
  } else if (same_as_recorded()) {
    clear();
    ++resubmissions_;
    ir::Result<SubmitStats> stats = submit_recorded();
    recorded_ = stats.ok();
    return stats;
  }
  // Record afresh: the queued commands become the kept recording (the old one is dropped first, so that
  // a failure below leaves none).
  recorded_ = false;
  recorded_commands_.swap(commands_);
  recorded_words_.swap(words_);
  recorded_buffers_.clear();
  for (const DeviceBuffer* b : buffers_) recorded_buffers_.push_back(BufferKey{b->serial(), b->handle(), b->range()});
  recording_buffers_.swap(buffers_);  // both keep their capacity
  const std::vector<const DeviceBuffer*>& buffers = recording_buffers_;
  clear();
  const std::vector<Command>& commands = recorded_commands_;
  const std::vector<std::uint32_t>& words = recorded_words_;

  std::uint32_t sets = 0;
  std::uint32_t descriptors = 0;
  VkPipelineStageFlags stages = 0;
  VkAccessFlags writes = 0;
  VkAccessFlags accesses = 0;
  for (const Command& c : commands) {
    if (c.kind == Command::Kind::Dispatch) {
      ++sets;
      descriptors += c.buffer_count;
      stages |= VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
      writes |= VK_ACCESS_SHADER_WRITE_BIT;
      accesses |= VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    } else {
      stages |= VK_PIPELINE_STAGE_TRANSFER_BIT;
      writes |= VK_ACCESS_TRANSFER_WRITE_BIT;
      accesses |= VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    }
  }

  // The previous submission was waited for: every kept object may be reset.
  VkResult r = VK_SUCCESS;
  std::vector<VkDescriptorSet>& descriptor_sets = descriptor_sets_;
  descriptor_sets.assign(sets, VK_NULL_HANDLE);
  if (sets > 0) {
    descriptors = std::max<std::uint32_t>(descriptors, 1);
    if (descriptors_ != VK_NULL_HANDLE && sets <= descriptor_set_capacity_ && descriptors <= descriptor_capacity_) {
      r = vkResetDescriptorPool(device, descriptors_, 0);
      if (r != VK_SUCCESS) return vk_error(r, "vkResetDescriptorPool");
    } else {
      if (descriptors_ != VK_NULL_HANDLE) vkDestroyDescriptorPool(device, descriptors_, nullptr);
      descriptors_ = VK_NULL_HANDLE;
      descriptor_set_capacity_ = std::max(sets, descriptor_set_capacity_);
      descriptor_capacity_ = std::max(descriptors, descriptor_capacity_);
      VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, descriptor_capacity_};
      VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
      pi.maxSets = descriptor_set_capacity_;
      pi.poolSizeCount = 1;
      pi.pPoolSizes = &size;
      r = vkCreateDescriptorPool(device, &pi, nullptr, &descriptors_);
      if (r != VK_SUCCESS) {
        descriptors_ = VK_NULL_HANDLE;
        descriptor_set_capacity_ = descriptor_capacity_ = 0;
        return vk_error(r, "vkCreateDescriptorPool");
      }
    }
    std::uint32_t next = 0;
    for (const Command& c : commands) {
      if (c.kind != Command::Kind::Dispatch) continue;
      VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
      ai.descriptorPool = descriptors_;
      ai.descriptorSetCount = 1;
      ai.pSetLayouts = &c.pipeline->set_layout;
      r = vkAllocateDescriptorSets(device, &ai, &descriptor_sets[next]);
      if (r != VK_SUCCESS) return vk_error(r, "vkAllocateDescriptorSets");
      std::vector<VkDescriptorBufferInfo> infos(c.buffer_count);
      std::vector<VkWriteDescriptorSet> w(c.buffer_count);
      for (std::size_t i = 0; i < c.buffer_count; ++i) {
        const DeviceBuffer& b = *buffers[c.first_buffer + i];
        infos[i] = VkDescriptorBufferInfo{b.handle(), 0, b.range()};
        w[i] = VkWriteDescriptorSet{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w[i].dstSet = descriptor_sets[next];
        w[i].dstBinding = c.pipeline->layout_desc.storage_bindings[i];
        w[i].descriptorCount = 1;
        w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        w[i].pBufferInfo = &infos[i];
      }
      vkUpdateDescriptorSets(device, static_cast<std::uint32_t>(w.size()), w.data(), 0, nullptr);
      ++next;
    }
  }

  if (pool_ == VK_NULL_HANDLE) {
    VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    pi.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    pi.queueFamilyIndex = ctx_.queue_family();
    r = vkCreateCommandPool(device, &pi, nullptr, &pool_);
    if (r != VK_SUCCESS) {
      pool_ = VK_NULL_HANDLE;
      return vk_error(r, "vkCreateCommandPool");
    }
  } else {
    r = vkResetCommandPool(device, pool_, 0);  // cmd_ back to the initial state
    if (r != VK_SUCCESS) return vk_error(r, "vkResetCommandPool");
  }
  if (cmd_ == VK_NULL_HANDLE) {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool_;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    r = vkAllocateCommandBuffers(device, &ai, &cmd_);
    if (r != VK_SUCCESS) {
      cmd_ = VK_NULL_HANDLE;
      return vk_error(r, "vkAllocateCommandBuffers");
    }
  }
  if (ctx_.info().timeline_semaphores) {
    if (timeline_ == VK_NULL_HANDLE) {
      VkSemaphoreTypeCreateInfo type{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
      type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
      type.initialValue = 0;
      VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
      si.pNext = &type;
      r = vkCreateSemaphore(device, &si, nullptr, &timeline_);
      if (r != VK_SUCCESS) {
        timeline_ = VK_NULL_HANDLE;
        return vk_error(r, "vkCreateSemaphore");
      }
      timeline_value_ = 0;
    }
  } else if (fence_ == VK_NULL_HANDLE) {
    VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    r = vkCreateFence(device, &fi, nullptr, &fence_);
    if (r != VK_SUCCESS) {
      fence_ = VK_NULL_HANDLE;
      return vk_error(r, "vkCreateFence");
    }
  }  // submit_recorded() resets it
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  r = vkBeginCommandBuffer(cmd_, &bi);  // not one-time: an equal next submission resubmits it
  if (r != VK_SUCCESS) return vk_error(r, "vkBeginCommandBuffer");

  std::uint32_t next = 0;
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const Command& c = commands[i];
    if (i > 0) {
      VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      mb.srcAccessMask = writes;
      mb.dstAccessMask = accesses;
      vkCmdPipelineBarrier(cmd_, stages, stages, 0, 1, &mb, 0, nullptr, 0, nullptr);
    }
    switch (c.kind) {
      case Command::Kind::Dispatch:
        vkCmdBindPipeline(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, c.pipeline->pipeline);
        vkCmdBindDescriptorSets(cmd_, VK_PIPELINE_BIND_POINT_COMPUTE, c.pipeline->layout, 0, 1,
                                &descriptor_sets[next++], 0, nullptr);
        if (c.word_count > 0)
          vkCmdPushConstants(cmd_, c.pipeline->layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, c.word_count * 4, words.data() + c.first_word);
        vkCmdDispatch(cmd_, c.groups[0], c.groups[1], c.groups[2]);
        break;
      case Command::Kind::Fill:
        vkCmdFillBuffer(cmd_, buffers[c.first_buffer]->handle(), 0, buffers[c.first_buffer]->range(), 0);
        break;
      case Command::Kind::Copy: {
        const VkBufferCopy region{c.offset, 0, c.bytes};
        vkCmdCopyBuffer(cmd_, buffers[c.first_buffer]->handle(), buffers[c.first_buffer + 1]->handle(), 1, &region);
        break;
      }
    }
  }
  if (!commands.empty()) {
    VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = writes;
    mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd_, stages, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, nullptr, 0, nullptr);
  }
  r = vkEndCommandBuffer(cmd_);
  if (r != VK_SUCCESS) return vk_error(r, "vkEndCommandBuffer");
  ir::Result<SubmitStats> stats = submit_recorded();
  recorded_ = stats.ok() && !commands.empty();
  return stats;
}

ir::Result<SubmitStats> CommandBatch::submit_recorded() {
  const VkDevice device = ctx_.device();
  const auto start = std::chrono::steady_clock::now();
  if (timeline_ != VK_NULL_HANDLE) {
    const std::uint64_t value = ++timeline_value_;
    VkResult r = ctx_.submitter().submit(cmd_, timeline_, value);
    if (r != VK_SUCCESS) return vk_error(r, "vkQueueSubmit");
    VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
    wi.semaphoreCount = 1;
    wi.pSemaphores = &timeline_;
    wi.pValues = &value;
    r = vkWaitSemaphores(device, &wi, UINT64_MAX);
    if (r != VK_SUCCESS) return vk_error(r, "vkWaitSemaphores");
  } else {
    VkResult r = vkResetFences(device, 1, &fence_);
    if (r != VK_SUCCESS) return vk_error(r, "vkResetFences");
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd_;
    r = ctx_.submitter().submit_with_fence(si, fence_);
    if (r != VK_SUCCESS) return vk_error(r, "vkQueueSubmit");
    r = vkWaitForFences(device, 1, &fence_, VK_TRUE, UINT64_MAX);
    if (r != VK_SUCCESS) return vk_error(r, "vkWaitForFences");
  }
  SubmitStats stats;
  stats.wall_ns = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
  ctx_.note_submission(stats.wall_ns);
  return stats;
}

}  // namespace gridcheck::gpu
