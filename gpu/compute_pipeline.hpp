#pragma once
// Compute pipelines and their cache. A pipeline is one SPIR-V module with entry point `main`, a single
// descriptor set (set 0) of storage buffers at the given bindings, and an optional push-constant block
// of 32-bit words. The cache is keyed by a hash of the SPIR-V words plus that layout; a hit is confirmed
// by comparing the words, so a hash collision can never return the wrong pipeline.

#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include <vulkan/vulkan.h>

#include "ir/diagnostic.hpp"

namespace gridcheck::gpu {

class VulkanContext;

struct PipelineLayoutDesc {
  std::vector<std::uint32_t> storage_bindings;  ///< binding numbers in set 0, ascending
  std::uint32_t push_constant_words = 0;
  friend bool operator==(const PipelineLayoutDesc&, const PipelineLayoutDesc&) = default;
};

struct ComputePipeline {
  PipelineLayoutDesc layout_desc;
  std::vector<std::uint32_t> spirv;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkPipeline pipeline = VK_NULL_HANDLE;
};

/// FNV-1a-64 over the words (little-endian bytes).
std::uint64_t spirv_hash(std::span<const std::uint32_t> spirv);

class PipelineCache {
 public:
  explicit PipelineCache(VulkanContext& ctx) : ctx_(ctx) {}
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  /// The pipeline for `spirv` with `layout`, created on first use. K012/K010 on driver failure (and
  /// K022/K023 should the driver refuse the module for its limits). The pointer lives as long as the cache.
  ir::Result<const ComputePipeline*> get(std::span<const std::uint32_t> spirv, const PipelineLayoutDesc& layout);

  std::size_t size() const { return entries_.size(); }
  std::uint64_t hits() const { return hits_; }
  std::uint64_t misses() const { return misses_; }

 private:
  void destroy(ComputePipeline& p);

  VulkanContext& ctx_;
  std::unordered_multimap<std::uint64_t, std::unique_ptr<ComputePipeline>> entries_;
  std::uint64_t hits_ = 0;
  std::uint64_t misses_ = 0;
};

}  // namespace gridcheck::gpu
