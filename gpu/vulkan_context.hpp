#pragma once
// The Vulkan runtime's root: instance, the chosen physical device, a logical device with one compute
// queue, the optional validation messenger, and the device facts the rest of gpu/ asks about.
//
// Contract: a VulkanContext may be shared by threads: its pipeline cache and buffer pool are
// thread-safe, and every submission to its one queue goes through submitter() (queue_submitter.hpp:
// submissions that arrive while the queue is in use go on it together, in one vkQueueSubmit; each
// thread waits for its own work only). Everything a thread records
// (command pools, descriptor pools, fences: a CommandBatch) is that thread's own. Every failure is a
// K### diagnostic (gpu_diagnostics.hpp); nothing throws and nothing aborts on driver errors.

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <vulkan/vulkan.h>

#include "gpu/literal_policy.hpp"
#include "ir/diagnostic.hpp"

namespace gridcheck::gpu {

class PipelineCache;
class BufferPool;
class QueueSubmitter;

/// What gridcheck needs to know about one physical device (also what `gridcheck devices` prints).
struct DeviceInfo {
  std::uint32_t index = 0;  ///< position in vkEnumeratePhysicalDevices order
  std::string name;
  VkPhysicalDeviceType type = VK_PHYSICAL_DEVICE_TYPE_OTHER;
  std::uint32_t api_version = 0;
  std::uint32_t driver_version = 0;
  std::uint32_t vendor_id = 0;
  std::uint32_t device_id = 0;
  VkDriverId driver_id = static_cast<VkDriverId>(0);  ///< VkPhysicalDeviceDriverProperties (0 before Vulkan 1.2)
  bool has_compute_queue = false;
  std::uint32_t compute_queue_family = 0;
  std::uint32_t subgroup_size = 0;
  // limits that matter for lowering and launching
  std::array<std::uint32_t, 3> max_workgroup_count{};
  std::array<std::uint32_t, 3> max_workgroup_size{};
  std::uint32_t max_workgroup_invocations = 0;
  std::uint32_t max_shared_memory_bytes = 0;
  std::uint32_t max_storage_buffer_range = 0;
  std::uint32_t max_storage_buffers_per_stage = 0;
  std::uint32_t max_push_constants_bytes = 0;
  std::uint64_t max_memory_allocation_bytes = 0;
  // features the lowering may use
  bool shader_float64 = false;
  bool shader_int64 = false;
  bool buffer_int64_atomics = false;
  bool signed_zero_inf_nan_preserve_f32 = false;
  bool signed_zero_inf_nan_preserve_f64 = false;
  bool denorm_preserve_f32 = false;
  /// Vulkan 1.2 timelineSemaphore: submissions of several threads are grouped (QueueSubmitter).
  bool timeline_semaphores = false;
};

std::string_view name_of(VkPhysicalDeviceType type);  ///< "discrete", "integrated", "virtual", "cpu", "other"
std::string format_version(std::uint32_t vk_version);  ///< "1.3.230"

/// True for a driver that compiles a pipeline's shader when it first runs, on the one thread that executes its
/// queue's work (Mesa's lavapipe: LLVM at the first dispatch), so that the compiles of every thread feeding one
/// VkDevice run one at a time; a second VkDevice has a thread of its own (props/oracle/gpu_backend.hpp).
bool compiles_on_queue_thread(const DeviceInfo& device);

/// Picks a device. `selector` empty: the first discrete GPU with a compute queue, else the first device
/// with a compute queue. All digits: that index. Otherwise a case-insensitive name: an exact match wins,
/// else a unique substring match. Errors: K002 (no compute device), K003 (no match), K004 (ambiguous).
ir::Result<std::size_t> select_device(const std::vector<DeviceInfo>& devices, std::string_view selector);

/// Every physical device, in enumeration order (creates and destroys a temporary instance). K001 when
/// there is no Vulkan loader, driver or instance.
ir::Result<std::vector<DeviceInfo>> list_devices();

/// Messages of the validation layers (severity warning and error only), recorded by the messenger.
class ValidationLog {
 public:
  std::size_t count() const;
  std::vector<std::string> messages() const;
  void clear();
  void record(std::string message);

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> messages_;
};

struct ContextOptions {
  std::string device;       ///< selector for select_device ("" = default choice)
  bool validation = false;  ///< VK_LAYER_KHRONOS_validation + synchronization validation + messenger (K005 if absent)
  /// Where the VkPipelineCache file lives (compute_pipeline.hpp); nullopt: no file (an in-memory cache
  /// only). The CLI passes default_pipeline_cache_dir() unless told otherwise.
  std::optional<std::filesystem::path> pipeline_cache_dir;
  /// The cap on that file in bytes; 0: PipelineCache::kDefaultMaxFileBytes.
  std::uint64_t pipeline_cache_max_bytes = 0;
  /// The shaders' LoweringOptions::literals (`--gpu-literals`).
  LiteralPolicy literals = LiteralPolicy::HiddenValues;
};

class VulkanContext {
 public:
  static ir::Result<std::unique_ptr<VulkanContext>> create(const ContextOptions& options = {});
  ~VulkanContext();
  VulkanContext(const VulkanContext&) = delete;
  VulkanContext& operator=(const VulkanContext&) = delete;

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical_device() const { return physical_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  std::uint32_t queue_family() const { return info_.compute_queue_family; }
  /// A command pool of the context's own, for one-off single-threaded use (tests, benchmarks): a
  /// command pool needs external synchronisation, so code that may run on several threads records
  /// through a CommandBatch (a pool per batch) instead.
  VkCommandPool command_pool() const { return command_pool_; }
  const DeviceInfo& info() const { return info_; }
  bool validation_enabled() const { return messenger_ != VK_NULL_HANDLE; }
  /// Which program literals the shaders of this context hide (ContextOptions::literals).
  LiteralPolicy literal_policy() const { return literals_; }
  /// Validation messages so far (always empty without validation).
  ValidationLog& validation_log() { return *log_; }
  /// Compiled pipelines of this device, keyed by SPIR-V hash.
  PipelineCache& pipelines() { return *pipelines_; }
  /// Released device buffers for reuse by size class (thread-safe).
  BufferPool& buffers() { return *buffers_; }
  /// The only way onto the context's queue (it needs external synchronisation).
  QueueSubmitter& submitter() { return *submitter_; }
  /// Submissions waited for, and their total time from submit to the fence (CommandBatch reports them).
  void note_submission(std::uint64_t wall_ns) {
    ++submissions_;
    submit_wait_ns_ += wall_ns;
  }
  std::uint64_t submissions() const { return submissions_.load(); }
  std::uint64_t submit_wait_ns() const { return submit_wait_ns_.load(); }

  /// A HOST_VISIBLE | HOST_COHERENT memory type among `type_bits`, preferring DEVICE_LOCAL; K013 if none.
  ir::Result<std::uint32_t> host_coherent_memory_type(std::uint32_t type_bits) const;
  /// A HOST_VISIBLE | HOST_COHERENT | HOST_CACHED memory type among `type_bits` (host reads run at memory
  /// speed), preferring one that is not DEVICE_LOCAL; nullopt if none.
  std::optional<std::uint32_t> host_cached_memory_type(std::uint32_t type_bits) const;
  /// True when memory type `type` is HOST_CACHED.
  bool is_host_cached(std::uint32_t type) const;

 private:
  VulkanContext() = default;

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_{};
  DeviceInfo info_;
  LiteralPolicy literals_ = LiteralPolicy::HiddenValues;
  std::unique_ptr<ValidationLog> log_ = std::make_unique<ValidationLog>();
  std::unique_ptr<PipelineCache> pipelines_;
  std::unique_ptr<BufferPool> buffers_;
  std::unique_ptr<QueueSubmitter> submitter_;
  std::atomic<std::uint64_t> submissions_{0};
  std::atomic<std::uint64_t> submit_wait_ns_{0};
};

}  // namespace gridcheck::gpu
