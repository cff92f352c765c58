#include "gpu/compute_pipeline.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>

#include <fmt/format.h>

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

std::uint64_t bytes_hash(const std::uint8_t* data, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < n; ++i) h = (h ^ data[i]) * 0x100000001b3ull;
  return h;
}

constexpr char kMagic[8] = {'G', 'C', 'P', 'I', 'P', 'E', '0', '1'};

/// The file header; every field little-endian as the host writes it (the file never leaves the host).
struct FileHeader {
  char magic[8];
  std::uint32_t vendor_id;
  std::uint32_t device_id;
  std::uint32_t driver_version;
  std::uint8_t uuid[VK_UUID_SIZE];
  std::uint32_t reserved;
  std::uint64_t data_bytes;
  std::uint64_t data_hash;
};
static_assert(sizeof(FileHeader) == 8 + 12 + VK_UUID_SIZE + 4 + 16);

/// The file is written and left as it is once it would pass 15/16 of the cap: the rest is room for
/// the pipelines in flight on other threads.
bool near_cap(std::uint64_t data_bytes, std::uint64_t max_file_bytes) {
  return sizeof(FileHeader) + data_bytes >= max_file_bytes / 16 * 15;
}

FileHeader header_for(const VkPhysicalDeviceProperties& p) {
  FileHeader h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.vendor_id = p.vendorID;
  h.device_id = p.deviceID;
  h.driver_version = p.driverVersion;
  std::memcpy(h.uuid, p.pipelineCacheUUID, VK_UUID_SIZE);
  return h;
}

}  // namespace

std::optional<std::filesystem::path> default_pipeline_cache_dir() {
  if (const char* env = std::getenv("GRIDCHECK_PIPELINE_CACHE"); env != nullptr) {
    const std::string v = env;
    if (v.empty() || v == "off") return std::nullopt;
    return std::filesystem::path(v);
  }
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') return std::filesystem::path(xdg) / "gridcheck";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') return std::filesystem::path(home) / ".cache" / "gridcheck";
  return std::nullopt;
}

struct PipelineCache::Slot {
  std::mutex creating;  ///< held by the creator until `pipeline` or `error` is set
  PipelineLayoutDesc layout;
  std::vector<std::uint32_t> spirv;
  std::unique_ptr<ComputePipeline> pipeline;
  std::optional<ir::Diagnostics> error;
};

PipelineCache::PipelineCache(VulkanContext& ctx, std::optional<std::filesystem::path> cache_dir,
                             std::uint64_t max_file_bytes)
    : ctx_(ctx), max_file_bytes_(max_file_bytes) {
  if (cache_dir) {
    const DeviceInfo& d = ctx.info();
    file_ = *cache_dir / fmt::format("pipelines-{:04x}-{:04x}.bin", d.vendor_id, d.device_id);
  }
  load();
}

void PipelineCache::load() {
  std::vector<std::uint8_t> data;
  if (file_) {
    std::ifstream in(*file_, std::ios::binary);
    if (in) {
      std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      load_result_ = PipelineCacheLoad::Ignored;
      VkPhysicalDeviceProperties props{};
      vkGetPhysicalDeviceProperties(ctx_.physical_device(), &props);
      const FileHeader want = header_for(props);
      FileHeader got{};
      if (bytes.size() >= sizeof got) {
        std::memcpy(&got, bytes.data(), sizeof got);
        const auto* body = reinterpret_cast<const std::uint8_t*>(bytes.data()) + sizeof got;
        const std::size_t body_bytes = bytes.size() - sizeof got;
        if (std::memcmp(got.magic, want.magic, sizeof kMagic) == 0 && got.vendor_id == want.vendor_id &&
            got.device_id == want.device_id && got.driver_version == want.driver_version &&
            std::memcmp(got.uuid, want.uuid, VK_UUID_SIZE) == 0 && got.data_bytes == body_bytes &&
            got.data_hash == bytes_hash(body, body_bytes)) {
          data.assign(body, body + body_bytes);
          load_result_ = PipelineCacheLoad::Loaded;
        }
      }
    }
  }
  VkPipelineCacheCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  ci.initialDataSize = data.size();
  ci.pInitialData = data.empty() ? nullptr : data.data();
  VkResult r = vkCreatePipelineCache(ctx_.device(), &ci, nullptr, &vk_cache_);
  if (r != VK_SUCCESS && !data.empty()) {  // the driver refused the data: start empty
    load_result_ = PipelineCacheLoad::Ignored;
    ci.initialDataSize = 0;
    ci.pInitialData = nullptr;
    r = vkCreatePipelineCache(ctx_.device(), &ci, nullptr, &vk_cache_);
  }
  if (r != VK_SUCCESS) {
    vk_cache_ = VK_NULL_HANDLE;  // pipelines are then created without a cache
    return;
  }
  std::size_t n = 0;
  if (file_ && vkGetPipelineCacheData(ctx_.device(), vk_cache_, &n, nullptr) == VK_SUCCESS) {
    loaded_bytes_ = n;
    if (near_cap(n, max_file_bytes_)) {
      full_.store(true);  // the file stays as it is ...
      if (sizeof(FileHeader) + n > max_file_bytes_) freeze_error_ = write_file();  // ... unless over this cap: cut
    }
  }
}

