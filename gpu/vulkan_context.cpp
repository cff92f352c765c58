#include "gpu/vulkan_context.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

#include <fmt/format.h>

#include "gpu/buffer_pool.hpp"
#include "gpu/compute_pipeline.hpp"
#include "gpu/gpu_diagnostics.hpp"
#include "gpu/queue_submitter.hpp"

namespace gridcheck::gpu {
namespace {

constexpr const char* kValidationLayer = "VK_LAYER_KHRONOS_validation";

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT /*types*/,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data,
                                                     void* user) {
  auto* log = static_cast<ValidationLog*>(user);
  const char* level = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) ? "error" : "warning";
  log->record(fmt::format("{} [{}]: {}", level, data->pMessageIdName ? data->pMessageIdName : "",
                          data->pMessage ? data->pMessage : ""));
  return VK_FALSE;
}

VkDebugUtilsMessengerCreateInfoEXT messenger_info(ValidationLog* log) {
  VkDebugUtilsMessengerCreateInfoEXT ci{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
  ci.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
  ci.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                   VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
  ci.pfnUserCallback = on_validation_message;
  ci.pUserData = log;
  return ci;
}

bool has_layer(const char* name) {
  std::uint32_t n = 0;
  if (vkEnumerateInstanceLayerProperties(&n, nullptr) != VK_SUCCESS) return false;
  std::vector<VkLayerProperties> layers(n);
  if (vkEnumerateInstanceLayerProperties(&n, layers.data()) != VK_SUCCESS) return false;
  return std::any_of(layers.begin(), layers.end(), [&](const VkLayerProperties& l) { return std::strcmp(l.layerName, name) == 0; });
}

/// Creates the instance; with `log`, enables validation + synchronization validation and chains the messenger.
ir::Result<VkInstance> create_instance(ValidationLog* log) {
  VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
  app.pApplicationName = "gridcheck";
  app.applicationVersion = VK_MAKE_API_VERSION(0, 0, 1, 0);
  app.pEngineName = "gridcheck";
  app.apiVersion = VK_API_VERSION_1_2;

  VkInstanceCreateInfo ci{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
  ci.pApplicationInfo = &app;

  std::vector<const char*> layers;
  std::vector<const char*> extensions;
  VkDebugUtilsMessengerCreateInfoEXT messenger = messenger_info(log);
  const VkValidationFeatureEnableEXT enables[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
  VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
  if (log != nullptr) {
    if (!has_layer(kValidationLayer))
      return make_error(Code::NoValidationLayer,
                        "validation was requested but VK_LAYER_KHRONOS_validation is not installed");
    layers.push_back(kValidationLayer);
    extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = enables;
    messenger.pNext = &features;
    ci.pNext = &messenger;
  }
  ci.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
  ci.ppEnabledLayerNames = layers.data();
  ci.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
  ci.ppEnabledExtensionNames = extensions.data();

  VkInstance instance = VK_NULL_HANDLE;
  const VkResult r = vkCreateInstance(&ci, nullptr, &instance);
  if (r != VK_SUCCESS)
    return make_error(Code::NoVulkan, fmt::format("cannot create a Vulkan 1.2 instance ({}); is a Vulkan driver installed",
                                                  vk_result_name(r)));
  return instance;
}

DeviceInfo describe(VkPhysicalDevice pd, std::uint32_t index) {
  DeviceInfo d;
  d.index = index;
  VkPhysicalDeviceProperties base{};
  vkGetPhysicalDeviceProperties(pd, &base);
  d.api_version = base.apiVersion;
  const bool v12 = base.apiVersion >= VK_API_VERSION_1_2;

  VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
  VkPhysicalDeviceMaintenance3Properties maint3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
  VkPhysicalDeviceFloatControlsProperties floats{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
  VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
  VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
  props.pNext = &subgroup;
  subgroup.pNext = &maint3;
  if (v12) {
    maint3.pNext = &floats;
    floats.pNext = &driver;
  }
  vkGetPhysicalDeviceProperties2(pd, &props);

  const VkPhysicalDeviceProperties& p = props.properties;
  d.name = p.deviceName;
  d.type = p.deviceType;
  d.driver_version = p.driverVersion;
  d.vendor_id = p.vendorID;
  d.device_id = p.deviceID;
  if (v12) d.driver_id = driver.driverID;
  d.subgroup_size = subgroup.subgroupSize;
  for (int i = 0; i < 3; ++i) {
    d.max_workgroup_count[i] = p.limits.maxComputeWorkGroupCount[i];
    d.max_workgroup_size[i] = p.limits.maxComputeWorkGroupSize[i];
  }
  d.max_workgroup_invocations = p.limits.maxComputeWorkGroupInvocations;
  d.max_shared_memory_bytes = p.limits.maxComputeSharedMemorySize;
  d.max_storage_buffer_range = p.limits.maxStorageBufferRange;
  d.max_storage_buffers_per_stage = p.limits.maxPerStageDescriptorStorageBuffers;
  d.max_push_constants_bytes = p.limits.maxPushConstantsSize;
  d.max_memory_allocation_bytes = maint3.maxMemoryAllocationSize;
  if (v12) {
    d.signed_zero_inf_nan_preserve_f32 = floats.shaderSignedZeroInfNanPreserveFloat32;
    d.signed_zero_inf_nan_preserve_f64 = floats.shaderSignedZeroInfNanPreserveFloat64;
    d.denorm_preserve_f32 = floats.shaderDenormPreserveFloat32;
  }

  VkPhysicalDeviceShaderAtomicInt64Features atomics{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_ATOMIC_INT64_FEATURES};
  VkPhysicalDeviceTimelineSemaphoreFeatures timeline{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_TIMELINE_SEMAPHORE_FEATURES};
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  if (v12) {
    features.pNext = &atomics;
    atomics.pNext = &timeline;
  }
  vkGetPhysicalDeviceFeatures2(pd, &features);
  d.timeline_semaphores = v12 && timeline.timelineSemaphore;
  d.shader_float64 = features.features.shaderFloat64;
  d.shader_int64 = features.features.shaderInt64;
  d.buffer_int64_atomics = v12 && atomics.shaderBufferInt64Atomics && d.shader_int64;

  std::uint32_t nq = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, nullptr);
  std::vector<VkQueueFamilyProperties> queues(nq);
  vkGetPhysicalDeviceQueueFamilyProperties(pd, &nq, queues.data());
  for (std::uint32_t q = 0; q < nq; ++q) {
    if (queues[q].queueFlags & VK_QUEUE_COMPUTE_BIT) {
      d.has_compute_queue = true;
      d.compute_queue_family = q;
      break;
    }
  }
  return d;
}

ir::Result<std::vector<VkPhysicalDevice>> physical_devices(VkInstance instance) {
  std::uint32_t n = 0;
  VkResult r = vkEnumeratePhysicalDevices(instance, &n, nullptr);
  std::vector<VkPhysicalDevice> pds(n);
  if (r == VK_SUCCESS && n > 0) r = vkEnumeratePhysicalDevices(instance, &n, pds.data());
  if (r != VK_SUCCESS && r != VK_INCOMPLETE) return vk_error(r, "vkEnumeratePhysicalDevices");
  pds.resize(n);
  return pds;
}

}  // namespace

std::string_view name_of(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return "discrete";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU: return "integrated";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return "virtual";
    case VK_PHYSICAL_DEVICE_TYPE_CPU: return "cpu";
    default: return "other";
  }
}

bool compiles_on_queue_thread(const DeviceInfo& device) { return device.driver_id == VK_DRIVER_ID_MESA_LLVMPIPE; }

std::string format_version(std::uint32_t v) {
  return fmt::format("{}.{}.{}", VK_API_VERSION_MAJOR(v), VK_API_VERSION_MINOR(v), VK_API_VERSION_PATCH(v));
}

ir::Result<std::size_t> select_device(const std::vector<DeviceInfo>& devices, std::string_view selector) {
  if (selector.empty()) {
    for (std::size_t i = 0; i < devices.size(); ++i)
      if (devices[i].has_compute_queue && devices[i].type == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) return i;
    for (std::size_t i = 0; i < devices.size(); ++i)
      if (devices[i].has_compute_queue) return i;
    return make_error(Code::NoComputeDevice, fmt::format("none of the {} Vulkan devices has a compute queue", devices.size()));
  }
  auto usable = [&](std::size_t i) -> ir::Result<std::size_t> {
    if (!devices[i].has_compute_queue)
      return make_error(Code::NoComputeDevice, fmt::format("device {} ({}) has no compute queue", i, devices[i].name));
    return i;
  };
  if (std::all_of(selector.begin(), selector.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
    const unsigned long index = selector.size() <= 9 ? std::stoul(std::string(selector)) : ~0ul;
    if (index >= devices.size())
      return make_error(Code::DeviceNotFound, fmt::format("there is no Vulkan device with index {} ({} devices; see `gridcheck devices`)",
                                                          selector, devices.size()));
    return usable(index);
  }
  const std::string want = lower(selector);
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (lower(devices[i].name) == want) return usable(i);
  std::vector<std::size_t> hits;
  for (std::size_t i = 0; i < devices.size(); ++i)
    if (lower(devices[i].name).find(want) != std::string::npos) hits.push_back(i);
  if (hits.empty())
    return make_error(Code::DeviceNotFound,
                      fmt::format("no Vulkan device name contains `{}` (see `gridcheck devices`)", selector));
  if (hits.size() > 1) {
    std::string names;
    for (std::size_t i : hits) names += fmt::format("{}{} ({})", names.empty() ? "" : ", ", i, devices[i].name);
    return make_error(Code::DeviceAmbiguous, fmt::format("`{}` matches several devices: {}; give an index", selector, names));
  }
  return usable(hits.front());
}

ir::Result<std::vector<DeviceInfo>> list_devices() {
  ir::Result<VkInstance> instance = create_instance(nullptr);
  if (!instance) return instance.diagnostics();
  ir::Result<std::vector<VkPhysicalDevice>> pds = physical_devices(*instance);
  std::vector<DeviceInfo> out;
  if (pds)
    for (std::uint32_t i = 0; i < pds->size(); ++i) out.push_back(describe((*pds)[i], i));
  vkDestroyInstance(*instance, nullptr);
  if (!pds) return pds.diagnostics();
  return out;
}

// ------------------------------------------------------------------------------------ ValidationLog

std::size_t ValidationLog::count() const {
  std::lock_guard lock(mutex_);
  return messages_.size();
}
std::vector<std::string> ValidationLog::messages() const {
  std::lock_guard lock(mutex_);
  return messages_;
}
void ValidationLog::clear() {
  std::lock_guard lock(mutex_);
  messages_.clear();
}
void ValidationLog::record(std::string message) {
  std::lock_guard lock(mutex_);
  messages_.push_back(std::move(message));
}

// ------------------------------------------------------------------------------------ VulkanContext

ir::Result<std::unique_ptr<VulkanContext>> VulkanContext::create(const ContextOptions& options) {
  std::unique_ptr<VulkanContext> ctx(new VulkanContext());
  ir::Result<VkInstance> instance = create_instance(options.validation ? ctx->log_.get() : nullptr);
  if (!instance) return instance.diagnostics();
  ctx->instance_ = *instance;

  if (options.validation) {
    auto create_messenger = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(ctx->instance_, "vkCreateDebugUtilsMessengerEXT"));
    if (create_messenger == nullptr)
      return make_error(Code::NoValidationLayer, "vkCreateDebugUtilsMessengerEXT is unavailable");
    VkDebugUtilsMessengerCreateInfoEXT ci = messenger_info(ctx->log_.get());
    const VkResult r = create_messenger(ctx->instance_, &ci, nullptr, &ctx->messenger_);
    if (r != VK_SUCCESS) return vk_error(r, "vkCreateDebugUtilsMessengerEXT");
  }

  ir::Result<std::vector<VkPhysicalDevice>> pds = physical_devices(ctx->instance_);
  if (!pds) return pds.diagnostics();
  std::vector<DeviceInfo> infos;
  for (std::uint32_t i = 0; i < pds->size(); ++i) infos.push_back(describe((*pds)[i], i));
  ir::Result<std::size_t> chosen = select_device(infos, options.device);
  if (!chosen) return chosen.diagnostics();
  ctx->physical_ = (*pds)[*chosen];
  ctx->info_ = infos[*chosen];
  ctx->literals_ = options.literals;
  const DeviceInfo& d = ctx->info_;
  if (d.api_version < VK_API_VERSION_1_2)
    return make_error(Code::ApiTooOld, fmt::format("device {} ({}) supports Vulkan {}; gridcheck needs 1.2", d.index, d.name,
                                                   format_version(d.api_version)));
  vkGetPhysicalDeviceMemoryProperties(ctx->physical_, &ctx->memory_);

  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
  queue.queueFamilyIndex = d.compute_queue_family;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;

  VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
  v12.shaderBufferInt64Atomics = d.buffer_int64_atomics ? VK_TRUE : VK_FALSE;
  v12.timelineSemaphore = d.timeline_semaphores ? VK_TRUE : VK_FALSE;
  VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
  features.pNext = &v12;
  features.features.shaderFloat64 = d.shader_float64 ? VK_TRUE : VK_FALSE;
  features.features.shaderInt64 = d.shader_int64 ? VK_TRUE : VK_FALSE;

  VkDeviceCreateInfo ci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
  ci.pNext = &features;
  ci.queueCreateInfoCount = 1;
  ci.pQueueCreateInfos = &queue;
  VkResult r = vkCreateDevice(ctx->physical_, &ci, nullptr, &ctx->device_);
  if (r != VK_SUCCESS) return vk_error(r, fmt::format("vkCreateDevice for {}", d.name));
  vkGetDeviceQueue(ctx->device_, d.compute_queue_family, 0, &ctx->queue_);
  ctx->submitter_ = std::make_unique<QueueSubmitter>(ctx->queue_);

  VkCommandPoolCreateInfo pool{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pool.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT | VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = d.compute_queue_family;
  r = vkCreateCommandPool(ctx->device_, &pool, nullptr, &ctx->command_pool_);
  if (r != VK_SUCCESS) return vk_error(r, "vkCreateCommandPool");
  ctx->pipelines_ = std::make_unique<PipelineCache>(
      *ctx, options.pipeline_cache_dir,
      options.pipeline_cache_max_bytes != 0 ? options.pipeline_cache_max_bytes : PipelineCache::kDefaultMaxFileBytes);
  ctx->buffers_ = std::make_unique<BufferPool>(*ctx);
  return ctx;
}

VulkanContext::~VulkanContext() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);
    buffers_.reset();
    pipelines_.reset();
    if (command_pool_ != VK_NULL_HANDLE) vkDestroyCommandPool(device_, command_pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (messenger_ != VK_NULL_HANDLE) {
    auto destroy = reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
        vkGetInstanceProcAddr(instance_, "vkDestroyDebugUtilsMessengerEXT"));
    if (destroy != nullptr) destroy(instance_, messenger_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

ir::Result<std::uint32_t> VulkanContext::host_coherent_memory_type(std::uint32_t type_bits) const {
  const VkMemoryPropertyFlags need = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  for (const VkMemoryPropertyFlags extra : {VkMemoryPropertyFlags{VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT}, VkMemoryPropertyFlags{0}}) {
    for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
      const VkMemoryPropertyFlags flags = memory_.memoryTypes[i].propertyFlags;
      if ((type_bits & (1u << i)) && (flags & (need | extra)) == (need | extra)) return i;
    }
  }
  return make_error(Code::NoHostVisibleMemory,
                    fmt::format("device {} has no host-visible coherent memory type for storage buffers", info_.name));
}

std::optional<std::uint32_t> VulkanContext::host_cached_memory_type(std::uint32_t type_bits) const {
  const VkMemoryPropertyFlags need =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
  std::optional<std::uint32_t> device_local;
  for (std::uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags flags = memory_.memoryTypes[i].propertyFlags;
    if (!(type_bits & (1u << i)) || (flags & need) != need) continue;
    if (!(flags & VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT)) return i;
    if (!device_local) device_local = i;
  }
  return device_local;
}

bool VulkanContext::is_host_cached(std::uint32_t type) const {
  return type < memory_.memoryTypeCount && (memory_.memoryTypes[type].propertyFlags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0;
}

}  // namespace gridcheck::gpu
