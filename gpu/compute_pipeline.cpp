#include "gpu/compute_pipeline.hpp"

#include <algorithm>

#include "gpu/gpu_diagnostics.hpp"
#include "gpu/vulkan_context.hpp"

namespace gridcheck::gpu {

std::uint64_t spirv_hash(std::span<const std::uint32_t> spirv) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::uint32_t w : spirv) {
    for (int i = 0; i < 4; ++i) {
      h ^= (w >> (8 * i)) & 0xFFu;
      h *= 0x100000001b3ull;
    }
  }
  return h;
}

namespace {

std::uint64_t layout_hash(const PipelineLayoutDesc& d) {
  std::uint64_t h = d.push_constant_words * 0x9E3779B97F4A7C15ull;
  for (std::uint32_t b : d.storage_bindings) h = (h ^ b) * 0x100000001b3ull;
  return h;
}

}  // namespace

PipelineCache::~PipelineCache() {
  for (auto& [key, p] : entries_) destroy(*p);
}

void PipelineCache::destroy(ComputePipeline& p) {
  const VkDevice device = ctx_.device();
  if (p.pipeline != VK_NULL_HANDLE) vkDestroyPipeline(device, p.pipeline, nullptr);
  if (p.layout != VK_NULL_HANDLE) vkDestroyPipelineLayout(device, p.layout, nullptr);
  if (p.set_layout != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(device, p.set_layout, nullptr);
  p.pipeline = VK_NULL_HANDLE;
  p.layout = VK_NULL_HANDLE;
  p.set_layout = VK_NULL_HANDLE;
}

ir::Result<const ComputePipeline*> PipelineCache::get(std::span<const std::uint32_t> spirv, const PipelineLayoutDesc& layout) {
  GC_ASSERT(std::is_sorted(layout.storage_bindings.begin(), layout.storage_bindings.end()));
  const std::uint64_t key = spirv_hash(spirv) ^ layout_hash(layout);
  const auto [first, last] = entries_.equal_range(key);
  for (auto it = first; it != last; ++it) {
    const ComputePipeline& p = *it->second;
    if (p.layout_desc == layout && std::equal(p.spirv.begin(), p.spirv.end(), spirv.begin(), spirv.end())) {
      ++hits_;
      return &p;
    }
  }
  ++misses_;

  const VkDevice device = ctx_.device();
  auto p = std::make_unique<ComputePipeline>();
  p->layout_desc = layout;
  p->spirv.assign(spirv.begin(), spirv.end());
  struct Cleanup {
    PipelineCache* cache;
    ComputePipeline* p;
    ~Cleanup() {
      if (p != nullptr) cache->destroy(*p);
    }
  } cleanup{this, p.get()};

  std::vector<VkDescriptorSetLayoutBinding> bindings;
  for (std::uint32_t b : layout.storage_bindings) {
    VkDescriptorSetLayoutBinding lb{};
    lb.binding = b;
    lb.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    lb.descriptorCount = 1;
    lb.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    bindings.push_back(lb);
  }
  VkDescriptorSetLayoutCreateInfo dsl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dsl.bindingCount = static_cast<std::uint32_t>(bindings.size());
  dsl.pBindings = bindings.data();
  VkResult r = vkCreateDescriptorSetLayout(device, &dsl, nullptr, &p->set_layout);
  if (r != VK_SUCCESS) return vk_error(r, "vkCreateDescriptorSetLayout");

  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, layout.push_constant_words * 4};
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &p->set_layout;
  pl.pushConstantRangeCount = layout.push_constant_words > 0 ? 1 : 0;
  pl.pPushConstantRanges = &push;
  r = vkCreatePipelineLayout(device, &pl, nullptr, &p->layout);
  if (r != VK_SUCCESS) return vk_error(r, "vkCreatePipelineLayout");

  VkShaderModuleCreateInfo sm{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  sm.codeSize = spirv.size() * sizeof(std::uint32_t);
  sm.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  r = vkCreateShaderModule(device, &sm, nullptr, &module);
  if (r != VK_SUCCESS) return vk_error(r, "vkCreateShaderModule");

  VkComputePipelineCreateInfo cp{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cp.stage = VkPipelineShaderStageCreateInfo{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cp.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cp.stage.module = module;
  cp.stage.pName = "main";
  cp.layout = p->layout;
  r = vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &cp, nullptr, &p->pipeline);
  vkDestroyShaderModule(device, module, nullptr);
  if (r != VK_SUCCESS) return vk_error(r, "vkCreateComputePipelines");

  cleanup.p = nullptr;
  const ComputePipeline* out = p.get();
  entries_.emplace(key, std::move(p));
  return out;
}

}  // namespace gridcheck::gpu