void PipelineCache::note_created() {
  if (full_.load()) {
    ++not_kept_;
    return;
  }
  ++unsaved_;
  if (!file_) return;
  std::lock_guard lock(measure_mutex_);
  if (++kept_ < next_measure_ || full_.load()) return;
  std::size_t n = 0;
  if (vkGetPipelineCacheData(ctx_.device(), vk_cache_, &n, nullptr) != VK_SUCCESS) return;  // save() reports it
  if (near_cap(n, max_file_bytes_)) {
    full_.store(true);  // before the write: other threads no longer wait here
    freeze_error_ = write_file();
    return;
  }
  // Measure again when, at this run's bytes per pipeline so far, half the room left is used: a few
  // measurements per run, and the last one close to the cap.
  const std::uint64_t grown = n > loaded_bytes_ ? n - loaded_bytes_ : 0;
  const std::uint64_t room = max_file_bytes_ / 16 * 15 - (sizeof(FileHeader) + n);
  const std::uint64_t step = grown == 0 ? 256 : room / std::max<std::uint64_t>(1, grown / kept_) / 2;
  next_measure_ = kept_ + std::clamp<std::uint64_t>(step, 1, 4096);
}

std::optional<std::string> PipelineCache::save() {
  std::lock_guard lock(measure_mutex_);
  if (freeze_error_) return std::exchange(freeze_error_, std::nullopt);
  if (!file_ || vk_cache_ == VK_NULL_HANDLE || full_.load() || unsaved_.load() == 0) return std::nullopt;
  return write_file();
}

std::optional<std::string> PipelineCache::write_file() {
  unsaved_.store(0);
  std::size_t n = 0;
  VkResult r = vkGetPipelineCacheData(ctx_.device(), vk_cache_, &n, nullptr);
  const std::size_t room = static_cast<std::size_t>(max_file_bytes_ - std::min<std::uint64_t>(max_file_bytes_, sizeof(FileHeader)));
  const bool cut = r == VK_SUCCESS && n > room;
  n = std::min(n, room);
  std::vector<std::uint8_t> data(n);
  // Over the cap the driver returns the entries that fit in `room` and VK_INCOMPLETE; what it writes is
  // valid cache data (the Vulkan specification, vkGetPipelineCacheData).
  if (r == VK_SUCCESS && n > 0) r = vkGetPipelineCacheData(ctx_.device(), vk_cache_, &n, data.data());
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) {
    last_save_ = PipelineCacheSave::Failed;
    return fmt::format("vkGetPipelineCacheData failed ({})", vk_result_name(r));
  }
  data.resize(n);
  last_save_ = cut ? PipelineCacheSave::Cut : PipelineCacheSave::Written;  // (VK_INCOMPLETE alone: pipelines added since the size query)
  std::error_code ec;
  if (data.empty()) {  // nothing fits: no file
    std::filesystem::remove(*file_, ec);
    return std::nullopt;
  }
  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(ctx_.physical_device(), &props);
  FileHeader h = header_for(props);
  h.data_bytes = data.size();
  h.data_hash = bytes_hash(data.data(), data.size());
  std::filesystem::create_directories(file_->parent_path(), ec);
  const std::filesystem::path tmp =
      file_->string() + fmt::format(".tmp-{:016x}", std::random_device{}() ^ (std::uint64_t{std::random_device{}()} << 32));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(&h), sizeof h);
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size()));
    if (!out) {
      std::filesystem::remove(tmp, ec);
      last_save_ = PipelineCacheSave::Failed;
      return fmt::format("cannot write {}", tmp.string());
    }
  }
  std::filesystem::rename(tmp, *file_, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    last_save_ = PipelineCacheSave::Failed;
    return fmt::format("cannot replace {}", file_->string());
  }
  return std::nullopt;
}

