#pragma once
// Compute pipelines and their cache. A pipeline is one SPIR-V module with entry point `main`, a single
// descriptor set (set 0) of storage buffers at the given bindings, and an optional push-constant block
// of 32-bit words. The cache is keyed by a hash of the SPIR-V words plus that layout; a hit is confirmed
// by comparing the words, so a hash collision can never return the wrong pipeline.
//
// Thread-safe: get() may be called from any number of threads; pipelines are created outside the
// cache's lock, and a second caller asking for a pipeline being created waits for it instead of
// creating it again. Every pipeline is created through one VkPipelineCache (internally synchronised by
// the driver), which may be loaded from and saved to a file (docs/gpu.md "Pipeline cache file"):
//   <dir>/pipelines-<vendorID>-<deviceID>.bin = a gridcheck header (magic, vendor, device, driver version,
//   pipelineCacheUUID, data size, FNV-1a-64 of the data) + vkGetPipelineCacheData's bytes.
// A file that is missing, short, corrupt (size or hash), or made by another device or driver is ignored
// (the cache starts empty; the driver also validates its own header in the data); saving writes a new file
// and renames it over the old one, so concurrent processes never see half a file. The file is capped
// (kDefaultMaxFileBytes, 256 MiB) and keeps the pipelines met first: once the cache's data nears the
// cap, the file is written then and left as it is for the rest of the run (later pipelines still go
// through the VkPipelineCache, so those of the file are still found). A file loaded near the cap is
// likewise left as it is; one over the cap (made under a larger cap) is cut to it at once. Cutting uses
// vkGetPipelineCacheData with a buffer the size of the cap: the driver returns the entries that fit.

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
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
  /// Never the same for two pipelines of the process (CommandBatch compares recordings by it).
  std::uint64_t serial = 0;
};

/// FNV-1a-64 over the words (little-endian bytes).
std::uint64_t spirv_hash(std::span<const std::uint32_t> spirv);

/// What loading the pipeline cache file found.
enum class PipelineCacheLoad : std::uint8_t {
  NoFile,      ///< no file configured, or none there yet
  Loaded,      ///< its data seeded the VkPipelineCache
  Ignored,     ///< unreadable, corrupt, or another device's or driver's: the cache started empty
};

/// The pipeline cache directory by default: $GRIDCHECK_PIPELINE_CACHE if set ("off" or empty: none), else
/// $XDG_CACHE_HOME/gridcheck, else $HOME/.cache/gridcheck, else none.
std::optional<std::filesystem::path> default_pipeline_cache_dir();

/// What the last save() did.
enum class PipelineCacheSave : std::uint8_t {
  NotYet,   ///< no save yet, or nothing new to save (or no file configured)
  Written,  ///< the file was replaced
  Cut,      ///< the data was over the cap: the file holds the entries that fit (none: no file)
  Failed,   ///< the driver or the file system failed (save() returned the reason)
};

class PipelineCache {
 public:
  /// The largest file save() writes (header + driver data).
  static constexpr std::uint64_t kDefaultMaxFileBytes = 256ull << 20;

  /// `cache_dir`: load the device's file from there now and save it back on save() / destruction;
  /// `max_file_bytes`: the cap on that file.
  explicit PipelineCache(VulkanContext& ctx, std::optional<std::filesystem::path> cache_dir = std::nullopt,
                         std::uint64_t max_file_bytes = kDefaultMaxFileBytes);
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  /// The pipeline for `spirv` with `layout`, created on first use. K012/K010 on driver failure (and
  /// K022/K023 should the driver refuse the module for its limits). The pointer lives as long as the cache.
  ir::Result<const ComputePipeline*> get(std::span<const std::uint32_t> spirv, const PipelineLayoutDesc& layout);

  std::size_t size() const;
  /// Destroys every pipeline (the VkPipelineCache keeps what it learnt): only while no other thread calls
  /// get() and no command buffer that uses one of them will be submitted again.
  void clear();
  std::uint64_t hits() const { return hits_.load(); }
  std::uint64_t misses() const { return misses_.load(); }
  std::uint64_t create_ns() const { return create_ns_.load(); }  ///< total time in pipeline creation
  /// Pipelines created after the file was left as it is (its data neared the cap): not in the file.
  std::uint64_t not_kept() const { return not_kept_.load(); }

  /// The file this cache loads and saves (nullopt: none).
  const std::optional<std::filesystem::path>& file() const { return file_; }
  PipelineCacheLoad load_result() const { return load_result_; }
  /// Writes the file when pipelines were created since the load and it was not left as it is at the cap;
  /// an error text on failure (also of a write made when the cap was reached).
  std::optional<std::string> save();
  PipelineCacheSave last_save() const { return last_save_; }
  std::uint64_t max_file_bytes() const { return max_file_bytes_; }

 private:
  struct Slot;
  void destroy(ComputePipeline& p);
  void load();
  /// After a pipeline was created through vk_cache_: measures its data when due; near the cap, writes
  /// the file and leaves it as it is.
  void note_created();
  /// Writes vk_cache_'s data (at most the cap's worth) to the file; an error text on failure.
  std::optional<std::string> write_file();

  VulkanContext& ctx_;
  std::optional<std::filesystem::path> file_;
  PipelineCacheLoad load_result_ = PipelineCacheLoad::NoFile;
  PipelineCacheSave last_save_ = PipelineCacheSave::NotYet;
  std::uint64_t max_file_bytes_ = kDefaultMaxFileBytes;
  VkPipelineCache vk_cache_ = VK_NULL_HANDLE;
  mutable std::mutex mutex_;
  std::unordered_multimap<std::uint64_t, std::shared_ptr<Slot>> entries_;
  std::atomic<std::uint64_t> hits_{0};
  std::atomic<std::uint64_t> misses_{0};
  std::atomic<std::uint64_t> unsaved_{0};
  std::atomic<std::uint64_t> create_ns_{0};
  std::atomic<std::uint64_t> not_kept_{0};
  std::atomic<bool> full_{false};  ///< the file was written near the cap (or loaded so): left as it is
  std::mutex measure_mutex_;       ///< one thread measures vk_cache_'s data at a time
  std::uint64_t kept_ = 0;         ///< pipelines created through vk_cache_ (under measure_mutex_)
  std::uint64_t next_measure_ = 1; ///< measure when kept_ reaches this (under measure_mutex_)
  std::uint64_t loaded_bytes_ = 0; ///< vk_cache_'s data size when loaded
  std::optional<std::string> freeze_error_;  ///< a failed write at the cap, for save() to report (under measure_mutex_)
};

}  // namespace gridcheck::gpu