PipelineCache::~PipelineCache() {
  save();  // best effort: a cache that cannot be written is only slower next time
  for (auto& [key, slot] : entries_)
    if (slot->pipeline) destroy(*slot->pipeline);
  if (vk_cache_ != VK_NULL_HANDLE) vkDestroyPipelineCache(ctx_.device(), vk_cache_, nullptr);
}

std::size_t PipelineCache::size() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

void PipelineCache::clear() {
  std::lock_guard lock(mutex_);
  for (auto& [key, slot] : entries_)
    if (slot->pipeline) destroy(*slot->pipeline);
  entries_.clear();
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
  std::shared_ptr<Slot> slot;
  std::unique_lock<std::mutex> creating_lock;
  {
    std::lock_guard lock(mutex_);
    const auto [first, last] = entries_.equal_range(key);
    for (auto it = first; it != last && !slot; ++it)
      if (it->second->layout == layout && std::equal(it->second->spirv.begin(), it->second->spirv.end(), spirv.begin(), spirv.end()))
        slot = it->second;
    if (!slot) {
      slot = std::make_shared<Slot>();
      slot->layout = layout;
      slot->spirv.assign(spirv.begin(), spirv.end());
      creating_lock = std::unique_lock(slot->creating);  // before anyone else can find the slot
      entries_.emplace(key, slot);
    }
  }
  if (!creating_lock.owns_lock()) {
    std::lock_guard wait(slot->creating);  // the creator holds it until the pipeline (or its error) is there
    if (slot->error) return *slot->error;
    ++hits_;
    return slot->pipeline.get();
  }
  ++misses_;
  const auto start = std::chrono::steady_clock::now();
  struct Timer {
    std::atomic<std::uint64_t>& total;
    std::chrono::steady_clock::time_point start;
    ~Timer() {
      total += static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count());
    }
  } timer{create_ns_, start};

  const VkDevice device = ctx_.device();
  static std::atomic<std::uint64_t> next_serial{1};
  auto p = std::make_unique<ComputePipeline>();
  p->serial = next_serial.fetch_add(1, std::memory_order_relaxed);
  p->layout_desc = layout;
  p->spirv.assign(spirv.begin(), spirv.end());
  auto failed = [&](ir::Diagnostic d) -> ir::Result<const ComputePipeline*> {
    destroy(*p);
    slot->error = ir::Diagnostics{};
    slot->error->add(d);
    std::lock_guard lock(mutex_);  // forget the failure: a later call tries again
    const auto [first, last] = entries_.equal_range(key);
    for (auto it = first; it != last; ++it)
      if (it->second == slot) {
        entries_.erase(it);
        break;
      }
    return d;
  };

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
  if (r != VK_SUCCESS) return failed(vk_error(r, "vkCreateDescriptorSetLayout"));

  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, layout.push_constant_words * 4};
  VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pl.setLayoutCount = 1;
  pl.pSetLayouts = &p->set_layout;
  pl.pushConstantRangeCount = layout.push_constant_words > 0 ? 1 : 0;
  pl.pPushConstantRanges = &push;
  r = vkCreatePipelineLayout(device, &pl, nullptr, &p->layout);
  if (r != VK_SUCCESS) return failed(vk_error(r, "vkCreatePipelineLayout"));

  VkShaderModuleCreateInfo sm{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  sm.codeSize = spirv.size() * sizeof(std::uint32_t);
  sm.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  r = vkCreateShaderModule(device, &sm, nullptr, &module);
  if (r != VK_SUCCESS) return failed(vk_error(r, "vkCreateShaderModule"));

  VkComputePipelineCreateInfo cp{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cp.stage = VkPipelineShaderStageCreateInfo{VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cp.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cp.stage.module = module;
  cp.stage.pName = "main";
  cp.layout = p->layout;
  r = vkCreateComputePipelines(device, vk_cache_, 1, &cp, nullptr, &p->pipeline);
  vkDestroyShaderModule(device, module, nullptr);
  if (r != VK_SUCCESS) return failed(vk_error(r, "vkCreateComputePipelines"));

  if (vk_cache_ != VK_NULL_HANDLE) note_created();
  slot->pipeline = std::move(p);
  return slot->pipeline.get();
}

}  // namespace gridcheck::gpu
